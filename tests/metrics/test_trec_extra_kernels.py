"""The kernels of trec_eval's remaining families (kernels.gain, kernels.precision,
kernels.rbp, kernels.counts):
trec_eval 10's own quicktest files, worked examples written as arithmetic, and a
differential test against pytrec-eval-terrier (trec_eval's C code) for the families it has.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.metrics.pytrec_cases import collections, flat
from workbench.formats.trec import read_qrels, read_run
from workbench.formats.zscores import read_zscores
from workbench.metrics.kernels import counts as kc
from workbench.metrics.kernels import gain as kg
from workbench.metrics.kernels import precision as ks
from workbench.metrics.kernels import rbp as rb
from workbench.metrics.kernels.context import MIN_GEO_MEAN
from workbench.metrics.evaluate import aggregate, evaluate
from workbench.metrics.judged_only import judged_only
from workbench.metrics.measures import parse_measure
from workbench.metrics.qrels_index import QrelsIndex
from workbench.metrics.ranking import rank_run
from workbench.metrics.zscore import MISSING_ZSCORE, zscores

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval_quicktest"


def _setup(qrels_q, qrels_d, qrels_r, run_q, run_d, run_s, *, max_depth=None):
    index = QrelsIndex(qrels_q, qrels_d, qrels_r)
    rk = rank_run(index, run_q, run_d, run_s, max_depth=max_depth)
    return index, rk


def _counts(index):
    return kg.grade_counts(index.qcode, index.rel, index.nq)


def _all_families(index, rk, level, gains=(), utility=ks.UTILITY_COEFFICIENTS,
                  multiples=ks.RPREC_MULTIPLES) -> dict[str, np.ndarray]:
    """Per-query values under trec_eval's printed names."""
    R, _ = index.counts(level)
    tables = kg.gain_tables(_counts(index), gains)
    out = {
        "G": kg._G_values(rk, tables), "binG": kg._binG_values(rk, R, level), "ndcg": kg._ndcg_values(rk, tables),
        "ndcg_rel": kg._ndcg_rel_values(rk, tables), "Rndcg": kg._Rndcg_values(rk, tables, R),
        "set_map": ks._set_map(rk, R, level), "set_relative_P": ks._set_relative_P(rk, R, level),
        "num_nonrel_judged_ret": kc._num_nonrel_judged_ret(rk, level),
        "utility": ks._utility(rk, R, level, utility),
        "rbp": rb._rbp_values(rk, tables), "rbp_resid": rb._rbp_resid_values(rk),
    }
    for m, v in zip(multiples, ks._Rprec_mult(rk, R, level, multiples)):
        out[f"Rprec_mult_{m:.2f}"] = v
    for k, v in zip(ks.RELATIVE_P_CUTOFFS, ks._relative_P(rk, R, level)):
        out[f"relative_P_{k}"] = v
    for k, v in zip(ks.UNJ_CUTOFFS, ks._unj(rk)):
        out[f"unj_{k}"] = v
    return out


SUMMED = {"num_nonrel_judged_ret"}


