"""The evaluation API: options, many runs at once, id types, errors, bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.metrics.evaluate import RunArrays, evaluate, evaluate_many
from workbench.metrics.measures import parse_measure, parse_measures
from workbench.metrics.ranking import DuplicatePairError

MEASURES = ["map", "P.1,3,5", "ndcg", "ndcg_cut.3", "bpref", "recip_rank", "Rprec", "infAP",
            "iprec_at_recall", "recall.3", "success.1,3", "set_F", "Judged@3", "nDCG(gain=exp)@3"]

QRELS = (["1", "1", "1", "1", "2", "2"], ["a", "b", "c", "d", "a", "e"], [2, 0, 1, -1, 1, 3])


@st.composite
def runs(draw):
    q, d, s = [], [], []
    for qid in draw(st.lists(st.sampled_from(["1", "2", "3"]), min_size=1, max_size=3, unique=True)):
        docs = draw(st.lists(st.sampled_from(list("abcdefgh")), min_size=1, max_size=8, unique=True))
        for doc in docs:
            q.append(qid)
            d.append(doc)
            s.append(draw(st.sampled_from([0.0, 1.0, 2.0, 3.0])))
    return q, d, s


def _trec_sorted(q, d, s):
    rows = sorted(zip(q, d, s), key=lambda r: (r[0], -float(r[2]), tuple(-b for b in r[1].encode())))
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]


@settings(max_examples=100, deadline=None)
@given(runs())
def test_input_ties_on_sorted_input_equal_trec_eval(run):
    sorted_run = _trec_sorted(*run)
    a = evaluate(*QRELS, *run, MEASURES)
    b = evaluate(*QRELS, *sorted_run, MEASURES, ties="input")
    rank = list(range(len(sorted_run[0])))
    c = evaluate(*QRELS, *sorted_run[:2], [0.0] * len(rank), MEASURES, ties="rank", run_rank=rank)
    for m in a.measures:
        assert np.allclose(a.per_query[m], b.per_query[m]) and np.allclose(a.per_query[m], c.per_query[m])


@settings(max_examples=60, deadline=None)
@given(st.lists(runs(), min_size=1, max_size=4))
def test_many_runs_equal_one_by_one(rs):
    many = evaluate_many(*QRELS, [RunArrays(*r, tag=f"r{i}") for i, r in enumerate(rs)], MEASURES)
    for i, r in enumerate(rs):
        one = evaluate(*QRELS, *r, MEASURES)
        assert many[i].qids == one.qids and many[i].tag == f"r{i}"
        for m in one.measures:
            assert np.array_equal(many[i].per_query[m], one.per_query[m])


@settings(max_examples=60, deadline=None)
@given(runs(), st.integers(1, 3))
def test_rel_parameter_equals_global_level(run, level):
    a = evaluate(*QRELS, *run, ["P.3", "map", "recip_rank", "bpref"], rel_level=level)
    b = evaluate(*QRELS, *run, [f"P(rel={level})@3", f"AP(rel={level})", f"RR(rel={level})",
                                f"Bpref(rel={level})"])
    for ma, mb in zip(a.measures, b.measures):
        assert ma.family == mb.family
        assert np.array_equal(a.per_query[ma], b.per_query[mb])


def test_id_types_bytes_str_int():
    qrels = ([1, 1, 2], [10, 11, 10], [1, 0, 1])
    run = ([1, 1, 2], [11, 10, 10], [2.0, 1.0, 1.0])
    a = evaluate(*qrels, *run, ["map"])
    b = evaluate([str(x) for x in qrels[0]], [str(x).encode() for x in qrels[1]], qrels[2],
                 np.array(["1", "1", "2"]), np.array([b"11", b"10", b"10"]), run[2], ["map"])
    assert a.qids == b.qids == ("1", "2")
    assert a.summary == b.summary
    assert a.value("map", "1") == 0.5 and a.value("AP") == 0.75


def test_judged_at_k():
    ev = evaluate(*QRELS, ["1"] * 4, ["a", "x", "d", "b"], [4, 3, 2, 1],
                  ["Judged@2", "Judged@4", "Judged@10", "JudgedTrec@2", "JudgedTrec@4", "JudgedTrec@10"])
    # ir_measures' Judged: d (a negative grade) has a qrels line, so it is judged; the
    # denominator is min(k, retrieved) = 4 at k = 10
    # JudgedTrec: d is "in the pool but unjudged", and the denominator is k
    assert [ev.value(m) for m in ("Judged@2", "Judged@4", "Judged@10")] == [1 / 2, 3 / 4, 3 / 4]
    assert [ev.value(m) for m in ("JudgedTrec@2", "JudgedTrec@4", "JudgedTrec@10")] == [1 / 2, 2 / 4, 2 / 10]


def test_ndcg_ideal_counts_unretrieved_judged_documents():
    # query 2: a (1) retrieved, e (3) never retrieved
    ev = evaluate(*QRELS, ["2"], ["a"], [1.0], ["ndcg", "nDCG@1", "IDCG@2", "DCG@2"])
    ndcg, ndcg1, idcg2, dcg2 = (ev.value(n) for n in ("ndcg", "nDCG@1", "IDCG@2", "DCG@2"))
    assert math.isclose(ndcg, 1.0 / (3 + 1 / math.log2(3)))
    assert ndcg1 == 1 / 3
    assert math.isclose(idcg2, 3 + 1 / math.log2(3)) and dcg2 == 1.0


def test_bounds_upper_value():
    run = (["1"] * 3, ["x", "a", "d"], [3.0, 2.0, 1.0])
    base = evaluate(*QRELS, *run, ["P.3", "num_rel", "map"])
    up = evaluate(*QRELS, *run, ["P.3", "num_rel", "map"], unjudged_as=2)
    # order: num_rel, map, P_3; a (grade 2) is the only relevant retrieved, at rank 2
    assert [base.summary[m] for m in base.measures] == [2, (1 / 2) / 2, 1 / 3]
    # x (absent) and d (negative) become relevant: R = 2 + 2, ranks 1, 2, 3 relevant
    assert [up.summary[m] for m in up.measures] == [4, (1 + 1 + 1) / 4, 1.0]


def test_duplicates_are_refused_with_the_row():
    with pytest.raises(DuplicatePairError) as err:
        evaluate(*QRELS, ["1", "2", "1"], ["a", "a", "a"], [1, 2, 3], ["map"])
    assert err.value.row == 2 and err.value.which == "run"
    with pytest.raises(DuplicatePairError) as err:
        evaluate(["1", "1"], ["a", "a"], [1, 0], ["1"], ["a"], [1.0], ["map"])
    assert err.value.row == 1 and err.value.which == "qrels"


def test_empty_run_and_empty_qrels():
    ev = evaluate(*QRELS, [], [], [], ["map", "num_ret"])
    assert ev.qids == () and ev.summary[parse_measure("map")] == 0.0
    ev = evaluate(*QRELS, [], [], [], ["map", "num_rel"], complete=True)
    assert ev.qids == ("1", "2") and ev.summary[parse_measure("num_rel")] == 4
    ev = evaluate([], [], [], ["1"], ["a"], [1.0], ["map"])
    assert ev.qids == ()


def test_measure_objects_and_strings_mix():
    ms = parse_measures(["P.5"]) + ("map",)
    ev = evaluate(*QRELS, ["1"], ["a"], [1.0], ms)
    assert [m.label for m in ev.measures] == ["map", "P_5"]


def test_options_validated():
    with pytest.raises(ValueError):
        evaluate(*QRELS, ["1"], ["a"], [1.0], ["map"], compat=8)
    with pytest.raises(ValueError):
        evaluate(*QRELS, ["1"], ["a"], [1.0], ["map"], ties="random")
    with pytest.raises(ValueError):
        evaluate(*QRELS, ["1"], ["a"], [1.0], ["map"], ties="rank")


def test_key_collisions_fall_back_to_exact_lookups(monkeypatch):
    """Distinct (query, docno) pairs with equal keys must not change any value."""
    import workbench.metrics.qrels_index as qrels_index

    run = (["1", "1", "1", "2", "2"], ["a", "x", "c", "e", "a"], [3.0, 2.0, 1.0, 2.0, 1.0])
    normal = evaluate(*QRELS, *run, MEASURES)
    # no docno bits in the keys: every document of a query collides with every other
    monkeypatch.setattr(qrels_index, "_doc_hash", lambda d: np.zeros(len(d), dtype=np.uint64))
    collided = evaluate(*QRELS, *run, MEASURES)
    for m in normal.measures:
        assert np.array_equal(normal.per_query[m], collided.per_query[m]), m.label
    with pytest.raises(DuplicatePairError) as err:
        evaluate(*QRELS, ["1", "1", "1"], ["a", "b", "a"], [1, 2, 3], ["map"])
    assert err.value.row == 2


@settings(max_examples=150, deadline=None)
@given(runs(), st.randoms(use_true_random=False))
def test_rank_ordered_input_with_unordered_ties(run, rnd):
    """A file already in score order (queries in any order, tied documents in any order)
    takes the no-sort path; it must rank exactly as a shuffled copy does."""
    rows = list(zip(*run))
    rnd.shuffle(rows)
    qorder = {q: rnd.random() for q in set(run[0])}
    ordered = sorted(rows, key=lambda r: (qorder[r[0]], -float(np.float32(r[2]))))
    a = evaluate(*QRELS, *map(list, zip(*rows)), MEASURES)
    b = evaluate(*QRELS, *map(list, zip(*ordered)), MEASURES)
    for m in a.measures:
        assert np.array_equal(a.per_query[m], b.per_query[m]), m.label


def test_query_split_in_two_places():
    run = (["1", "2", "1"], ["a", "a", "c"], [1.0, 2.0, 3.0])
    ev = evaluate(*QRELS, *run, ["map", "num_ret"])
    assert ev.value("num_ret") == 3 and ev.value("map", "1") == (1 / 1 + 2 / 2) / 2
    with pytest.raises(DuplicatePairError) as err:
        evaluate(*QRELS, ["1", "2", "1"], ["a", "a", "a"], [1.0, 2.0, 3.0], ["map"])
    assert err.value.row == 2


@settings(max_examples=60, deadline=None)
@given(runs(), st.integers(1, 4))
def test_blocked_evaluation_equals_whole(run, block):
    """Big runs are evaluated in blocks of whole queries: same values, any block size."""
    import workbench.metrics.evaluate as evaluation

    whole = evaluate(*QRELS, *run, MEASURES + ["num_rel", "num_q"], complete=True)
    saved = evaluation.BLOCK_ROWS
    evaluation.BLOCK_ROWS = block
    try:
        blocked = evaluate(*QRELS, *run, MEASURES + ["num_rel", "num_q"], complete=True)
    finally:
        evaluation.BLOCK_ROWS = saved
    assert blocked.qids == whole.qids and blocked.missing == whole.missing
    for m in whole.measures:
        assert np.array_equal(blocked.per_query[m], whole.per_query[m]), m.label


def test_blocked_duplicate_row_maps_back(monkeypatch):
    import workbench.metrics.evaluate as evaluation

    monkeypatch.setattr(evaluation, "BLOCK_ROWS", 1)
    with pytest.raises(DuplicatePairError) as err:
        evaluate(*QRELS, ["2", "1", "2", "1"], ["a", "a", "e", "a"], [1.0, 2.0, 3.0, 4.0], ["map"])
    assert err.value.row == 3


def test_blocked_evaluation_of_a_split_query(monkeypatch):
    import workbench.metrics.evaluate as evaluation

    run = (["1", "2", "1", "2"], ["a", "a", "c", "x"], [1.0, 2.0, 3.0, 0.5])
    whole = evaluate(*QRELS, *run, MEASURES)
    monkeypatch.setattr(evaluation, "BLOCK_ROWS", 1)
    blocked = evaluate(*QRELS, *run, MEASURES)
    for m in whole.measures:
        assert np.array_equal(whole.per_query[m], blocked.per_query[m]), m.label
    with pytest.raises(DuplicatePairError) as err:
        evaluate(*QRELS, ["1", "2", "1", "2"], ["a", "a", "a", "x"], [1.0, 2.0, 3.0, 0.5], ["map"])
    assert err.value.row == 2
