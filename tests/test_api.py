"""The public Python API (workbench.api, docs/python-api.md): `workbench.evaluate` gives
`workbench eval`'s numbers under `eval`'s names from files, dicts, DataFrames and records;
ranx's and ir_measures' APIs give the same values where they equal trec_eval; compare,
agreement and the rank correlations give the metrics package's (and scipy's, sklearn's,
krippendorff's) values."""

from __future__ import annotations

import io
import json
import math
from collections import namedtuple
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest

import workbench
from workbench.cli import main
from workbench.formats.trec import read_qrels, read_run

ROOT = Path(__file__).resolve().parent.parent
QUICKTEST = ROOT / "tests" / "data" / "trec_eval_quicktest"
EXAMPLES = ROOT / "examples"
MEASURES = ["official", "recall", "infAP", "11pt_avg", "ndcg", "ndcg_cut", "map_cut",
            "success", "set_P", "set_recall", "set_F", "P.5,10", "nDCG@10", "AP",
            "relstring.5", "num_rel_ret"]
CASES = {  # qrels, run, eval options, API options
    "quicktest": (QUICKTEST / "qrels.test", QUICKTEST / "results.test", [], {}),
    "quicktest -c": (QUICKTEST / "qrels.test", QUICKTEST / "results.trunc", ["-c"],
                     {"complete": True}),
    "quicktest -J -l 2": (QUICKTEST / "qrels.rel_level", QUICKTEST / "results.test",
                          ["-J", "-l", "2"], {"judged_docs_only": True, "relevance_level": 2}),
    "quicktest -M 20 --compat 9": (QUICKTEST / "qrels.test", QUICKTEST / "results.test",
                                   ["-M", "20", "--compat", "9"],
                                   {"max_depth": 20, "compat": 9}),
    "sample bm25": (EXAMPLES / "bob.qrels", EXAMPLES / "runs" / "bm25.run", [], {}),
    "sample qld": (EXAMPLES / "last-year.qrels", EXAMPLES / "runs" / "qld.run", [], {}),
}


def _eval_json(qrels, run, opts) -> dict:
    args = ["eval", str(qrels), str(run), "-q", "--format", "json", *opts]
    for m in MEASURES:
        args += ["-m", m]
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(args) == 0
    (result,) = json.loads(out.getvalue())["runs"]
    return result


def _same(a: dict, b: dict) -> None:
    """Equal dicts, keys in the same order, NaN (JSON null) equal to NaN."""
    assert list(a) == list(b)
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, float) and math.isnan(x):
            assert y is None or math.isnan(y), k
        else:
            assert x == y and type(x) is type(y), (k, x, y)


def _as_dicts(qrels_path, run_path):
    q, r = read_qrels(qrels_path), read_run(run_path)
    qrels: dict = {}
    for a, d, g in zip(q.qid.tolist(), q.docno.tolist(), q.rel.tolist()):
        qrels.setdefault(_text(a), {})[_text(d)] = int(g)
    run: dict = {}
    for a, d, s in zip(r.qid.tolist(), r.docno.tolist(), r.score.tolist()):
        run.setdefault(_text(a), {})[_text(d)] = float(s)
    return qrels, run


def _text(v) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


@pytest.mark.parametrize("case", sorted(CASES))
def test_evaluate_gives_what_eval_prints(case):
    qrels, run, opts, kw = CASES[case]
    want = _eval_json(qrels, run, opts)
    got = workbench.evaluate(qrels, run, MEASURES, per_query=True, **kw)
    _same(dict(got.all), want["summary"])
    assert list(got) == list(want["per_query"])
    for q in got:
        _same(got[q], want["per_query"][q])
    assert dict(workbench.evaluate(str(qrels), str(run), MEASURES, **kw)) == dict(got.all)