def _expected(name: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in (DATA / name).read_text().splitlines():
        m, q, v = line.split()
        out[(m, q)] = v
    return out


def _fmt(value: float, like: str) -> str:
    return f"{value:.4f}" if "." in like else str(int(value))


# (expected file, qrels, run, -l, -M, -c)
QUICKTEST = [
    ("out.test.aq", "qrels.test", "results.test", 1, None, False),
    ("out.test.aqc", "qrels.test", "results.trunc", 1, None, True),
    ("out.test.aqcM", "qrels.test", "results.trunc", 1, 100, True),
    ("out.test.aql", "qrels.rel_level", "results.test", 2, None, False),
]


def _quicktest(qrels, run, max_depth=None):
    q = read_qrels(DATA / qrels)
    r = read_run(DATA / run)
    return q, r, *_setup(q.qid, q.docno, q.rel, r.qid, r.docno, r.score, max_depth=max_depth)


@pytest.mark.parametrize("case", QUICKTEST, ids=lambda c: c[0])
def test_quicktest_every_query_and_all(case):
    expected, qrels, run, level, depth, complete = case
    want = _expected(expected)
    _, _, index, rk = _quicktest(qrels, run, depth)
    qsel = np.arange(index.nq) if complete else np.flatnonzero(rk.present)
    checked = 0
    for name, values in _all_families(index, rk, level).items():
        for i in qsel:
            qid = index.qids[i].decode()
            assert _fmt(values[i], want[(name, qid)]) == want[(name, qid)], (name, qid)
            checked += 1
        v = values[qsel]
        summary = v.sum() if name in SUMMED else v.mean()
        assert _fmt(summary, want[(name, "all")]) == want[(name, "all")], name
        checked += 1
    assert checked == 33 * 4  # 33 printed names; 3 queries and the 'all' line each


@pytest.mark.parametrize("case", QUICKTEST, ids=lambda c: c[0])
def test_quicktest_gm_bpref_is_the_geometric_mean_of_bpref(case):
    expected, qrels, run, level, depth, complete = case
    q, r, _, _ = _quicktest(qrels, run)
    ev = evaluate(q.qid, q.docno, q.rel, r.qid, r.docno, r.score, ["bpref"], rel_level=level,
                  max_depth=depth, complete=complete)
    bpref = ev.per_query[ev.measures[0]]
    gm = aggregate(parse_measure("gm_bpref"), bpref)
    assert f"{gm:.4f}" == _expected(expected)[("gm_bpref", "all")]
    assert gm == aggregate(parse_measure("gm_map"), bpref)  # one formula for both


def test_quicktest_measure_parameters():
    """out.test.meas_params: -m Rprec_mult.5.0,0.2,0.35 -m utility.2,-1,0,0
    -m ndcg.1=3,2=9,4=4.5 (trec_eval sorts the Rprec_mult multiples)."""
    want = _expected("out.test.meas_params")
    _, _, index, rk = _quicktest("qrels.test", "results.test")
    values = _all_families(index, rk, 1, gains=[("1", 3.0), ("2", 9.0), ("4", 4.5)],
                           utility=(2, -1, 0, 0), multiples=(0.2, 0.35, 5.0))
    names = {"ndcg": "ndcg_1=3,2=9,4=4.5", "utility": "utility_2,-1,0,0",
             "Rprec_mult_0.20": "Rprec_mult_0.20", "Rprec_mult_0.35": "Rprec_mult_0.35",
             "Rprec_mult_5.00": "Rprec_mult_5.00"}
    for ours, theirs in names.items():
        for i, qid in enumerate(index.qids.astype(str)):
            assert f"{values[ours][i]:.4f}" == want[(theirs, qid)], (theirs, qid)
        assert f"{values[ours].mean():.4f}" == want[(theirs, "all")], theirs


def test_quicktest_zscores():
    """out.test.aqZ (-Z zscores_file): each query's value as (v - mean) / stddev, and the
    'all' line their mean (their sum for the summed counts)."""
    want = _expected("out.test.aqZ")
    table = read_zscores(DATA / "zscores_file")
    _, _, index, rk = _quicktest("qrels.test", "results.test")
    qids = index.qids.astype(str)
    for name, values in _all_families(index, rk, 1).items():
        z = zscores(values, *table.lookup(qids, name))
        for i, qid in enumerate(qids):
            assert f"{z[i]:.4f}" == want[("Z" + name, qid)], (name, qid)
        summary = z.sum() if name in SUMMED else z.mean()
        assert f"{summary:.4f}" == want[("Z" + name, "all")], name


def test_zscores_edge_cases():
    got = zscores(np.array([3.0, 3.0, 2.0, 1.0]), np.array([1.0, 3.0, 3.0, np.nan]),
                  np.array([2.0, 0.0, 0.0, 1.0]))
    # (3 - 1) / 2; stddev 0 and v == mean; stddev 0 otherwise; no line in the file
    assert got.tolist() == [1.0, 0.0, MISSING_ZSCORE, MISSING_ZSCORE]


# --------------------------------------------------------------- a worked example
#
# qrels: a=2, b=0, c=1, d=3, e=-1 (in the pool, unjudged); R = 3 at level 1.
# run: a, x (not in the qrels), b, c, e — ranks 1..5.
TINY_QRELS = (["q"] * 5, ["a", "b", "c", "d", "e"], [2, 0, 1, 3, -1])
TINY_RUN = (["q"] * 5, ["a", "x", "b", "c", "e"], [5.0, 4.0, 3.0, 2.0, 1.0])
L2 = math.log2


@pytest.fixture
def tiny():
    index, rk = _setup(*TINY_QRELS, *TINY_RUN)
    R, _ = index.counts(1)
    return index, rk, R, kg.gain_tables(_counts(index))


def test_worked_set_families(tiny):
    _, rk, R, _ = tiny
    assert ks._set_map(rk, R, 1)[0] == pytest.approx(2 * 2 / (5 * 3))
    assert ks._set_relative_P(rk, R, 1)[0] == pytest.approx(2 / min(5, 3))
    assert kc._num_nonrel_judged_ret(rk, 1)[0] == 1  # b; x and e are not judged
    assert kc._num_nonrel_judged_ret(rk, 3)[0] == 3  # b, c and a are below grade 3
    assert ks._relative_P(rk, R, 1, (2, 4, 10))[:, 0] == pytest.approx([1 / 2, 2 / 3, 2 / 3])
    # multiples 0.5, 1, 2 of R = 3 stand for ranks (long)(1.5 + .9) = 2, 3 and 6 (> 5)
    assert ks.Rprec_mult_cutoffs(R, (0.5, 1.0, 2.0))[:, 0].tolist() == [2, 3, 6]
    assert ks._Rprec_mult(rk, R, 1, (0.5, 1.0, 2.0))[:, 0] == pytest.approx([1 / 2, 1 / 3, 2 / 6])
    # a = 2 relevant retrieved, b = 3 others retrieved, c = 1 relevant missed
    assert ks._utility(rk, R, 1)[0] == 2 - 3
    assert ks._utility(rk, R, 1, (2, -1, 0, 0))[0] == 2 * 2 - 3
    assert ks._utility(rk, R, 1, (0, 0, -1, 0))[0] == -1
    assert ks._utility(rk, R, 1, (0, 0, 0, 1), num_docs=100)[0] == 100 + 2 - 5 - 3
    # x (rank 2) and e (rank 5) have no judgment; a short run is padded with judged docs
    assert ks._unj(rk, (1, 2, 5, 10))[:, 0] == pytest.approx([0, 1 / 2, 2 / 5, 2 / 10])


def test_worked_geometric_mean():
    gm_map = parse_measure("gm_map")
    assert aggregate(gm_map, np.array([0.0, 0.25])) == pytest.approx(math.sqrt(1e-5 * 0.25))
    assert aggregate(gm_map, np.array([])) == 0.0


def test_worked_binG(tiny):
    _, rk, R, _ = tiny
    # a at rank 1 (no non-relevant above), c at rank 4 (x and b above)
    assert kg._binG_values(rk, R, 1)[0] == pytest.approx((1 / L2(2) + 1 / L2(4)) / 3)


IDCG = (3 / L2(2), 3 / L2(2) + 2 / L2(3), 3 / L2(2) + 2 / L2(3) + 1 / L2(4))  # @1, @2, @3
DCG_END = 2 / L2(2) + 1 / L2(5)


def test_worked_ndcg_family(tiny):
    _, rk, R, tables = tiny
    assert kg._ideal_dcg_values(tables)[0] == pytest.approx(IDCG[2])
    assert kg._dcg_values(rk, tables)[0] == pytest.approx(DCG_END)
    assert kg._ndcg_values(rk, tables)[0] == pytest.approx(DCG_END / IDCG[2])
    # ndcg_rel: at a (rank 1) and c (rank 4), and once more for d, never retrieved
    assert kg._ndcg_rel_values(rk, tables)[0] == pytest.approx(
        ((2 / L2(2)) / IDCG[0] + DCG_END / IDCG[2] + DCG_END / IDCG[2]) / 3)
    # Rndcg: the ideal gain changes after ranks 1 (3 -> 2), 2 (2 -> 1) and 3 (1 -> 0); the
    # run (5 long) is longer than L + 1 = 4, so its end counts too
    assert kg._Rndcg_values(rk, tables, R)[0] == pytest.approx(
        (2 / IDCG[0] + 2 / IDCG[1] + 2 / IDCG[2] + DCG_END / IDCG[2]) / 4)


def test_Rndcg_leaves_out_a_run_exactly_one_longer_than_the_ideal():
    """m_Rndcg.c's first loop consumes rank L + 1; its final term is added only when
    documents remain after that."""
    index, rk = _setup(*TINY_QRELS, ["q"] * 4, ["a", "x", "b", "c"], [5.0, 4.0, 3.0, 2.0])
    R, _ = index.counts(1)
    got = kg._Rndcg_values(rk, kg.gain_tables(_counts(index)), R)[0]
    assert got == pytest.approx((2 / IDCG[0] + 2 / IDCG[1] + 2 / IDCG[2]) / 3)
    assert kg._Rndcg_values(rk, kg.gain_tables(_counts(index)), R * 0)[0] == 0.0


def test_worked_G(tiny):
    _, rk, _, tables = tiny
    # ideal gains 3, 2, 1, then 0: cost = 3, 5, 6, 7, 8; the run's gains 2, 0, 0, 1, 0
    want = (2 / L2(2 + 3 - 2) + 1 / L2(2 + 7 - 3)) / (3 + 2 + 1)
    assert kg._G_values(rk, tables)[0] == pytest.approx(want)


def test_worked_rbp(tiny):
    _, rk, _, tables = tiny
    # gains grade / top grade: a = 2/3 at rank 1, c = 1/3 at rank 4
    assert rb._rbp_values(rk, tables, 0.5)[0] == pytest.approx(0.5 * (2 / 3 + (1 / 3) * 0.5**3))
    # x (rank 2) and e (rank 5) unjudged, plus everything past rank 5
    assert rb._rbp_resid_values(rk, 0.5)[0] == pytest.approx(0.5**5 + 0.5 * (0.5**1 + 0.5**4))
    assert rb._rbp_values(rk, tables)[0] == pytest.approx(0.1 * (2 / 3 + (1 / 3) * 0.9**3))


def test_rbp_gains_in_unit_interval_are_kept():
    index, rk = _setup(["q"] * 3, ["a", "b", "c"], [1, 0, 1], ["q"] * 3, ["c", "b", "a"],
                       [3.0, 2.0, 1.0])
    tables = kg.gain_tables(_counts(index))
    assert rb._rbp_values(rk, tables, 0.5)[0] == pytest.approx(0.5 * (1 + 0.25))
    assert rb._rbp_resid_values(rk, 0.5)[0] == 0.0  # all judged: trec_eval prints 0, not p^n
    # a gain parameter above 1 rescales the table: 0 -> 0, 1 -> 1/4, 4 -> 1
    tables = kg.gain_tables(_counts(index), [("1", 4.0)])
    assert rb._rbp_values(rk, tables, 0.5)[0] == pytest.approx(0.5 * (1 + 0.25))
    tables = kg.gain_tables(_counts(index), [("1", 0.5), ("0", 2.0), ("p", 0.8)])
    # gains 0.5 (grade 1) and 2 (grade 0): (g - 0.5) / 1.5 -> grade 1: 0, grade 0: 1
    assert rb._rbp_values(rk, tables, 0.5)[0] == pytest.approx(0.5 * 0.5)


def test_judged_only_drops_unjudged_and_reranks(tiny):
    index, rk, R, tables = tiny
    j = judged_only(rk)
    # a, b, c kept at ranks 1, 2, 3 (x and e had no judgment)
    assert j.rank.tolist() == [1, 2, 3] and j.rel.tolist() == [2, 0, 1]
    assert j.num_ret.tolist() == [3] and j.present.tolist() == [True]
    assert ks._unj(j, (5,))[0, 0] == 0.0
    assert kg._dcg_values(j, tables)[0] == pytest.approx(2 / L2(2) + 1 / L2(4))
    assert judged_only(j) is j


def test_judged_only_keeps_queries_with_nothing_judged():
    index, rk = _setup(["1", "1", "2"], ["a", "b", "c"], [1, 0, 1],
                       ["1", "1", "2", "2", "2"], ["x", "y", "u", "c", "v"], [2.0, 1.0, 3.0, 2.0, 1.0])
    j = judged_only(rk)
    assert j.grp.tolist() == [1] and j.rank.tolist() == [1]
    assert j.num_ret.tolist() == [0, 1] and j.present.tolist() == [True, True]


# ------------------------------------------------------------------ gain parameters

def test_gain_order_is_glibc_merge_sort_with_truncating_comparator():
    assert kg.trec_gain_order([3.0, 9.0, 4.5, 0.0]) == [3, 0, 2, 1]
    # 0.5 and 0 differ by less than 1: equal for trec_eval, so they keep their order
    assert kg.trec_gain_order([0.5, 0.0]) == [0, 1]
    assert kg.trec_gain_order([0.0, 0.5]) == [0, 1]
    # not an order at all: 2.2 ~ 1.6 ~ 1.0 but 1.0 < 2.2; the merge sort compares only
    # neighbours (1.6 with 1.0, then 2.2 with 1.6) and leaves the table descending
    assert kg.trec_gain_order([2.2, 1.6, 1.0]) == [0, 1, 2]


def test_parse_gain_pairs_keeps_integer_names_in_order():
    assert kg.parse_gain_pairs([("1", 3), ("p", 0.8), ("-1", 2), ("+2", 9), ("1.5", 1)]) == (
        (1, 3.0), (-1, 2.0), (2, 9.0))


def test_gain_parameters(tiny):
    index, rk, _, _ = tiny
    # -m ndcg.1=3,2=9,4=4.5: gains 0, 3 (grade 1), 9 (grade 2), 3 (grade 3), 4.5 (grade 4,
    # no document); ideal 9 (a), 3 (c), 3 (d)
    tables = kg.gain_tables(_counts(index), [("1", 3.0), ("2", 9.0), ("4", 4.5)])
    assert kg.row_gains(rk, tables).tolist() == [9.0, 0.0, 0.0, 3.0, 0.0]
    assert tables.ideal_gain.tolist() == [9.0, 3.0, 3.0]
    idcg = 9 / L2(2) + 3 / L2(3) + 3 / L2(4)
    assert kg._ndcg_values(rk, tables)[0] == pytest.approx((9 / L2(2) + 3 / L2(5)) / idcg)


def test_gain_below_one_ties_with_zero_and_empties_the_ideal():
    """-m ndcg.1=0.5 on binary qrels: the table (1: 0.5), (0: 0) sorts as it stands (0.5 - 0
    truncates to 0), its top gain is 0, so the ideal ranking is empty and ndcg is 0 although
    the run has gain."""
    index, rk = _setup(["q"] * 2, ["a", "b"], [1, 0], ["q"] * 2, ["a", "b"], [2.0, 1.0])
    tables = kg.gain_tables(_counts(index), [("1", 0.5)])
    assert kg._dcg_values(rk, tables)[0] == pytest.approx(0.5)
    assert kg._ideal_dcg_values(tables)[0] == 0.0
    assert kg._ndcg_values(rk, tables)[0] == 0.0
    tables = kg.gain_tables(_counts(index), [("1", 1.5)])
    assert kg._ndcg_values(rk, tables)[0] == pytest.approx(1.0)


def test_negative_gain_parameter_names_unjudged_documents(tiny):
    index, rk, _, _ = tiny
    tables = kg.gain_tables(_counts(index), [("-1", 1.0)])  # not in the qrels: gain 1
    assert kg.row_gains(rk, tables).tolist() == [2.0, 1.0, 0.0, 1.0, 0.0]


def test_queries_with_different_top_grades_get_their_own_tables():
    index, rk = _setup(["1", "1", "2", "2"], ["a", "b", "a", "b"], [1, 0, 3, 1],
                       ["1", "2", "2"], ["a", "a", "b"], [1.0, 2.0, 1.0])
    tables = kg.gain_tables(_counts(index))
    assert tables.ideal_len.tolist() == [1, 2]
    assert kg._ndcg_values(rk, tables) == pytest.approx([1.0, 1.0])
    assert rb._rbp_values(rk, tables, 0.5) == pytest.approx([0.5, 0.5 * (1 + 0.5 / 3)])


def test_empty_ranking_scores_zero():
    index, rk = _setup(*TINY_QRELS, ["other"], ["a"], [1.0])
    for name, v in _all_families(index, rk, 1).items():
        assert v.tolist() == [0.0], name


# ---------------------------------------------------------------- against pytrec_eval

PYTREC = {"G", "binG", "Rndcg", "ndcg_rel", "ndcg", "relative_P", "Rprec_mult", "utility",
          "num_nonrel_judged_ret", "set_map", "set_relative_P", "gm_bpref"}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.integers(1, 3), st.booleans())
