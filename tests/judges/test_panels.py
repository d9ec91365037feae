"""Judge panels: labels derived from the members' stored labels (never stored), equal to an
aggregation written here independently; `panel:NAME` and `hybrid:panel:NAME` as sources;
Dawid–Skene against a hand-rolled EM; on both backends."""

from __future__ import annotations

import json
import math
from collections import Counter
from statistics import median

import numpy as np
import pytest

from tests.cli.helpers import cli_ok, run
from workbench.campaign.database import Database
from workbench.campaign.scoring.qrels import derive_qrels
from workbench.campaign.scoring.sources import QrelsSource
from workbench.errors import UsageError
from workbench.metrics import dawid_skene as ds

DOCS = [f"d{i}" for i in range(1, 9)]
# each machine's labels of q1's documents (None: not labelled)
LABELS = {
    "m1": [3, 2, 0, 1, 2, 0, None, 1],
    "m2": [3, 1, 0, 2, 2, 1, 2, None],
    "m3": [2, 1, 1, 3, 0, 1, 2, 0],
    "m4": [2, 3, 0, 0, 2, None, 1, None],
}


def _majority(gs):  # most frequent, ties to the lower grade
    c = Counter(gs)
    top = max(c.values())
    return min(g for g in c if c[g] == top)


def _round_half_up(x):
    return math.floor(x + 0.5)


EXPECTED = {
    "majority": _majority,
    "mean": lambda gs: _round_half_up(sum(gs) / len(gs)),
    "median": lambda gs: _round_half_up(median(gs)),
}


def _campaign(db_url, tmp_path):
    (tmp_path / "a.run").write_text("".join(f"q1 Q0 {d} {i + 1} {10 - i} sys\n" for i, d in enumerate(DOCS)))
    cli_ok(db_url, "import", "run", str(tmp_path / "a.run"))
    for m, grades in LABELS.items():
        path = tmp_path / f"{m}.qrels"
        path.write_text("".join(f"q1 0 {d} {g}\n" for d, g in zip(DOCS, grades) if g is not None))
        cli_ok(db_url, "import", "qrels", str(path), "--machine", "--model", m)
    cli_ok(db_url, "grade", "-a", "alice", "q1", "d1", "0")


@pytest.mark.parametrize("aggregate", ["majority", "mean", "median"])
def test_panel_labels_equal_an_independent_aggregation(db_url, tmp_path, aggregate):
    _campaign(db_url, tmp_path)
    members = ["m1", "m2", "m3", "m4"]
    out = cli_ok(db_url, "panel", "create", "jury", *sum((["--member", m] for m in members), []),
                 "--aggregate", aggregate)
    assert "panel:jury" in out
    expected = []
    for k, d in enumerate(DOCS):
        gs = [LABELS[m][k] for m in members if LABELS[m][k] is not None]
        expected.append(("q1", d, EXPECTED[aggregate](gs)))
    db = Database.open(db_url, create=False)
    try:
        assert derive_qrels(db, QrelsSource.parse("panel:jury")).rows() == expected
        # hybrid: alice where she judged, the panel elsewhere
        hybrid = derive_qrels(db, QrelsSource.parse("hybrid:panel:jury")).rows()
        assert hybrid == [("q1", "d1", 0)] + expected[1:]
    finally:
        db.close()
    listed = json.loads(cli_ok(db_url, "panel", "list", "--format", "json"))
    assert listed == [{"name": "jury", "aggregate": aggregate, "members": members}]
    scored = cli_ok(db_url, "export", "scores", "-q", "--source", "panel:jury", "-m", "P@1", "--format", "tot")
    assert scored.splitlines()[0] == f"sys P@1 q1 {float(expected[0][2] >= 1)}"
    if aggregate != "majority":
        return
    # the machine source everywhere: calibrate --machine panel:P, meta --judge panel:P
    cal = json.loads(cli_ok(db_url, "calibrate", "--machine", "panel:jury", "--against", "alice", "--format", "json"))
    assert cal["machine"] == "panel:jury" and cal["items"] == 1  # alice judged d1 only
    meta = json.loads(cli_ok(db_url, "meta", "--truth", "assessor:m1", "--judge", "panel:jury", "-m", "P@1",
                             "--correlation", "kendall", "--resamples", "10", "--format", "json"))
    assert meta["judges"][0]["judge"] == "panel:jury" and meta["judges"][0]["systems"] == 1
    assert any("only 1 systems" in w for w in meta["warnings"])


def test_panel_refusals(db_url, tmp_path):
    _campaign(db_url, tmp_path)
    r = run(db_url, "panel", "create", "p", "--member", "m1", "--aggregate", "mean")
    assert isinstance(r.exception, UsageError) and "at least two" in str(r.exception)
    r = run(db_url, "panel", "create", "p", "--member", "m1", "--member", "alice", "--aggregate", "mean")
    assert "not a machine assessor" in str(r.exception)
    r = run(db_url, "panel", "create", "m1", "--member", "m1", "--member", "m2", "--aggregate", "mean")
    assert "an assessor's name" in str(r.exception)
    cli_ok(db_url, "panel", "create", "p", "--member", "m1", "--member", "m2", "--aggregate", "mean")
    r = run(db_url, "panel", "create", "p", "--member", "m1", "--member", "m3", "--aggregate", "mean")
    assert "exists already" in str(r.exception)