@pytest.mark.parametrize("case", ["quicktest", "quicktest -J -l 2", "sample bm25"])
def test_dicts_frames_and_records_give_the_files_values(case):
    pd = pytest.importorskip("pandas")
    qrels_path, run_path, _, kw = CASES[case]
    measures = [m for m in MEASURES if m != "official"] + ["map", "gm_map", "num_q"]
    want = workbench.evaluate(qrels_path, run_path, measures, per_query=True, **kw)
    want_all = {k: v for k, v in want.all.items() if k != "runid"}
    qrels, run = _as_dicts(qrels_path, run_path)
    frames = (
        pd.DataFrame([(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
                     columns=["query_id", "doc_id", "relevance"]),
        pd.DataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()],
                     columns=["query_id", "doc_id", "score"]),
    )
    Qrel = namedtuple("Qrel", "query_id doc_id relevance iteration")
    ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
    records = ([Qrel(*row, "0") for row in frames[0].itertuples(index=False)],
               (ScoredDoc(*row) for row in frames[1].itertuples(index=False)))
    for q, r in [(qrels, run), frames, records]:
        got = workbench.evaluate(q, r, measures, per_query=True, **kw)
        assert {k: v for k, v in got.all.items() if k != "runid"} == want_all
        assert dict(got) == dict(want)


def test_names_are_evals_and_frames_have_them():
    pd = pytest.importorskip("pandas")
    q, r = QUICKTEST / "qrels.test", QUICKTEST / "results.test"
    got = workbench.evaluate(q, r, "P.5,10 nDCG@10 map")
    assert list(got) == ["P_5", "P_10", "nDCG@10", "map"]
    assert got["map"] == pytest.approx(0.1785, abs=5e-5)  # out.test: map all 0.1785
    frame = got.to_frame()
    assert list(frame.columns) == list(got) and frame.loc["all", "P_10"] == got["P_10"]
    per = workbench.evaluate(q, r, ["P@10"], per_query=True).to_frame()
    assert per.index.name == "query_id" and list(per.index) == ["301", "302", "303"]
    assert per["P@10"].tolist() == [0.2, 0.7, 0.0]  # out.test.aq: P_10 per query
    assert dict(workbench.evaluate(q, r)) == dict(workbench.evaluate(q, r, ["official"]))
    assert "num_q" in workbench.evaluate(q, r)  # trec_eval's official set


def test_ir_measures_objects_and_unicode_ids():
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {"q1": {"é1": 1, "d2": 0, "d3": 2}, "q2": {"d1": 1}}
    run = {"q1": {"é1": 0.5, "d2": 0.9, "d3": 0.1}, "q2": {"d1": 1.0, "d9": 2.0}}
    got = workbench.evaluate(qrels, run, [ir_measures.AP, ir_measures.nDCG @ 10])
    ref = ir_measures.calc_aggregate([ir_measures.AP, ir_measures.nDCG @ 10], qrels, run)
    assert list(got) == ["AP", "nDCG@10"]
    assert got["AP"] == pytest.approx(ref[ir_measures.AP], abs=1e-12)
    assert got["nDCG@10"] == pytest.approx(ref[ir_measures.nDCG @ 10], abs=1e-12)


def test_bad_inputs_say_what_is_wrong():
    from workbench.metrics.measures import MeasureError

    with pytest.raises(MeasureError):
        workbench.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["no_such_measure"])
    with pytest.raises(ValueError, match="no column 'relevance'"):
        pd = pytest.importorskip("pandas")
        workbench.evaluate(pd.DataFrame({"query_id": ["q"], "doc_id": ["d"]}),
                           {"q": {"d": 1.0}}, ["map"])
    with pytest.raises(TypeError, match="record 0"):
        workbench.evaluate([("q", "d", 1)], {"q": {"d": 1.0}}, ["map"])
    with pytest.raises(ValueError, match="integers"):
        workbench.evaluate({"q": {"d": 0.5}}, {"q": {"d": 1.0}}, ["map"])


# ---------------------------------------------------------------- peers


