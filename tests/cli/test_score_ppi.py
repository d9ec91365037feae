"""`score --source hybrid:M --ci ppi`: the prediction-powered P@k, DCG@k, CG@k and
RBP(rel=N) equal the estimator written here from the formula over the stored arrays;
refusals."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from tests.campaign.machine_campaign import build_machine_campaign, people_majority
from workbench.campaign.pooling.validation import validate_machine
from workbench.campaign.judging.grades import record_grade
from workbench.cli import main
from workbench.store.validation import validation_items


def _sample(db, budget: int, seed: int):
    """The machine's stratified validation sample: ((query, document) names, probabilities)."""
    from workbench.campaign.assessors.roster import known_assessor
    from workbench.store import external_ids

    validate_machine(db, "llm", budget=budget, strategy="stratified", assessors=["carol"], seed=seed)
    with db.read() as s:
        sample = validation_items(s, known_assessor(s, "llm"))
        qn = external_ids.query_ext_ids(s, sample.query_id).tolist()
        dn = external_ids.document_ext_ids(s, sample.document_id).tolist()
    return list(zip(qn, dn)), sample.probability.tolist()


@pytest.fixture
def campaign(sqlite_db, tmp_path):
    c = build_machine_campaign(sqlite_db, tmp_path / "f", n_queries=6, n_systems=4, people=())
    items, probabilities = _sample(sqlite_db, 60, 2)
    rng = np.random.default_rng(0)
    truth = {}
    for (q, d), p in zip(items, probabilities):
        g = int(max(0, c.machine[(q, d)] - (rng.random() < 0.4)))  # the machine is lenient
        truth[(q, d)] = (g, p)
        record_grade(sqlite_db, "carol", q, d, g)
    return sqlite_db, c, truth


def _reference(c, truth, system, k, level=1):
    """P@k by PPI, from the formula: mean over Q x k slots of yhat, plus the Hajek mean of
    y - yhat over the sampled items in the top k (weights 1/pi), scaled by the share of the
    slots the machine labelled."""
    run = c.runs[system]
    slots, yhat, z, p = 0, [], [], []
    labelled = 0
    for q in sorted(run):
        top = sorted(run[q], key=lambda d: (-run[q][d], d), reverse=False)[:k]
        slots += k
        for d in top:
            m = c.machine.get((q, d))
            labelled += m is not None
            yh = float(m is not None and m >= level)
            yhat.append(yh)
            if (q, d) in truth:
                g, pi = truth[(q, d)]
                z.append(float(g >= level) - yh)
                p.append(pi)
    w = 1 / np.array(p)
    z = np.array(z)
    rect = (w * z).sum() / w.sum()
    var = ((1 - np.array(p)) * w ** 2 * (z - rect) ** 2).sum() / w.sum() ** 2
    share = labelled / slots
    est = sum(yhat) / slots + share * rect
    half = stats.norm.ppf(0.975) * share * math.sqrt(var)
    return est, est - half, est + half


