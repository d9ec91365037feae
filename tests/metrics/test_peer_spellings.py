"""Every peer's spelling gives the peer's values: ir_measures (with its providers:
pytrec_eval, gdeval, its own Judged) and ranx, per query, on one graded collection.

The collection has no tied scores (peers break ties differently: ranx keeps input order)
and every query has a relevant document (gdeval divides by the ideal DCG without a check).
gdeval prints 5 decimals, so its measures are compared to 5e-6.
"""

from __future__ import annotations

import contextlib
import math
import sys

import numpy as np
import pytest

from workbench.metrics.evaluate import evaluate

ir_measures = pytest.importorskip("ir_measures")

RNG = np.random.default_rng(24)
QIDS = [str(q) for q in range(101, 109)]


def _collection():
    qrels, run = {}, {}
    for q in QIDS:
        docs = [f"d{q}-{i:02d}" for i in range(30)]
        judged = RNG.choice(docs, size=18, replace=False)
        grades = RNG.choice([0, 0, 0, 1, 1, 2, 3], size=judged.size)
        grades[0] = 2  # a relevant document in every query
        qrels[q] = {str(d): int(g) for d, g in zip(judged, grades)}
        n = int(RNG.integers(6, 26))  # some runs shorter than 10 and 20
        scores = RNG.permutation(1000)[:n] / 100.0 + 0.005  # distinct, also as float32
        run[q] = {d: float(s) for d, s in zip(RNG.choice(docs, size=n, replace=False), scores)}
    return qrels, run


QRELS, RUN = _collection()
# a negative grade (in the pool, unjudged) for the measures whose peers read them as trec_eval does
QRELS_NEG = {q: dict(g) for q, g in QRELS.items()}
for q in QIDS[:4]:
    d = next(iter(RUN[q]))
    QRELS_NEG[q][d] = -1


def _flat(qrels, run):
    qq, qd, qr = zip(*[(q, d, g) for q, docs in qrels.items() for d, g in docs.items()])
    rq, rd, rs = zip(*[(q, d, s) for q, docs in run.items() for d, s in docs.items()])
    return list(qq), list(qd), list(qr), list(rq), list(rd), list(rs)


def _ours(name, qrels, run):
    ev = evaluate(*_flat(qrels, run), [name])
    (m,) = ev.measures
    return dict(zip(ev.qids, ev.per_query[m].tolist()))


def _ir_measures(name, qrels, run):
    measure = ir_measures.parse_measure(name)
    return {r.query_id: r.value for r in ir_measures.iter_calc([measure], qrels, run)}


IR_MEASURES = [  # (spelling, tolerance, qrels)
    ("nDCG(dcg='exp-log2')@10", 5e-6, QRELS),  # gdeval
    ("ERR@10", 5e-6, QRELS),  # gdeval
    ("ERR@5", 5e-6, QRELS),
    ("nDCG(judged_only=True)@10", 1e-12, QRELS_NEG),  # pytrec_eval with -J
    ("P(judged_only=True)@5", 1e-12, QRELS_NEG),
    ("AP(judged_only=True)", 1e-12, QRELS_NEG),
    ("nDCG(gains={0:0,1:1,2:3,3:7})", 1e-12, QRELS),  # pytrec_eval on mapped qrels
    ("nDCG(gains={0:0,1:1,2:3,3:7})@10", 1e-12, QRELS),
    ("nDCG(gains={0:0,1:5,2:2,3:9})@5", 1e-12, QRELS),  # gains not in grade order
    ("Judged@10", 1e-12, QRELS_NEG),  # ir_measures' own: negative grades are judgments
    ("Judged@20", 1e-12, QRELS_NEG),  # runs shorter than 20: / min(k, retrieved)
    ("Judged", 1e-12, QRELS_NEG),
    ("NumRet", 0, QRELS),  # NumRet(rel=N): retrieved with grade >= N
    ("NumRet(rel=1)", 0, QRELS),
    ("NumRet(rel=2)", 0, QRELS),
    ("NumRelRet", 0, QRELS),
    ("SetF(beta=0.5)", 1e-12, QRELS),  # set_F.0.5: β² = 0.5
    ("SetF(beta=2.0)", 1e-12, QRELS),  # ir_measures takes floats only
    ("SetF(beta=2.0,rel=2)", 1e-12, QRELS),
    ("SetF", 1e-12, QRELS),
]


@pytest.mark.parametrize("name, tol, qrels", IR_MEASURES, ids=[c[0] for c in IR_MEASURES])
def test_ir_measures_spellings_give_ir_measures_values(name, tol, qrels):
    ref = _ir_measures(name, qrels, RUN)
    ours = _ours(name, qrels, RUN)
    assert set(ref) == set(ours)
    for q, v in ref.items():
        assert math.isclose(ours[q], v, abs_tol=tol), (name, q, ours[q], v)
    assert any(v > 0 for v in ref.values())