def test_matches_pytrec_eval(data, level, judged):
    """Per-query values against trec_eval's C code, also with -J (judged documents only)."""
    qrels, run = data
    index, rk = _setup(*flat(qrels), *flat(run))
    ours = _all_families(index, judged_only(rk) if judged else rk, level)
    # bpref skips unjudged documents: -J does not change it
    ev = evaluate(*flat(qrels), *flat(run), ["bpref"], rel_level=level, compat=9)  # pytrec_eval: trec_eval 9
    bpref = dict(zip(ev.qids, ev.per_query[ev.measures[0]]))
    ref = pytrec_eval.RelevanceEvaluator(qrels, PYTREC, relevance_level=level,
                                         judged_docs_only_flag=judged).evaluate(run)
    qids = index.qids.astype(str).tolist()
    assert set(ref) == {qids[i] for i in np.flatnonzero(rk.present)}
    for q, theirs in ref.items():
        i = qids.index(q)
        for name, value in theirs.items():
            got = math.log(max(bpref[q], MIN_GEO_MEAN)) if name == "gm_bpref" else ours[name][i]
            assert math.isclose(got, value, rel_tol=1e-9, abs_tol=1e-9), (name, q, got, value)


# ------------------------------------------------------------------------ relstring

@pytest.mark.parametrize("case, length, name", [
    (QUICKTEST[0], 10, "relstring"), (QUICKTEST[1], 10, "relstring"),
    (QUICKTEST[2], 10, "relstring"), (QUICKTEST[3], 20, "relstring_20"),
])
def test_quicktest_relstring(case, length, name):
    expected, qrels, run, _, depth, _ = case
    want = _expected(expected)
    _, _, index, rk = _quicktest(qrels, run, depth)
    got = kc.relstring_text(rk, length)
    for i, qid in enumerate(index.qids.astype(str)):
        assert f"'{got[i]}'" == want[(name, qid)], qid  # 302 is missing from results.trunc: ''