def _peer_collection(seed=7, n_q=20, n_d=60):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_q):
        docs = [f"d{q}-{i}" for i in range(n_d)]
        judged = rng.choice(docs, size=n_d // 2, replace=False)
        grades = rng.choice([0, 0, 1, 2], size=judged.size)
        grades[0] = 1
        qrels[f"q{q}"] = {str(d): int(g) for d, g in zip(judged, grades)}
        scores = rng.permutation(10_000)[:n_d] / 1000.0  # distinct: peers break ties differently
        run[f"q{q}"] = {d: float(s) for d, s in zip(docs, scores)}
    return qrels, run


PEER_QRELS, PEER_RUN = _peer_collection()


def test_evaluate_equals_ir_measures_calc_aggregate():
    ir_measures = pytest.importorskip("ir_measures")
    names = ["AP", "nDCG@10", "nDCG", "P@5", "R@20", "RR", "Rprec", "Bpref", "P(rel=2)@10",
             "Judged@10"]
    measures = [ir_measures.parse_measure(n) for n in names]
    ref = ir_measures.calc_aggregate(measures, PEER_QRELS, PEER_RUN)
    got = workbench.evaluate(PEER_QRELS, PEER_RUN, measures)
    assert list(got) == [str(m) for m in measures]
    for m in measures:
        tol = 5e-6 if str(m).startswith("ERR") else 1e-12  # gdeval prints 5 decimals
        assert got[str(m)] == pytest.approx(ref[m], abs=tol), str(m)


def test_evaluate_equals_ranx_evaluate():
    import warnings

    from tests.metrics.test_peer_spellings import _ranx_interpreted

    names = ["map", "ndcg@10", "precision@5", "recall@20", "mrr", "r-precision",
             "hit_rate@5"]
    with _ranx_interpreted() as ranx, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ranx.evaluate(ranx.Qrels(PEER_QRELS), ranx.Run(PEER_RUN), names)
    ours = ["map", "ndcg_cut.10", "P.5", "recall.20", "recip_rank", "Rprec", "success.5"]
    got = workbench.evaluate(PEER_QRELS, PEER_RUN, ours)
    for ranx_name, (name, value) in zip(names, got.items()):
        assert value == pytest.approx(ref[ranx_name], abs=1e-12), (ranx_name, name)


# ---------------------------------------------------------------- compare, agreement, correlation


def test_compare_ranks_runs_and_tests_pairs_as_compare_files():
    from workbench.campaign.comparison.systems import compare_files

    paths = [EXAMPLES / "runs" / f"{n}.run" for n in ("bm25", "qld", "tfidf")]
    want = compare_files([str(EXAMPLES / "bob.qrels")], [str(p) for p in paths], "map")
    runs = {read_run(p).tag: p for p in paths}
    got = workbench.compare(runs, EXAMPLES / "bob.qrels", "map")
    assert got.rankings["qrels"] == want.rankings[str(EXAMPLES / "bob.qrels")]
    assert [(t.a, t.b, t.mean_diff, t.p_value, t.p_holm) for t in got.tests] == [
        (t.a, t.b, t.mean_diff, t.p_value, t.p_holm) for t in want.tests]
    scipy_stats = pytest.importorskip("scipy.stats")
    a = workbench.evaluate(EXAMPLES / "bob.qrels", runs[got.tests[0].a], "map", per_query=True)
    b = workbench.evaluate(EXAMPLES / "bob.qrels", runs[got.tests[0].b], "map", per_query=True)
    ref = scipy_stats.ttest_rel([a[q]["map"] for q in a], [b[q]["map"] for q in a])
    assert got.tests[0].p_value == pytest.approx(ref.pvalue, rel=1e-9)
    with pytest.raises(ValueError, match="one measure"):
        workbench.compare(runs, EXAMPLES / "bob.qrels", "P.5,10")


def test_compare_from_dicts_joins_them_and_gives_the_files_report(tmp_path):
    """Dict runs against dict qrels are joined by dict operations, all of them together
    (the joined qrels stand codes in for the ids); a run with a non-str id sends them all
    to the arrays path. Either way: the report of the same files."""
    from workbench.formats.python_objects import joined

    rng = np.random.default_rng(8)
    qrels = {f"q{q}": {f"d{q}-{i}": int(g) for i, g in enumerate(rng.integers(-1, 3, 60))}
             for q in range(15)}
    runs = {}
    for name in ("a", "b", "c"):
        runs[name] = {q: {f"d{q[1:]}-{i}": float(s)
                          for i, s in enumerate(rng.permutation(400)[:80] / 4)}
                      for q in qrels}
    paths = []
    for name, run in runs.items():
        paths.append(tmp_path / f"{name}.run")
        paths[-1].write_text("".join(f"{q} Q0 {d} 1 {s!r} {name}\n" for q, docs in run.items()
                                     for d, s in docs.items()))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                                            for d, g in docs.items()))
    assert all(joined(r, qrels) is not None for r in runs.values())
    want = workbench.compare(dict(zip(runs, paths)), tmp_path / "qrels", "ndcg_cut.10")
    # an unjudged document ranked last (below the cutoff) under an int id: the same report
    with_int = {**runs, "c": {**runs["c"], "q3": {7: -1.0, **runs["c"]["q3"]}}}
    assert joined(with_int["c"], qrels) is None
    for given in (runs, with_int):
        got = workbench.compare(given, qrels, "ndcg_cut.10")
        assert got.rankings == want.rankings and got.means == want.means
        assert [(t.a, t.b, t.mean_diff, t.p_value) for t in got.tests] == [
            (t.a, t.b, t.mean_diff, t.p_value) for t in want.tests]


