"""SubsetEvaluator: runs ranked once, evaluated against subsets of one qrels, must give
exactly what evaluate_many gives on those subsets."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.metrics.evaluate import RunArrays, SubsetEvaluator, evaluate_many

MEASURES = ["map", "ndcg_cut.10", "P.10", "bpref", "ndcg", "recip_rank", "Rprec", "infAP",
            "gm_map", "num_rel", "num_rel_ret", "recall.5", "iprec_at_recall"]


def _random_collection(seed: int):
    rng = np.random.default_rng(seed)
    q, d, g = [], [], []
    for qid in range(6):
        for doc in rng.choice(40, 25, replace=False):
            q.append(f"q{qid}")
            d.append(f"d{doc}")
            g.append(int(rng.integers(-1, 4)))  # -1: in the pool, unjudged
    runs = []
    for r in range(5):
        rq, rd, rs = [], [], []
        for qid in [*range(6), 99]:  # q99: not in the qrels
            if rng.random() < 0.2:
                continue
            for doc in rng.choice(40, 20, replace=False):
                rq.append(f"q{qid}")
                rd.append(f"d{doc}")
                rs.append(float(rng.integers(0, 5)))  # many ties: docno order decides
        runs.append(RunArrays(np.array(rq), np.array(rd), np.array(rs), f"run{r}"))
    return rng, (np.array(q), np.array(d), np.array(g)), runs


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert (x.tag, x.qids, x.missing, x.settings, x.ties) == (y.tag, y.qids, y.missing, y.settings, y.ties)
        for m in y.measures:
            assert x.summary[m] == y.summary[m], m
            np.testing.assert_array_equal(x.per_query[m], y.per_query[m])


@pytest.mark.parametrize("opts", [{}, {"ties": "input"}, {"max_depth": 7, "complete": True},
                                  {"judged_only": True, "rel_level": 2}])
def test_random_subsets_equal_evaluate_many(opts):
    rng, (q, d, g), runs = _random_collection(7)
    ev = SubsetEvaluator(q, d, g, runs, MEASURES, **opts)
    for share in (0.0, 0.1, 0.5, 0.9, 1.0):
        for _ in range(4):
            keep = rng.random(q.size) < share
            _same(ev.evaluate(keep), evaluate_many(q[keep], d[keep], g[keep], runs, MEASURES, **opts))
    keep = rng.random(q.size) < 0.5
    _same(ev.evaluate(keep, [3, 1]), evaluate_many(q[keep], d[keep], g[keep], [runs[3], runs[1]], MEASURES, **opts))


def test_a_left_out_document_is_unjudged_and_R_follows_the_subset():
    # query 1: a (2), b (0), c (1); the run retrieves c, b, a
    q, d, g = ["1", "1", "1", "2"], ["a", "b", "c", "x"], [2, 0, 1, 1]
    run = RunArrays(["1", "1", "1"], ["c", "b", "a"], [3.0, 2.0, 1.0], "r")
    ev = SubsetEvaluator(q, d, g, [run], ["map", "P.2", "bpref", "num_rel"])
    full = ev.evaluate(np.ones(4, dtype=bool))[0]
    assert full.value("map") == pytest.approx((1 + 2 / 3) / 2)  # query 2: retrieved nothing, not averaged
    assert full.value("num_rel") == 2
    part = ev.evaluate(np.array([True, True, False, True]))[0]  # c left out
    assert part.value("map") == pytest.approx(1 / 3)  # R = 1: a at rank 3
    assert part.value("P.2") == 0.0
    assert part.value("bpref") == 0.0  # b, judged nonrelevant, above a
    assert part.value("num_rel") == 1
    assert part.qids == ("1",)
    none = ev.evaluate(np.array([False, False, False, True]))[0]  # query 1 has no judgments left
    assert none.qids == () and none.missing == ("2",)


def test_keep_must_be_a_mask_of_every_qrels_row():
    ev = SubsetEvaluator(["1"], ["a"], [1], [RunArrays(["1"], ["a"], [1.0])], ["map"])
    with pytest.raises(ValueError, match="boolean mask of the 1 qrels rows"):
        ev.evaluate(np.array([0]))
    with pytest.raises(ValueError, match="boolean mask"):
        ev.evaluate(np.ones(2, dtype=bool))


def test_runs_joined_by_the_caller_score_as_runs_looked_up_by_name():
    rng, (q, d, g), runs = _random_collection(11)
    pos = {(a, b): i for i, (a, b) in enumerate(zip(q.tolist(), d.tolist()))}
    joined = [np.array([pos.get((a, b), -1) for a, b in zip(r.qid.tolist(), r.docno.tolist())]) for r in runs]
    by_name = SubsetEvaluator(q, d, g, runs, MEASURES, ties="input")
    by_rows = SubsetEvaluator(q, d, g, runs, MEASURES, ties="input", qrels_rows=joined)
    for _ in range(5):
        keep = rng.random(q.size) < 0.6
        _same(by_rows.evaluate(keep), by_name.evaluate(keep))
    with pytest.raises(ValueError, match="one array per run"):
        SubsetEvaluator(q, d, g, runs, MEASURES, qrels_rows=joined[:2])
    with pytest.raises(ValueError, match="differ in length"):
        SubsetEvaluator(q, d, g, runs[:1], MEASURES, qrels_rows=[joined[0][:3]])


def test_qrels_rows_found_by_the_exact_lookup_equal_the_hash_lookup():
    """The exact path (taken when two qrels pairs share a hash) finds the same rows."""
    from workbench.metrics.ranking import QrelsIndex, rank_for_subsets

    _, (q, d, g), runs = _random_collection(3)
    by_hash, exact = QrelsIndex(q, d, g), QrelsIndex(q, d, g)
    exact._collision = True
    for run in runs:
        a = rank_for_subsets(by_hash, run.qid, run.docno, run.score)
        b = rank_for_subsets(exact, run.qid, run.docno, run.score)
        np.testing.assert_array_equal(a.rel, b.rel)
        # the rows found are exactly the run's pairs that the qrels have
        found = {(q[r], d[r]) for r in a.rel[a.rel >= 0].tolist()}
        qrels_pairs = set(zip(q.tolist(), d.tolist()))
        assert found == set(zip(run.qid.tolist(), run.docno.tolist())) & qrels_pairs
        assert (a.rel >= 0).sum() == len(found) and (a.rel == -1).any()
