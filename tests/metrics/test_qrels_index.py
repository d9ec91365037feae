"""QrelsIndex layouts: grouped or scattered query rows, wide grades, sizes that force the
padded and the global sorts. Every layout must give the same numbers (pytrec_eval is
the reference for wide grades)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.metrics.evaluate import evaluate
from workbench.metrics.measures import parse_measures
from workbench.metrics.qrels_index import DuplicatePairError, QrelsIndex

MEASURES = ["map", "P.1,3,5", "ndcg", "ndcg_cut.3", "bpref", "recip_rank", "Rprec", "infAP",
            "recall.3", "num_rel", "nDCG(gain=exp)@3", "IDCG@2"]


@st.composite
def collections(draw):
    rows = []
    for q in draw(st.lists(st.sampled_from(["1", "2", "10", "q"]), min_size=1, max_size=4, unique=True)):
        docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(12)]), min_size=1, max_size=12,
                             unique=True))
        grades = [draw(st.sampled_from([-300, -1, 0, 1, 2, 3, 200])) for _ in docs]
        if all(g < 0 for g in grades):
            grades[0] = draw(st.sampled_from([0, 1, 200]))  # trec_eval reads stale memory then
        rows += list(zip([q] * len(docs), docs, grades))
    run = [(r[0], r[1], float(i % 5)) for i, r in enumerate(rows) if i % 3]
    run += [(q, "zz", 0.5) for q in {r[0] for r in rows}]
    return rows, run


def _cols(rows):
    return [list(c) for c in zip(*rows)]


@settings(max_examples=150, deadline=None)
@given(collections(), st.randoms(use_true_random=False))
def test_scattered_qrels_rows_equal_grouped(coll, rnd):
    rows, run = coll
    grouped = evaluate(*_cols(rows), *_cols(run), MEASURES)
    shuffled = rows[:]
    rnd.shuffle(shuffled)
    _same_values(evaluate(*_cols(shuffled), *_cols(run), MEASURES), grouped)


def _same_values(a, b):
    assert a.qids == b.qids
    for m in b.measures:
        assert np.array_equal(a.per_query[m], b.per_query[m]), m.label


@settings(max_examples=150, deadline=None)
@given(collections())
def test_every_negative_grade_is_unjudged(coll):
    rows, run = coll
    a = evaluate(*_cols(rows), *_cols(run), MEASURES)
    _same_values(evaluate(*_cols([(q, d, max(g, -1)) for q, d, g in rows]), *_cols(run), MEASURES), a)


@settings(max_examples=150, deadline=None)
@given(collections())
def test_wide_grades_match_trec_eval(coll):
    rows, run = coll
    rows = [(q, d, max(g, -1)) for q, d, g in rows]  # trec_eval 9 indexes arrays by grade
    names = ["map", "ndcg", "ndcg_cut.3", "bpref", "P.3", "recip_rank", "Rprec"]
    ours = evaluate(*_cols(rows), *_cols(run), names, compat=9)  # pytrec_eval: trec_eval 9
    qrels: dict = {}
    for q, d, g in rows:
        qrels.setdefault(q, {})[d] = g
    res: dict = {}
    for q, d, s in run:
        res.setdefault(q, {})[d] = s
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg", "ndcg_cut.3", "bpref", "P.3",
                                                  "recip_rank", "Rprec"}).evaluate(res)
    for m in ours.measures:
        for i, q in enumerate(ours.qids):
            assert math.isclose(ours.per_query[m][i], ref[q][m.label], rel_tol=1e-12, abs_tol=1e-12), \
                (m.label, q)


def test_duplicate_in_scattered_qrels_names_the_row():
    with pytest.raises(DuplicatePairError) as err:
        QrelsIndex(["1", "2", "1", "2", "1"], ["a", "a", "b", "b", "a"], [1, 1, 1, 1, 0])
    assert err.value.row == 4 and err.value.which == "qrels"
    with pytest.raises(DuplicatePairError) as err:
        QrelsIndex(["1", "1", "2", "1"], ["a", "b", "a", "b"], [1, 1, 1, 0])
    assert err.value.row == 3


def test_uneven_group_sizes_take_the_padded_and_the_global_sort():
    rng = np.random.default_rng(3)
    for sizes in ([1, 2, 3, 2], [1, 1, 1, 40]):  # padded matrix; too uneven: global sort
        qid = np.repeat(np.arange(len(sizes)).astype("S"), sizes)
        docno = np.array([f"d{i}" for i in range(sum(sizes))], dtype="S")
        rel = rng.integers(-1, 3, qid.size)
        index = QrelsIndex(qid, docno, rel)
        qidx = index.query_index(qid)
        assert index.lookup(qidx, docno).tolist() == np.where(rel < 0, -2, rel).tolist()
        other = np.array([b"x" + d for d in docno.tolist()])
        assert (index.lookup(qidx, other) == -1).all()


def test_search_sorted_is_numpys_left_search():
    """The lookup's merge (sorted keys: one stable sort of both) and its fallback
    (unsorted keys) give np.searchsorted's left insertion points, ties and ends included."""
    import numpy as np

    from workbench.metrics.qrels_index import _search_sorted

    rng = np.random.default_rng(45)
    for t in range(500):
        hs = np.sort(rng.integers(0, 40, size=int(rng.integers(1, 50))).astype(np.uint64))
        keys = rng.integers(0, 45, size=int(rng.integers(0, 60))).astype(np.uint64)
        if t % 2:
            keys = np.sort(keys)
        assert _search_sorted(hs, keys).tolist() == np.searchsorted(hs, keys).tolist()
