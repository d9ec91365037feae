"""`calibrate` against independent computations on a generated campaign: Cohen's kappa
(binary and linear-weighted) and the confusion matrix from scikit-learn, the system rankings'
Kendall tau-b from scipy over MAP computed by pytrec_eval on the human, machine and hybrid
qrels built here by hand; the hybrid qrels rule; weighting by a stratified sample."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
import pytrec_eval
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from tests.campaign.machine_campaign import build_machine_campaign, people_majority
from workbench.campaign.agreement.calibration import calibrate
from workbench.campaign.catalog.exporting import export_qrels
from workbench.campaign.scoring.qrels import derive_qrels
from workbench.campaign.scoring.sources import QrelsSource
from workbench.errors import NotFoundError, UsageError
from workbench.formats.trec import read_qrels
from workbench.metrics import correlation as corr


@pytest.fixture
def campaign(db, tmp_path):
    return db, build_machine_campaign(db, tmp_path / "files", human_queries=6)


def _map(runs, qrels, queries):
    """Each system's MAP over `queries` by pytrec_eval (trec_eval's C code)."""
    q = {qid: {d: g for (qq, d), g in qrels.items() if qq == qid} for qid in queries}
    evaluator = pytrec_eval.RelevanceEvaluator(q, {"map"})
    out = {}
    for tag, run in runs.items():
        res = evaluator.evaluate({qid: run[qid] for qid in queries})
        out[tag] = float(np.mean([res[qid]["map"] for qid in queries]))
    return out


def test_agreement_equals_sklearn(campaign):
    db, c = campaign
    human = people_majority(c)
    items = sorted(set(human) & set(c.machine))
    h = np.array([human[i] for i in items])
    m = np.array([c.machine[i] for i in items])
    report = calibrate(db, "llm")
    assert report.items == len(items) > 100
    assert report.agreement.kappa_binary == pytest.approx(cohen_kappa_score(h >= 1, m >= 1), abs=1e-12)
    assert report.agreement.kappa_weighted == pytest.approx(
        cohen_kappa_score(h, m, labels=[0, 1, 2, 3], weights="linear"), abs=1e-12)
    expected = confusion_matrix(h, m, labels=[0, 1, 2, 3])  # rows human, columns machine
    assert report.to_json()["confusion"] == expected.tolist()
    assert report.agreement.leniency == pytest.approx(float(np.mean(m - h)), abs=1e-12)
    lo, hi = report.agreement.kappa_binary_ci
    assert lo < report.agreement.kappa_binary < hi
    lo, hi = report.agreement.kappa_weighted_ci
    assert lo < report.agreement.kappa_weighted < hi
    assert report.agreement.leniency_ci[0] < report.agreement.leniency < report.agreement.leniency_ci[1]
    # precision of machine grade g: of the items it gave g, those the people gave g
    for g in range(4):
        assert report.agreement.precision[g] == pytest.approx(np.mean(h[m == g] == g))
        assert report.agreement.recall[g] == pytest.approx(np.mean(m[h == g] == g))


def test_per_query_kappa_and_weakest(campaign):
    db, c = campaign
    human = people_majority(c)
    report = calibrate(db, "llm")
    rows = {q: (n, k) for q, n, k in report.per_query}
    assert sorted(rows) == c.queries[:6]  # people judged the first six queries only
    for q in rows:
        items = sorted(i for i in set(human) & set(c.machine) if i[0] == q)
        h = np.array([human[i] for i in items]) >= 1
        m = np.array([c.machine[i] for i in items]) >= 1
        assert rows[q][0] == len(items)
        assert rows[q][1] == pytest.approx(cohen_kappa_score(h, m), abs=1e-12)
    ordered = sorted(rows, key=lambda q: (rows[q][1], q))
    assert report.weakest == ordered[:5]
    assert report.to_json()["per_query"][0].keys() == {"query", "items", "kappa_binary"}


def test_rankings_equal_scipy_on_pytrec_eval_maps(campaign):
    db, c = campaign
    human = people_majority(c)
    hybrid = {**c.machine, **human}  # people where they judged, the machine elsewhere
    judged = sorted({q for q, _ in human})
    maps_h = _map(c.runs, human, judged)
    maps_m = _map(c.runs, c.machine, judged)
    maps_y = _map(c.runs, hybrid, judged)
    tags = sorted(c.runs)
    report = calibrate(db, "llm")
    assert report.ranking_queries == len(judged) and report.ranking_systems == len(tags)
    for name, other in (("human_vs_machine", maps_m), ("human_vs_hybrid", maps_y)):
        r = report.rankings[name]
        x, y = [maps_h[t] for t in tags], [other[t] for t in tags]
        assert r.tau_b == pytest.approx(kendalltau(x, y).statistic, abs=1e-12)
        assert r.tau_ap == pytest.approx(corr.tau_ap_b(x, y), abs=1e-12)
        assert r.tau_b_ci[0] <= r.tau_b <= r.tau_b_ci[1] or math.isnan(r.tau_b_ci[0])
        best_h = sorted(tags, key=lambda t: (-maps_h[t], t))
        best_o = sorted(tags, key=lambda t: (-other[t], t))
        assert r.top[3] == (set(best_h[:3]) == set(best_o[:3]), len(set(best_h[:3]) & set(best_o[:3])))
    assert report.orders["consensus:majority"] == sorted(tags, key=lambda t: (-maps_h[t], t))
    j = report.to_json()
    assert set(j["rankings"]["human_vs_hybrid"]) >= {"tau_b", "tau_ap", "rbo", "tau_b_ci", "top3_same", "top10_same"}


def test_against_one_assessor(campaign):
    db, c = campaign
    items = sorted(set(c.people["bob"]) & set(c.machine))
    h = np.array([c.people["bob"][i] for i in items])
    m = np.array([c.machine[i] for i in items])
    report = calibrate(db, "llm", against="bob")
    assert report.against == "assessor:bob" and report.items == len(items)
    assert report.agreement.kappa_weighted == pytest.approx(
        cohen_kappa_score(h, m, labels=[0, 1, 2, 3], weights="linear"), abs=1e-12)


def test_hybrid_qrels_rule_and_export(campaign):
    db, c = campaign
    human = people_majority(c)
    expected = {**c.machine, **human}
    got = derive_qrels(db, QrelsSource.hybrid("llm"))
    assert {(q, d): g for q, d, g in got.rows()} == expected
    from_machine = {(q, d) for q, d, flag in zip(got.qid, got.docno, got.machine) if flag}
    assert from_machine == set(c.machine) - set(human)
    out = io.StringIO()
    assert export_qrels(db, out, QrelsSource.hybrid("llm")) == len(expected)
    lines = [line.split() for line in out.getvalue().splitlines()]
    assert {(q, d) for q, it, d, _ in lines if it == "M"} == from_machine
    assert {it for _, it, _, _ in lines} == {"0", "M"}
    # people's consensus leaves the machine out (it never counts unless named)
    majority = derive_qrels(db, QrelsSource.consensus("majority"))
    assert {(q, d): g for q, d, g in majority.rows()} == human


def test_hybrid_export_reads_back(campaign, tmp_path):
    """The `M` in the iter column is ignored by trec_eval's reader (pytrec_eval's parser)
    and by the workbench's own: the file reads back as the hybrid qrels."""
    db, c = campaign
    out = io.StringIO()
    export_qrels(db, out, QrelsSource.hybrid("llm"))
    path = tmp_path / "hybrid.qrels"
    path.write_text(out.getvalue())
    expected = {**c.machine, **people_majority(c)}
    qrels = read_qrels(path)
    rows = zip(qrels.qid.tolist(), qrels.docno.tolist(), qrels.rel.tolist())
    assert {(q.decode(), d.decode()): g for q, d, g in rows} == expected
    with open(path) as fh:
        parsed = pytrec_eval.parse_qrel(fh)
    assert {(q, d): g for q, docs in parsed.items() for d, g in docs.items()} == expected