def test_ppi_equals_the_formula(campaign, capsys):
    db, c, truth = campaign
    assert main(["score", "--db", db.url, "--source", "hybrid:llm", "-m", "P@5", "-m", "P@10",
                 "--ci", "ppi", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ci"] == "ppi"
    for s in data["systems"]:
        for label, k in (("P@5", 5), ("P@10", 10)):
            est, lo, hi = _reference(c, truth, s["system"], k)
            assert s["mean"][label] == pytest.approx(est, abs=1e-12)
            assert s["mean_ci"][label] == pytest.approx([lo, hi], abs=1e-12)


def _weighted_reference(c, truth, system, weight, gain, depth):
    """Any fixed-weight measure by PPI, from the formula: sum over the (topic, rank) slots of
    w(rank) * gain(machine) / Q, plus the Hajek mean of w * (gain(y) - gain(yhat)) over the
    sampled items in the lists, scaled by the number of slots the machine labelled over Q.
    Written here from docs/uncertainty.md, not from metrics/linear.py."""
    run = c.runs[system]
    queries = sorted(run)
    yhat_sum, z, p, labelled = 0.0, [], [], 0
    for q in queries:
        docs = sorted(run[q], key=lambda d: -run[q][d])
        if depth:
            docs = docs[:depth]
        for r, d in enumerate(docs, start=1):
            w = weight(r)
            m = c.machine.get((q, d))
            labelled += m is not None
            yh = gain(m) if m is not None else 0.0
            yhat_sum += w * yh
            if (q, d) in truth:
                g, pi = truth[(q, d)]
                z.append(w * (gain(g) - yh))
                p.append(pi)
    w8 = 1 / np.array(p)
    z = np.array(z)
    rect = (w8 * z).sum() / w8.sum()
    var = ((1 - np.array(p)) * w8 ** 2 * (z - rect) ** 2).sum() / w8.sum() ** 2
    share = labelled / len(queries)
    est = yhat_sum / len(queries) + share * rect
    half = stats.norm.ppf(0.975) * share * math.sqrt(var)
    return est, est - half, est + half


_FORMS = {
    "DCG@10": (lambda r: 1 / math.log2(r + 1), lambda g: float(max(g, 0)), 10),
    "DCG(gain=exp)@5": (lambda r: 1 / math.log2(r + 1), lambda g: 2.0 ** max(g, 0) - 1, 5),
    "CG@5": (lambda r: 1.0, lambda g: float(max(g, 0)), 5),
    "RBP(rel=2,p=0.8)": (lambda r: 0.2 * 0.8 ** (r - 1), lambda g: float(g >= 2), None),
    "P(rel=2)@5": (lambda r: 1 / 5, lambda g: float(g >= 2), 5),
}


@pytest.mark.parametrize("label", sorted(_FORMS))
def test_ppi_of_fixed_weight_measures_equals_the_formula(campaign, capsys, label):
    db, c, truth = campaign
    assert main(["score", "--db", db.url, "--source", "hybrid:llm", "-m", label,
                 "--ci", "ppi", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    weight, gain, depth = _FORMS[label]
    for s in data["systems"]:
        est, lo, hi = _weighted_reference(c, truth, s["system"], weight, gain, depth)
        (got,) = s["mean"].values()
        (ci,) = s["mean_ci"].values()
        assert got == pytest.approx(est, abs=1e-12)
        assert ci == pytest.approx([lo, hi], abs=1e-12)


def test_ppi_equals_the_plain_score_when_people_agree_with_the_machine(sqlite_db, tmp_path, capsys):
    """With people giving the machine's own grades on the sample, the rectifier is 0 and the
    estimate is the score under the machine's labels."""
    c = build_machine_campaign(sqlite_db, tmp_path / "f", n_queries=5, n_systems=3, people=())
    items, _ = _sample(sqlite_db, 40, 3)
    for q, d in items:
        record_grade(sqlite_db, "carol", q, d, int(c.machine[(q, d)]))
    args = ["score", "--db", sqlite_db.url, "-m", "DCG@10", "-m", "RBP(rel=1)", "--format", "json"]
    assert main(args + ["--source", "hybrid:llm", "--ci", "ppi"]) == 0
    ppi = {s["system"]: s["mean"] for s in json.loads(capsys.readouterr().out)["systems"]}
    assert main(args + ["--source", "assessor:llm"]) == 0
    plain = {s["system"]: s["mean"] for s in json.loads(capsys.readouterr().out)["systems"]}
    assert ppi.keys() == plain.keys()
    for name in ppi:
        assert ppi[name] == pytest.approx(plain[name], abs=1e-12)


@pytest.mark.parametrize("measure,says", [("nDCG@10", "ideal DCG"), ("map", "number of relevant"),
                                          ("bpref", "bpref"), ("Rprec", "cutoff R"),
                                          ("RBP", "top grade")])
def test_ppi_refuses_measures_that_are_not_means(campaign, capsys, measure, says):
    db, _, _ = campaign
    assert main(["score", "--db", db.url, "--source", "hybrid:llm", "-m", measure, "--ci", "ppi"]) == 2
    assert says in capsys.readouterr().err


def test_ppi_needs_a_hybrid_source_and_a_probability_sample(sqlite_db, tmp_path, capsys):
    build_machine_campaign(sqlite_db, tmp_path / "f", n_queries=3, n_systems=3)
    assert main(["score", "--db", sqlite_db.url, "-m", "P@5", "--ci", "ppi"]) == 2
    assert "--source hybrid:MACHINE" in capsys.readouterr().err
    assert main(["score", "--db", sqlite_db.url, "--source", "hybrid:llm", "-m", "P@5", "--ci", "ppi"]) == 2
    assert "no validation sample" in capsys.readouterr().err
    from workbench.campaign.scoring.sources import MAJORITY

    drawn = validate_machine(sqlite_db, "llm", budget=10, strategy="disagreement",
                             assessors=["carol"], seed=1, against=MAJORITY)
    assert drawn.n_items > 0
    assert main(["score", "--db", sqlite_db.url, "--source", "hybrid:llm", "-m", "P@5", "--ci", "ppi"]) == 2
    assert "disagreement sample" in capsys.readouterr().err


def _pair_reference(c, truth, a, b, k, level=1):
    """PPI on each topic's difference: sum over items of (in a's top k - in b's) * y / (Q k),
    the machine's part exact, the rectifier a Hajek mean over the sampled items."""
    slots, yhat_sum, z, p, framed = 0, 0.0, [], [], 0
    for q in sorted(c.runs[a]):
        def top(s):
            run = c.runs[s][q]
            return set(sorted(run, key=lambda d: -run[d])[:k])
        ta, tb = top(a), top(b)
        slots += k
        for d in ta | tb:
            coef = (d in ta) - (d in tb)
            if not coef:
                continue
            m = c.machine.get((q, d))
            framed += m is not None
            yh = float(m is not None and m >= level)
            yhat_sum += coef * yh
            if (q, d) in truth:
                g, pi = truth[(q, d)]
                z.append(coef * (float(g >= level) - yh))
                p.append(pi)
    w, z = 1 / np.array(p), np.array(z)
    rect = (w * z).sum() / w.sum()
    var = ((1 - np.array(p)) * w ** 2 * (z - rect) ** 2).sum() / w.sum() ** 2
    share = framed / slots
    est = yhat_sum / slots + share * rect
    se = share * math.sqrt(var)
    return est, est - 1.959963984540054 * se, est + 1.959963984540054 * se, 2 * stats.norm.sf(abs(est) / se)


def test_compare_ppi_on_each_topics_difference(campaign, capsys):
    db, c, truth = campaign
    assert main(["compare", "--db", db.url, "--source", "hybrid:llm", "-m", "P@5", "--test", "ppi",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["test"] == "ppi" and data["tests"]
    raw = []
    for t in data["tests"]:
        est, lo, hi, p = _pair_reference(c, truth, t["a"], t["b"], 5)
        assert t["mean_diff"] == pytest.approx(est, abs=1e-12)
        assert t["mean_diff_ci"] == pytest.approx([lo, hi], abs=1e-12)
        assert t["p_value"] == pytest.approx(p, rel=1e-9, abs=1e-15)
        assert t["effect_size"] is None
        raw.append(p)
    from statsmodels.stats.multitest import multipletests

    holm = multipletests(raw, method="holm")[1]
    assert [t["p_holm"] for t in data["tests"]] == pytest.approx(list(holm), rel=1e-9, abs=1e-15)
    assert main(["compare", "--db", db.url, "-m", "P@5", "--test", "ppi"]) == 2


def test_compare_ppi_of_dcg_weights_each_items_rank_in_each_list(campaign, capsys):
    """The difference of DCG@5: c_i = w(rank in a) - w(rank in b), 0 where absent."""
    db, c, truth = campaign
    assert main(["compare", "--db", db.url, "--source", "hybrid:llm", "-m", "DCG@5", "--test", "ppi",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tests"]
    for t in data["tests"]:
        yhat_sum, z, p, framed, queries = 0.0, [], [], 0, sorted(c.runs[t["a"]])
        for q in queries:
            def weights(s):
                run = c.runs[s][q]
                top = sorted(run, key=lambda d: -run[d])[:5]
                return {d: 1 / math.log2(r + 1) for r, d in enumerate(top, start=1)}
            wa, wb = weights(t["a"]), weights(t["b"])
            for d in set(wa) | set(wb):
                coef = wa.get(d, 0.0) - wb.get(d, 0.0)
                if coef == 0:
                    continue
                m = c.machine.get((q, d))
                framed += m is not None
                yh = float(max(m, 0)) if m is not None else 0.0
                yhat_sum += coef * yh
                if (q, d) in truth:
                    g, pi = truth[(q, d)]
                    z.append(coef * (float(max(g, 0)) - yh))
                    p.append(pi)
        w, z = 1 / np.array(p), np.array(z)
        rect = (w * z).sum() / w.sum()
        var = ((1 - np.array(p)) * w ** 2 * (z - rect) ** 2).sum() / w.sum() ** 2
        share = framed / len(queries)
        est = yhat_sum / len(queries) + share * rect
        half = stats.norm.ppf(0.975) * share * math.sqrt(var)
        assert t["mean_diff"] == pytest.approx(est, abs=1e-12)
        assert t["mean_diff_ci"] == pytest.approx([est - half, est + half], abs=1e-12)