def test_agreement_equals_sklearn_and_krippendorff():
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(3)
    a = rng.integers(0, 3, 80)
    b = np.where(rng.random(80) < 0.7, a, rng.integers(0, 3, 80))
    got = workbench.agreement(a.tolist(), b.tolist(), resamples=200)
    assert got["n"] == 80
    assert got["cohen_kappa"] == pytest.approx(sklearn_metrics.cohen_kappa_score(a, b), abs=1e-12)
    assert got["weighted_kappa"] == pytest.approx(
        sklearn_metrics.cohen_kappa_score(a, b, weights="linear"), abs=1e-12)
    for level in ("nominal", "ordinal", "interval"):
        ref = krippendorff.alpha(np.vstack([a, b]).astype(float), level_of_measurement=level)
        assert got["krippendorff_alpha"][level] == pytest.approx(ref, abs=1e-12)
        lo, hi = got["krippendorff_alpha_ci"][level]
        assert lo < got["krippendorff_alpha"][level] < hi
    lo, hi = got["cohen_kappa_ci"]
    assert lo < got["cohen_kappa"] < hi
    # mappings: compared on the items both labelled
    by_item = workbench.agreement({"x": 1, "y": 0, "z": 2, "w": 1}, {"y": 0, "z": 2, "x": 0})
    assert by_item["n"] == 3 and by_item["observed"] == pytest.approx(2 / 3)


def test_rank_correlations_equal_scipy_and_worked_examples():
    scipy_stats = pytest.importorskip("scipy.stats")
    x, y = [0.3, 0.1, 0.5, 0.5, 0.2], [0.2, 0.1, 0.6, 0.4, 0.4]
    assert workbench.kendall_tau(x, y) == pytest.approx(scipy_stats.kendalltau(x, y)[0], abs=1e-12)
    sx = dict(zip("abcde", x))
    sy = dict(zip("edcba", reversed(y)))  # same systems, another order
    assert workbench.kendall_tau(sx, sy) == workbench.kendall_tau(x, y)
    # tau_ap: reference 1 > 2 > 3, the other swaps the top two: (1/2)(0/1 + 2/2) * 2 - 1 = 0
    assert workbench.tau_ap([3, 2, 1], [2, 3, 1]) == pytest.approx(0.0, abs=1e-15)
    # the bottom two swapped: (2/2)(1/1 + 1/2) - 1 = 0.5
    assert workbench.tau_ap([3, 2, 1], [3, 1, 2]) == pytest.approx(0.5, abs=1e-15)
    assert workbench.rbo(["a", "b", "c"], ["a", "b", "c"]) == pytest.approx(1.0)
    assert workbench.rbo(["a", "b"], ["c", "d"]) == 0.0