def _em_by_hand(obs, n_items, n_ann, k, seed):
    """Dawid–Skene EM written with loops (the same start, smoothing and stopping rule)."""
    votes = np.zeros((n_items, k))
    for i, a, l in obs:
        votes[i, l] += 1
    post = votes + ds.JITTER * np.random.default_rng(seed).random((n_items, k))
    post /= post.sum(axis=1, keepdims=True)
    for _ in range(ds.MAX_ITER):
        prior = post.mean(axis=0) + 1e-12
        conf = np.full((n_ann, k, k), ds.SMOOTH)
        for i, a, l in obs:
            conf[a, :, l] += post[i]
        conf /= conf.sum(axis=2, keepdims=True)
        new = np.tile(np.log(prior), (n_items, 1))
        for i, a, l in obs:
            new[i] += np.log(conf[a, :, l])
        new = np.exp(new - new.max(axis=1, keepdims=True))
        new /= new.sum(axis=1, keepdims=True)
        moved = np.abs(new - post).max()
        post = new
        if moved <= ds.TOL:
            break
    return post.argmax(axis=1)


def test_dawid_skene_equals_loops_and_trusts_the_good_annotator():
    rng = np.random.default_rng(2)
    truth = rng.integers(0, 3, 60)
    obs = []
    for a, acc in enumerate((0.95, 0.6, 0.55, 0.5)):
        for i, t in enumerate(truth):
            obs.append((i, a, int(t if rng.random() < acc else rng.integers(0, 3))))
    item, ann, lab = (np.array(c) for c in zip(*obs))
    got, rounds = ds.dawid_skene(item, ann, lab, 60, 4, 3, seed=0)
    assert rounds <= ds.MAX_ITER
    assert got.tolist() == _em_by_hand(obs, 60, 4, 3, 0).tolist()
    majority = np.array([_majority([l for i2, _, l in obs if i2 == i]) for i in range(60)])
    assert (got == truth).mean() >= (majority == truth).mean()


def test_dawid_skene_panel_is_seeded_and_derived(db_url, tmp_path):
    _campaign(db_url, tmp_path)
    cli_ok(db_url, "panel", "create", "em", "--member", "m1", "--member", "m2", "--member", "m3",
           "--aggregate", "dawid-skene")
    db = Database.open(db_url, create=False)
    try:
        one = derive_qrels(db, QrelsSource.parse("panel:em")).rows()
        two = derive_qrels(db, QrelsSource.parse("panel:em")).rows()
    finally:
        db.close()
    assert one == two and len(one) == len(DOCS)
    # the same EM on the labels as this test reads them
    members = ["m1", "m2", "m3"]
    obs = [(k, a, LABELS[m][k]) for a, m in enumerate(members) for k in range(len(DOCS)) if LABELS[m][k] is not None]
    grades = sorted({l for *_, l in obs})
    coded = [(i, a, grades.index(l)) for i, a, l in obs]
    expected = [grades[c] for c in _em_by_hand(coded, len(DOCS), 3, len(grades), 0)]
    assert [g for *_, g in one] == expected


def test_agree_machines_is_the_judge_by_judge_matrix(db_url, tmp_path):
    from sklearn.metrics import cohen_kappa_score

    _campaign(db_url, tmp_path)
    cli_ok(db_url, "grade", "-a", "bob", "q1", "d2", "1")
    cli_ok(db_url, "panel", "create", "jury", "--member", "m1", "--member", "m2", "--member", "m3",
           "--aggregate", "majority")
    out = json.loads(cli_ok(db_url, "agree", "--machines", "--format", "json"))
    assert out["assessors"] == ["m1", "m2", "m3", "m4", "panel:jury", "consensus:majority"]
    pairs = {(p["a"], p["b"]): p for p in out["pairs"]}
    shared = [k for k in range(len(DOCS)) if LABELS["m1"][k] is not None and LABELS["m2"][k] is not None]
    a, b = [LABELS["m1"][k] for k in shared], [LABELS["m2"][k] for k in shared]
    assert pairs[("m1", "m2")]["n"] == len(shared)
    assert pairs[("m1", "m2")]["cohen_kappa"] == pytest.approx(cohen_kappa_score(a, b))
    jury = [_majority([LABELS[m][k] for m in ("m1", "m2", "m3") if LABELS[m][k] is not None]) for k in range(len(DOCS))]
    m3 = LABELS["m3"]
    assert pairs[("m3", "panel:jury")]["cohen_kappa"] == pytest.approx(cohen_kappa_score(m3, jury))
    # each judge against people: alice d1 0, bob d2 1 (the majority of one each)
    assert pairs[("m1", "consensus:majority")]["n"] == 2
    r = run(db_url, "agree", "--machines", "--assessor", "m1")
    assert r.exit_code == 2