def test_numret_with_rel_is_ir_measures_own_case():
    """ir_measures' test_NumRet (tests/test_pytrec_eval.py): NumRet counts 5 and 4 (9 in
    all), NumRet(rel=1) the retrieved documents of grade >= 1: 3 and 1 (4 in all)."""
    qrels = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0}, "1": {"D0": 1, "D3": 2, "D5": 2}}
    run = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1},
           "1": {"D1": 0.8, "D3": 0.7, "D4": 0.3, "D2": 0.4}}
    for name, per_query, total in (("NumRet", [5, 4], 9), ("NumRet(rel=1)", [3, 1], 4),
                                   ("NumRet(rel=2)", [1, 1], 2)):
        ev = evaluate(*_flat(qrels, run), [name])
        (m,) = ev.measures
        assert ev.per_query[m].tolist() == per_query, name
        assert ev.summary[m] == total, name
        ref = ir_measures.calc_aggregate([ir_measures.parse_measure(name)], qrels, run)
        assert list(ref.values()) == [total], name


def test_rbp_with_rel_is_binary_rank_biased_precision():
    """RBP(rel=2,p=0.8) = (1 - p) Σ_i [g_i >= 2] p^(i-1): no ir_measures provider for it is
    installed here (cwl_eval, trectools), so the value is written out."""
    ours = _ours("RBP(rel=2,p=0.8)", QRELS, RUN)
    for q in QIDS:
        ranked = sorted(RUN[q], key=lambda d: -RUN[q][d])
        want = sum((1 - 0.8) * 0.8 ** i for i, d in enumerate(ranked) if QRELS[q].get(d, 0) >= 2)
        assert math.isclose(ours[q], want, rel_tol=1e-12), q
    # graded RBP keeps trec_eval's rbp.p=0.8 (grade / top grade)
    assert _ours("RBP(p=0.8)", QRELS, RUN) == _ours("rbp.p=0.8", QRELS, RUN)


def test_err_worked_example():
    """ERR@3 with grades 3, 0, 2: R = 7/16, 0, 3/16 (gdeval's 0-4 scale)."""
    ev = evaluate(["1"] * 3, ["a", "b", "c"], [3, 0, 2], ["1"] * 3, ["a", "b", "c"], [3.0, 2.0, 1.0],
                  ["ERR@3", "ERR@1"])
    r1, r3 = 7 / 16, 3 / 16
    assert math.isclose(ev.value("ERR@3"), r1 / 1 + (1 - r1) * r3 / 3, rel_tol=1e-15)
    assert ev.value("ERR@1") == r1


RANX = ["precision@5", "recall@10", "hits@10", "hit_rate@5", "mrr@10", "r-precision",
        "ndcg_burges@10", "f1@10", "precision@20"]


@contextlib.contextmanager
def _ranx_interpreted():
    """ranx, with its numba functions run as the Python they are written in.

    ranx compiles each function with numba on first use: about 45 s of CPU on a cold cache,
    the slowest test of the suite. With numba's DISABLE_JIT, `@njit` returns the function
    itself and numba's typed lists are Python lists, so ranx's own code computes its values
    in the interpreter (~0.1 s here). The flag is read when ranx's functions are decorated
    (its import) and when its typed lists are made (each call), so it is set around both and
    put back after. A ranx imported before, compiled, is used as it is.
    """
    numba = pytest.importorskip("numba")
    before = numba.config.DISABLE_JIT
    # the module from sys.modules: `ranx.metrics.precision` is also the name of a function
    module = sys.modules.get("ranx.metrics.precision")
    compiled = module is not None and isinstance(module._precision, numba.core.dispatcher.Dispatcher)
    numba.config.DISABLE_JIT = not compiled
    try:
        yield pytest.importorskip("ranx")
    finally:
        numba.config.DISABLE_JIT = before


def test_ranx_spellings_give_ranx_values():
    import warnings

    with _ranx_interpreted() as ranx, warnings.catch_warnings():  # numba's type warnings
        warnings.simplefilter("ignore")
        ref = ranx.evaluate(ranx.Qrels(QRELS), ranx.Run(RUN), RANX, return_mean=False)
    for name in RANX:
        ours = _ours(name, QRELS, RUN)
        values = np.asarray(ref[name])
        assert values.size == len(QIDS)
        for q, v in zip(sorted(RUN), values.tolist()):  # ranx: queries in sorted order
            assert math.isclose(ours[q], v, abs_tol=1e-12), (name, q, ours[q], v)


def test_rbp_without_p_is_ir_measures_default():
    """ir_measures' RBP has p = 0.8; trec_eval's rbp keeps its 0.9."""
    from workbench.metrics.measures import parse_measures

    assert parse_measures(["RBP"]) == parse_measures(["rbp.p=0.8"])
    assert parse_measures(["rbp"]) != parse_measures(["rbp.p=0.8"])
    assert [m.label for m in parse_measures(["RBP(rel=2)"])] == ["RBP(rel=2,p=0.8)"]