@pytest.mark.parametrize("sizes", [(40, 40, 40), (35, 50, 64), (3, 80, 2)])  # 2-D, padded, global
def test_runs_sorted_per_query_keep_trec_eval_ties(sizes, tmp_path):
    """Dicts, frames and records out of rank order are sorted within each query (one 2-D
    sort, padded for unequal sizes, or one sort of all rows where the sizes differ too
    much); ties still go by docno descending, as the file gives."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(11)
    qrels, run, lines = {}, {}, []
    for q, n in enumerate(sizes):
        docs = [f"d{rng.integers(10**6)}-{i}" for i in range(n)]
        scores = rng.integers(0, 6, n) / 2.0  # many ties
        run[f"q{q}"] = dict(zip(docs, scores.tolist()))
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs[::2], rng.integers(0, 3, n))}
        lines += [f"q{q} Q0 {d} 1 {s} t\n" for d, s in run[f"q{q}"].items()]
    (tmp_path / "run").write_text("".join(lines))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                                            for d, g in docs.items()))
    measures = ["map", "P.5,10", "nDCG@10", "recip_rank", "relstring.10"]
    want = workbench.evaluate(tmp_path / "qrels", tmp_path / "run", measures, per_query=True)
    ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    for r in (run, frame, [ScoredDoc(*row) for row in rows]):
        assert dict(workbench.evaluate(qrels, r, measures, per_query=True)) == dict(want)
    assert len({v["relstring.10"] for v in want.values()}) > 1


@pytest.mark.parametrize("kw", [{}, {"compat": 9}, {"judged_docs_only": True},
                                {"max_depth": 7, "complete": True}, {"relevance_level": 2}])
def test_two_dicts_joined_by_lookup_give_the_files_values(kw, tmp_path):
    """Two dicts take the joined path (a grade per row by dict lookup, document ids only
    where scores tie): negative grades, queries on one side only, scores tied as floats
    (compat 9) but not as doubles, and non-str ids (the arrays path) give the file's values."""
    from workbench.formats.python_objects import joined as _joined

    rng = np.random.default_rng(5)
    qrels, run, lines = {}, {}, []
    for q in range(12):
        n = int(rng.integers(40, 70))
        docs = [f"d{q}-{i}" for i in range(n)]
        scores = rng.permutation(n * 3)[:n] / 3.0
        if q % 3 == 0:  # equal as float32, not as float64
            scores[1] = scores[0] + 1e-9
        run[f"q{q}"] = dict(zip(docs, scores.tolist()))
        lines += [f"q{q} Q0 {d} 1 {s!r} t\n" for d, s in run[f"q{q}"].items()]
    for q in range(2, 14):  # q0, q1 only in the run; q12, q13 only in the qrels
        docs = [f"d{q}-{i}" for i in range(80)]
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs, rng.integers(-1, 3, 80))}
    (tmp_path / "run").write_text("".join(lines))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                                            for d, g in docs.items()))
    measures = ["map", "P.5,10", "ndcg_cut.10", "bpref", "infAP", "num_rel_ret", "relstring.5",
                "recip_rank", "Rprec"]
    want = workbench.evaluate(tmp_path / "qrels", tmp_path / "run", measures, per_query=True, **kw)
    assert _joined(run, qrels) is not None
    got = workbench.evaluate(qrels, run, measures, per_query=True, **kw)
    assert dict(got) == dict(want) and dict(got.all) == dict(want.all)
    no_ties = {q: {d: float(i) for i, d in enumerate(docs)} for q, docs in run.items()}
    assert _joined(no_ties, qrels).docno is None  # no tie: no document ids built
    with_int_ids = {q: {(int(d.split("-")[1]) if q == "q5" else d): s for d, s in docs.items()}
                    for q, docs in run.items()}
    assert _joined(with_int_ids, qrels) is None  # the arrays path matches 5 with "5"


