"""metrics.evaluate.per_query_values on rows already in trec_eval's order with their grades joined
by the caller (what scoring does with the stored runs): no scores and no document ids are
needed, and every value equals the evaluation of the same run from its names and scores."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.metrics import evaluate as evaluate_module
from workbench.metrics.evaluate import RunArrays, per_query_values
from workbench.metrics.measures import parse_measures
from workbench.metrics.qrels_index import NONPOOL, QrelsIndex
from workbench.metrics.ranking import trec_order

MEASURES = parse_measures(["map", "ndcg_cut.10", "P.5", "bpref", "recip_rank", "Rprec",
                           "infAP", "num_rel_ret", "recall.20"])


def _collection(seed: int):
    rng = np.random.default_rng(seed)
    qids = np.array([f"q{i}".encode() for i in range(12)])
    docs = np.array([f"d{i:03d}".encode() for i in range(120)])
    # qrels: q0..q9 (q10, q11 are retrieved but unjudged queries); grades -1..3
    pairs = [(q, d) for q in range(10) for d in rng.choice(120, size=30, replace=False)]
    qrels = QrelsIndex(qids[[q for q, _ in pairs]], docs[[d for _, d in pairs]],
                       rng.integers(-1, 4, size=len(pairs)))
    # the run: 40 documents per query, scores with ties (as float32 and exactly)
    rows = [(q, d) for q in rng.permutation(12) for d in rng.choice(120, size=40, replace=False)]
    qid = qids[[q for q, _ in rows]]
    docno = docs[[d for _, d in rows]]
    score = np.round(rng.normal(size=len(rows)), 1) + rng.choice([0.0, 1e-9], size=len(rows))
    return qrels, RunArrays(qid, docno, score)


def _ranked_without_names(qrels: QrelsIndex, run: RunArrays):
    """The run in trec_eval's order, grades joined by name here, scores and names dropped."""
    qidx = qrels.query_index(run.qid)
    order = trec_order(qidx, run.score, run.docno)
    qid, docno, qidx = run.qid[order], run.docno[order], qidx[order]
    grades = np.full(qid.size, NONPOOL, dtype=np.int64)
    known = qidx >= 0
    grades[known] = qrels.lookup(qidx[known], docno[known])
    return RunArrays(qid, None, None), grades


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("block_rows", [None, 97])
def test_ranked_rows_with_joined_grades_equal_the_named_run(seed, block_rows, monkeypatch):
    if block_rows:  # the path that cuts a big run into blocks of whole queries
        monkeypatch.setattr(evaluate_module, "BLOCK_ROWS", block_rows)
    qrels, run = _collection(seed)
    want, want_present = per_query_values(qrels, run, MEASURES)
    ranked, grades = _ranked_without_names(qrels, run)
    got, present = per_query_values(qrels, ranked, MEASURES, ties="input",
                                    check_duplicates=False, grades=grades)
    assert np.array_equal(present, want_present) and present.sum() == 10
    for m in MEASURES:
        assert np.array_equal(got[m], want[m]), m
    assert want[MEASURES[0]][want_present].max() > 0  # not a collection of zeros


@pytest.mark.parametrize("seed", range(4))
def test_ranked_queries_in_any_order_give_the_same_values(seed):
    """Stored runs keep their queries in database order, not in the byte order of the ids:
    whole queries moved around change nothing (and are not sorted back)."""
    qrels, run = _collection(seed)
    ranked, grades = _ranked_without_names(qrels, run)
    want, want_present = per_query_values(qrels, ranked, MEASURES, ties="input",
                                          check_duplicates=False, grades=grades)
    names, starts = np.unique(ranked.qid, return_index=True)
    order = np.argsort(starts)  # the queries as they come, then shuffled as wholes
    shuffled = np.random.default_rng(seed).permutation(names[order])
    rows = np.concatenate([np.flatnonzero(ranked.qid == q) for q in shuffled])
    got, present = per_query_values(qrels, RunArrays(ranked.qid[rows], None, None), MEASURES,
                                    ties="input", check_duplicates=False, grades=grades[rows])
    assert np.array_equal(present, want_present)
    for m in MEASURES:
        assert np.array_equal(got[m], want[m]), m


def test_a_run_without_scores_or_names_must_say_how_it_is_ranked_and_graded():
    qrels, run = _collection(0)
    ranked, grades = _ranked_without_names(qrels, run)
    with pytest.raises(ValueError, match="without scores needs ties='input'"):
        per_query_values(qrels, ranked, MEASURES, check_duplicates=False, grades=grades)
    with pytest.raises(ValueError, match="without document ids needs joined grades"):
        per_query_values(qrels, ranked, MEASURES, ties="input", check_duplicates=False)
    with pytest.raises(ValueError, match="without document ids needs joined grades"):
        per_query_values(qrels, ranked, MEASURES, ties="input", grades=grades)
    # with its names but no scores, the run's documents are looked up by name
    named = RunArrays(ranked.qid, run.docno[trec_order(qrels.query_index(run.qid), run.score,
                                                       run.docno)], None)
    by_name, _ = per_query_values(qrels, named, MEASURES, ties="input")
    joined, _ = per_query_values(qrels, ranked, MEASURES, ties="input", check_duplicates=False,
                                 grades=grades)
    for m in MEASURES:
        assert np.array_equal(by_name[m], joined[m]), m
