"""Differential tests: workbench.metrics against pytrec-eval-terrier (trec_eval's C code).

Hypothesis generates qrels and runs with the awkward cases: tied scores (also scores
equal only as float32, as trec_eval 9 compares them), unjudged documents, negative grades,
queries without relevant documents, queries missing from the run or from the qrels.
pytrec_eval is trec_eval 9 (scores compared as floats, its iprec rounding): compared with
compat=9.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.metrics.pytrec_cases import flat
from workbench.metrics.evaluate import aggregate, evaluate
from workbench.metrics.measures import parse_measures

# trec_eval spelling for pytrec_eval -> our parse name
PYTREC_MEASURES = [
    "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P.1,2,3,5,10", "recall.1,2,3,5,10", "infAP", "11pt_avg", "ndcg",
    "ndcg_cut.1,2,3,5,10", "map_cut.2,5", "success.1,2,5", "set_P", "set_recall", "set_F",
]

DOCS = [f"d{i}" for i in range(12)] + ["D1", "d10x", "a", "zz", "clueweb09-en0000-00-00001", "clueweb09-en0000-00-00002"]
QIDS = ["1", "2", "10", "q3", "Q3"]
# 1.0 and 1.0 + 1e-9 are distinct doubles but equal float32s: trec_eval 9 ties them
SCORES = [0.0, 0.5, 1.0, 1.0 + 1e-9, 2.0, 2.5, -1.0, 3.25, 1e-3]


@st.composite
def collections(draw):
    qrels: dict[str, dict[str, int]] = {}
    for q in draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=4, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        grades = {d: draw(st.integers(-1, 3)) for d in docs}
        if all(g < 0 for g in grades.values()):
            # trec_eval reads stale memory for a query whose grades are all negative
            grades[docs[0]] = draw(st.integers(0, 3))
        qrels[q] = grades
    run: dict[str, dict[str, float]] = {}
    for q in draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=5, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=12, unique=True))
        run[q] = {d: draw(st.sampled_from(SCORES)) for d in docs}
    return qrels, run


def _pytrec_names(measures):
    return {m.label for m in measures}


def _check(qrels, run, level=1):
    measures = parse_measures(PYTREC_MEASURES)
    ours = evaluate(*flat(qrels), *flat(run), measures, rel_level=level, compat=9)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC_MEASURES), relevance_level=level)
    ref = evaluator.evaluate(run)
    assert set(ours.qids) == set(ref), "evaluated queries differ"
    for m in measures:
        for i, q in enumerate(ours.qids):
            expected = ref[q][m.label]
            got = ours.per_query[m][i]
            assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-9), (m.label, q, got, expected)
            # what `--format trec` prints must be trec_eval's text exactly
            assert f"{got:6.4f}" == f"{expected:6.4f}", (m.label, q, got, expected)
        if ours.qids:
            agg = pytrec_eval.compute_aggregated_measure(m.label, [ref[q][m.label] for q in ours.qids])
            assert math.isclose(ours.summary[m], agg, rel_tol=1e-9, abs_tol=1e-9), (m.label, ours.summary[m], agg)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_matches_pytrec_eval(data):
    _check(*data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.integers(1, 3))
def test_matches_pytrec_eval_at_relevance_levels(data, level):
    _check(*data, level=level)


@settings(max_examples=150, deadline=None)
@given(collections())
def test_gm_map_aggregate_matches(data):
    qrels, run = data
    ours = evaluate(*flat(qrels), *flat(run), ["gm_map"], compat=9)  # pytrec_eval orders as trec_eval 9
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"gm_map"}).evaluate(run)
    if not ours.qids:
        return
    agg = pytrec_eval.compute_aggregated_measure("gm_map", [ref[q]["gm_map"] for q in ours.qids])
    (m,) = ours.measures
    assert math.isclose(ours.summary[m], agg, rel_tol=1e-9)


def _trec_sorted(docs: dict[str, float], compat: int = 10) -> list[str]:
    """trec_eval's order written the slow obvious way: score desc (doubles; floats as
    trec_eval 9), docno desc."""
    precision = np.float64 if compat == 10 else np.float32
    return sorted(docs, key=lambda d: (float(precision(docs[d])), d.encode()), reverse=True)


@settings(max_examples=150, deadline=None)
@given(collections(), st.integers(0, 6), st.sampled_from([9, 10]))
def test_max_depth_equals_truncated_run(data, depth, compat):
    qrels, run = data
    cut = {q: {d: docs[d] for d in _trec_sorted(docs, compat)[:depth]} for q, docs in run.items()}
    cut = {q: v for q, v in cut.items() if v}
    measures = parse_measures(PYTREC_MEASURES)
    ours = evaluate(*flat(qrels), *flat(run), measures, max_depth=depth, compat=compat)
    if not cut:
        return
    ref = evaluate(*flat(qrels), *flat(cut), measures, compat=compat)
    for m in measures:
        if m.family == "num_ret" or not ref.qids:
            continue
        mine = dict(zip(ours.qids, ours.per_query[m]))
        for q, v in zip(ref.qids, ref.per_query[m]):
            assert math.isclose(mine[q], v, abs_tol=1e-12), (m.label, q)


@settings(max_examples=100, deadline=None)
@given(collections())
def test_complete_averages_over_all_qrels_queries(data):
    qrels, run = data
    ms = parse_measures(["map", "P.5", "num_rel", "ndcg", "gm_map"])
    part = evaluate(*flat(qrels), *flat(run), ms)
    full = evaluate(*flat(qrels), *flat(run), ms, complete=True)
    assert set(full.qids) == set(qrels)
    assert set(full.missing) == set(qrels) - set(run)
    for m in ms:
        vals = dict(zip(full.qids, full.per_query[m]))
        for q in full.missing:
            assert vals[q] == (sum(1 for g in qrels[q].values() if g >= 1) if m.family == "num_rel" else 0.0)
        assert math.isclose(full.summary[m], aggregate(m, full.per_query[m]))