@pytest.mark.parametrize("equal_sizes", [True, False])
@pytest.mark.parametrize("kw", [{}, {"judged_docs_only": True}, {"max_depth": 7, "complete": True}])
def test_two_dicts_without_ties_give_the_files_values(equal_sizes, kw, tmp_path):
    """No score tied within a query: the joined path ranks the rows by score with no
    document id built. Negative
    grades, judged documents the run did not retrieve, queries on one side only, one query
    with no judged document, equal and unequal query sizes: the file's values."""
    from workbench.formats.python_objects import joined as _joined

    rng = np.random.default_rng(23)
    qrels, run, lines = {}, {}, []
    for q in range(10):
        n = 60 if equal_sizes else int(rng.integers(35, 90))
        docs = [f"d{q}-{i}" for i in range(n)]
        scores = rng.permutation(n * 5)[:n] / 5.0 - 20.0  # negative scores too
        run[f"q{q}"] = dict(zip(docs, scores.tolist()))
        lines += [f"q{q} Q0 {d} 1 {s!r} t\n" for d, s in run[f"q{q}"].items()]
    for q in range(1, 12):  # q0 only in the run, q10 and q11 only in the qrels
        pool = [f"d{q}-{i}" for i in rng.choice(120, size=50, replace=False).tolist()]
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(pool, rng.integers(-1, 4, 50))}
    qrels["q4"] = {"elsewhere": 2}  # judged, but nothing the run retrieved
    (tmp_path / "run").write_text("".join(lines))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                                            for d, g in docs.items()))
    joined = _joined(run, qrels)
    assert joined is not None and joined.docno is None  # ranked by score, no ids built
    assert (joined.grades >= 3).sum() > 10  # the top grade is found in many rows
    measures = ["map", "P.5,10", "ndcg_cut.10", "ndcg", "bpref", "num_rel_ret", "relstring.10",
                "recip_rank", "Rprec", "infAP"]
    want = workbench.evaluate(tmp_path / "qrels", tmp_path / "run", measures, per_query=True, **kw)
    got = workbench.evaluate(qrels, run, measures, per_query=True, **kw)
    assert dict(got) == dict(want) and dict(got.all) == dict(want.all)


def test_a_grade_equal_to_its_score_and_empty_queries_give_the_files_values(tmp_path):
    """The joined path reads a grade where it differs from the score it replaces; a judged
    document scored exactly its grade (score 2.0, grade 2) is found by key, and an
    unjudged one scored 1.0 stays unjudged. Empty queries first and last, and unequal
    sizes: the file's values."""
    from workbench.formats.python_objects import joined

    rng = np.random.default_rng(31)
    qrels, run, lines = {}, {"q00": {}}, []
    for q in range(1, 9):
        n = int(rng.integers(40, 80))
        docs = [f"d{q}-{i}" for i in range(n)]
        scores = rng.permutation(n) - 3.0  # distinct integers, -3 .. n-4: many equal a grade
        run[f"q{q}"] = dict(zip(docs, scores.tolist()))
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs[::2], rng.integers(-1, 4, n))}
        for k, (d, s) in enumerate(d_s for d_s in run[f"q{q}"].items() if -1 <= d_s[1] <= 3):
            if k % 2:  # scored a grade, judged that grade
                qrels[f"q{q}"][d] = int(s)
            else:  # scored a grade, not judged
                qrels[f"q{q}"].pop(d, None)
        lines += [f"q{q} Q0 {d} 1 {s!r} t\n" for d, s in run[f"q{q}"].items()]
    run["q99"] = {}
    equal = sum(qrels[q].get(d) == s for q in qrels for d, s in run[q].items())
    assert equal >= 16  # the case is there
    (tmp_path / "run").write_text("".join(lines))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                                            for d, g in docs.items()))
    j = joined(run, qrels)
    assert j is not None and j.docno is None
    measures = ["map", "P.5,10", "ndcg", "bpref", "num_rel_ret", "relstring.20", "Rprec"]
    want = workbench.evaluate(tmp_path / "qrels", tmp_path / "run", measures, per_query=True)
    got = workbench.evaluate(qrels, run, measures, per_query=True)
    assert dict(got) == dict(want) and dict(got.all) == dict(want.all)