def test_relstring_codes():
    index, rk = _setup(["q"] * 5, ["a", "b", "c", "d", "e"], [12, 0, 3, -1, 1],
                       ["q"] * 6, ["a", "b", "c", "d", "x", "e"], [6.0, 5.0, 4.0, 3.0, 2.0, 1.0])
    assert kc.relstring_text(rk) == [">03.-1"]
    assert kc.relstring_text(rk, 3) == [">03"]
    assert kc.relstring_text(rk, 0) == [""]


def test_utility_of_a_query_missing_from_the_run_is_that_of_an_empty_retrieval():
    """A query the run lacks (-c) retrieved nothing: p3·R + p4·(N − R). trec_eval 10
    scores a stand-in one-document ranking there instead (-3 and 102 below), and zeroes
    the default coefficients' value only; trec_eval 9 prints 0."""
    index, rk = _setup(["1", "2", "2", "2"], ["a", "b", "c", "e"], [1, 1, 1, 0], ["1"], ["a"], [1.0])
    R, _ = index.counts(1)
    assert ks._utility(rk, R, 1, (1, -1, -1, 0)).tolist() == [1.0, -1 * 2]
    assert ks._utility(rk, R, 1, (2, -1, 3, 1), 100).tolist() == [2 * 1 + 1 * (100 + 1 - 1 - 1),
                                                                   3 * 2 + 1 * (100 - 2)]
    assert ks._utility(rk, R, 1, (1, -1, 0, 0)).tolist() == [1.0, 0.0]