def test_errors(campaign):
    db, _ = campaign
    with pytest.raises(NotFoundError):
        calibrate(db, "nobody")
    with pytest.raises(UsageError):
        calibrate(db, "alice")  # a person
    with pytest.raises(UsageError):
        calibrate(db, "llm", against="llm")
    with pytest.raises(UsageError):
        derive_qrels(db, QrelsSource.hybrid("alice"))


def test_few_items_warns(db, tmp_path):
    build_machine_campaign(db, tmp_path, n_queries=2, n_systems=3, depth=4, n_docs=8, judged_share=0.4)
    report = calibrate(db, "llm")
    assert report.items < 30
    assert any("fewer than 30" in w for w in report.warnings)


def test_no_common_items_is_a_report_with_warnings(db, tmp_path):
    build_machine_campaign(db, tmp_path, n_queries=2, n_systems=3, depth=4, n_docs=8, people=())
    report = calibrate(db, "llm")
    assert report.items == 0 and math.isnan(report.agreement.kappa_binary)
    assert report.per_query == [] and report.ranking_queries == 0
    j = report.to_json()
    assert j["kappa_binary"] is None and j["kappa_binary_ci"] == [None, None]
    assert j["confusion"] == [[0] * 4 for _ in range(4)]
    assert any("fewer than 30" in w for w in j["warnings"])
    assert any("rankings" in w for w in j["warnings"])
    assert report.lines()  # the table prints