def test_ties_input_keeps_the_order_given(tmp_path):
    """ties="input" ranks a dict's or a DataFrame's rows as given (the file's order), not by
    score: the speed-only sort by score applies to trec_eval's tie policy alone."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    docs = [f"d{i}" for i in range(100)]
    run = {"q1": dict(zip(docs, rng.random(100).tolist()))}
    qrels = {"q1": {d: int(g) for d, g in zip(docs[:60], rng.integers(0, 2, 60))}}
    (tmp_path / "run").write_text("".join(f"q1 Q0 {d} {i + 1} {s!r} t\n"
                                          for i, (d, s) in enumerate(run["q1"].items())))
    (tmp_path / "qrels").write_text("".join(f"q1 0 {d} {g}\n" for d, g in qrels["q1"].items()))
    measures = ["map", "P.5", "relstring.10"]
    want = workbench.evaluate(tmp_path / "qrels", tmp_path / "run", measures, ties="input")
    assert want != workbench.evaluate(tmp_path / "qrels", tmp_path / "run", measures)
    frame = pd.DataFrame([("q1", d, s) for d, s in run["q1"].items()],
                         columns=["query_id", "doc_id", "score"])
    for r in (run, frame):
        assert dict(workbench.evaluate(qrels, r, measures, ties="input")) == dict(want)


@pytest.mark.parametrize("bad", [None, "x", object(), math.nan, math.inf])
def test_a_value_that_is_no_finite_number_is_named(bad):
    """None (numpy would read it as NaN), text, objects, NaN and infinity as a score or a
    grade: a ValueError naming the query and document (the record for records), as a
    TREC file's line gets, from dicts big enough for the joined path and from small ones."""
    run = {f"q{i}": {f"d{j}": float(j) for j in range(40)} for i in range(3)}
    qrels = {f"q{i}": {f"d{j}": 1 for j in range(5)} for i in range(3)}
    for r in (run, {"q1": dict(list(run["q1"].items())[:3])}):
        with pytest.raises(ValueError, match=r"run: query 'q1', document 'd1': the score .* is not a finite number"):
            workbench.evaluate(qrels, {**r, "q1": {**r["q1"], "d1": bad}}, ["map"])
    with pytest.raises(ValueError, match=r"qrels: query 'q2', document 'd3': the grade .* is not a finite number"):
        workbench.evaluate({**qrels, "q2": {"d3": bad}}, run, ["map"])
    ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
    records = [ScoredDoc("q0", "d0", 1.0), ScoredDoc("q0", "d1", bad)]
    with pytest.raises(ValueError, match=r"run: record 1 \(query 'q0', document 'd1'\): the score"):
        workbench.evaluate(qrels, records, ["map"])
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(records, columns=["query_id", "doc_id", "score"])
    with pytest.raises(ValueError, match=r"run: row 1 \(query 'q0', document 'd1'\): the score"):
        workbench.evaluate(qrels, frame, ["map"])


def test_frames_with_int_or_categorical_query_ids_give_the_files_values(tmp_path):
    """A DataFrame's query ids are encoded once per distinct id (pandas' factorize): int
    ids read as their text, as in a file, and a categorical column as its values."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    rows = [(q, f"d{q}-{i}", float(s)) for q in (3, 11, 7) for i, s in
            enumerate(rng.permutation(50) / 5)]
    judged = [(q, d, int(g)) for (q, d, _), g in zip(rows[::2], rng.integers(0, 3, len(rows)))]
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} 1 {s!r} t\n" for q, d, s in rows))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in judged))
    want = workbench.evaluate(tmp_path / "qrels", tmp_path / "run", ["map", "P.5"], per_query=True)
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame(judged, columns=["query_id", "doc_id", "relevance"])
    assert list(want) == ["11", "3", "7"]
    assert dict(workbench.evaluate(qrels, run, ["map", "P.5"], per_query=True)) == dict(want)
    run["query_id"] = run["query_id"].astype("category")
    assert dict(workbench.evaluate(qrels, run, ["map", "P.5"], per_query=True)) == dict(want)
