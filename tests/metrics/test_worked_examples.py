"""docs/architecture.md#worked-examples worked examples (ranking ones), through the evaluation core and `quick`.

Expected values are written as the arithmetic a reader can check.
"""

from __future__ import annotations

import math

import pytest

from workbench.metrics.evaluate import evaluate
from workbench.metrics.graded import FORMULATIONS, Formulation, quick_summary, rank_table
from workbench.metrics.measures import parse_measure

GRADES = [3, 2, 3, 0, 1, 2]


def one_query(grades_in_rank_order, extra_judged=(), qid="q"):
    """qrels + run for one query whose ranking has these grades (None = unjudged)."""
    qq, qd, qr, rq, rd, rs = [], [], [], [], [], []
    n = len(grades_in_rank_order)
    for i, g in enumerate(grades_in_rank_order):
        doc = f"d{i:03d}"
        rq.append(qid)
        rd.append(doc)
        rs.append(float(n - i))
        if g is not None:
            qq.append(qid)
            qd.append(doc)
            qr.append(g)
    for j, g in enumerate(extra_judged):
        qq.append(qid)
        qd.append(f"unretrieved{j}")
        qr.append(g)
    return (qq, qd, qr), (rq, rd, rs)


def value(name, grades, extra=(), **kw):
    qrels, run = one_query(grades, extra)
    ev = evaluate(*qrels, *run, [name], **kw)
    return ev.summary[ev.measures[0]]


def test_dcg_three_formulations():
    lin = sum(g / math.log2(i + 2) for i, g in enumerate(GRADES))
    ideal = sorted(GRADES, reverse=True)
    ilin = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    assert round(lin, 3) == 6.861 and round(ilin, 3) == 7.141
    s = quick_summary(GRADES)
    assert s.cg == 11
    dcg, idcg, ndcg = s.dcg[Formulation("linear", "log2")]
    assert (round(dcg, 3), round(idcg, 3), round(ndcg, 3)) == (6.861, 7.141, 0.961)
    dcg, idcg, ndcg = s.dcg[Formulation("linear", "jk", 2.0)]
    # J-K b=2: no discount before rank 2, then log2(i): 3 + 2/1 + 3/log2(3) + 0 + 1/log2(5) + 2/log2(6)
    assert math.isclose(dcg, 3 + 2 + 3 / math.log2(3) + 1 / math.log2(5) + 2 / math.log2(6))
    assert (round(dcg, 2), round(idcg, 2), round(ndcg, 3)) == (8.10, 8.69, 0.932)
    dcg, idcg, ndcg = s.dcg[Formulation("exp", "log2")]
    assert (round(dcg, 3), round(idcg, 3), round(ndcg, 3)) == (13.848, 14.595, 0.949)


def test_dcg_family_through_the_engine():
    assert round(value("ndcg", GRADES), 3) == 0.961
    assert round(value("nDCG@6", GRADES), 3) == 0.961
    assert round(value("dcg", GRADES), 3) == 6.861
    assert round(value("ideal_dcg", GRADES), 3) == 7.141
    assert value("CG@6", GRADES) == 11
    assert round(value("nDCG(discount=jk,base=2)@6", GRADES), 3) == 0.932
    assert round(value("DCG(discount=jk)@6", GRADES), 2) == 8.10
    assert round(value("IDCG(discount=jk)@6", GRADES), 2) == 8.69
    assert round(value("nDCG(gain=exp)@6", GRADES), 3) == 0.949
    assert round(value("nDCG(dcg=exp-log2)@6", GRADES), 3) == 0.949
    assert round(value("DCG(gain=exponential)@6", GRADES), 3) == 13.848


def test_rank_table_running_sums():
    t = rank_table(GRADES, FORMULATIONS[0])
    assert list(t.ideal_grade) == [3, 3, 2, 2, 1, 0]
    assert math.isclose(t.dcg[1], 3 + 2 / math.log2(3))
    assert math.isclose(t.idcg[-1], 3 + 3 / math.log2(3) + 2 / 2 + 2 / math.log2(5) + 1 / math.log2(6))


def test_ap_and_map():
    # 4 relevant found at ranks 1, 2, 4, 7
    q1 = [1, 1, 0, 1, 0, 0, 1]
    ap1 = (1 / 1 + 2 / 2 + 3 / 4 + 4 / 7) / 4
    assert math.isclose(value("map", q1), ap1) and round(ap1, 3) == 0.830
    # 5 relevant, found at ranks 1, 3, 5 (two never retrieved)
    q2 = [1, 0, 1, 0, 1]
    ap2 = (1 / 1 + 2 / 3 + 3 / 5) / 5
    assert math.isclose(value("AP", q2, extra=(1, 1)), ap2) and round(ap2, 3) == 0.453
    (a, b), (c, d) = one_query(q1, qid="a"), one_query(q2, (1, 1), qid="b")
    ev = evaluate(a[0] + c[0], a[1] + c[1], a[2] + c[2], b[0] + d[0], b[1] + d[1], b[2] + d[2], ["map"])
    assert round(ev.summary[ev.measures[0]], 3) == 0.642
    assert math.isclose(ev.summary[ev.measures[0]], (ap1 + ap2) / 2)


def test_ap_all_found():
    assert round(value("map", [1, 0, 1, 0, 1]), 3) == 0.756
    assert round(quick_summary([1, 0, 1, 0, 1]).ap, 3) == 0.756


def test_mrr_and_precision():
    (a, b), (c, d) = one_query([1, 0, 0], qid="a"), one_query([0, 1, 1], qid="b")
    ev = evaluate(a[0] + c[0], a[1] + c[1], a[2] + c[2], b[0] + d[0], b[1] + d[1], b[2] + d[2], ["RR"])
    assert ev.summary[ev.measures[0]] == 0.75
    assert round(value("P@3", [1, 0, 1, 0]), 3) == 0.667
    assert round(value("P.3", [1, 0, 1, 0]), 3) == 0.667


def test_bpref():
    # R = 5; judged non-relevant above each relevant: 0, 1, 3, 5, 5
    ranking = [1, 0, 1, 0, 0, 1, 0, 0, 1, 1]
    expected = ((1) + (1 - 1 / 5) + (1 - 3 / 5) + (1 - 5 / 5) + (1 - 5 / 5)) / 5
    assert math.isclose(value("bpref", ranking), expected)
    assert round(expected, 2) == 0.44
    # unjudged documents are skipped by bpref
    assert math.isclose(value("bpref", [1, None, 0, None, 1, 0, 0, 1, 0, 0, 1, 1]), expected)


def test_f_beta():
    # 2 relevant of 4 retrieved, 8 relevant in all: P = 0.5, R = 0.25
    ranking = [1, 0, 1, 0]
    extra = (1,) * 6
    P, R = 0.5, 0.25
    for beta in (0.5, 1.0, 2.0):
        expected = (beta**2 + 1) * P * R / (beta**2 * P + R)
        assert math.isclose(value(f"F(beta={beta})", ranking, extra), expected)
        # trec_eval's set_F.x takes x = beta^2, and so does ir_measures' SetF(beta=x),
        # which passes x on to set_F.x (a second squaring gave 0.3125 for 0.3000)
        assert math.isclose(value(f"set_F.{beta ** 2}", ranking, extra), expected)
        assert math.isclose(value(f"SetF(beta={beta ** 2})", ranking, extra), expected)
    # SetF(beta=0.5): (0.5 + 1)·P·R / (0.5·P + R) = 0.1875 / 0.5 = 0.375 (F_0.5 is 0.4167)
    assert math.isclose(value("SetF(beta=0.5)", ranking, extra), 0.375)
    alpha = 0.2  # beta^2 = (1 - alpha) / alpha = 4
    beta = math.sqrt((1 - alpha) / alpha)
    expected = 1 / (alpha / P + (1 - alpha) / R)  # van Rijsbergen's form
    assert math.isclose(value(f"F(beta={beta})", ranking, extra), expected)
    assert math.isclose(value("F(beta=2)@2", ranking, extra), 5 * 0.5 * (1 / 8) / (4 * 0.5 + 1 / 8))


def test_gm_map_uses_floor():
    (a, b), (c, d) = one_query([1, 0], qid="a"), one_query([0, 0], (1,), qid="b")
    ev = evaluate(a[0] + c[0], a[1] + c[1], a[2] + c[2], b[0] + d[0], b[1] + d[1], b[2] + d[2], ["gm_map"])
    assert math.isclose(ev.summary[ev.measures[0]], math.exp((math.log(1.0) + math.log(1e-5)) / 2))


@pytest.mark.parametrize("compat, expected", [(10, 1.0), (9, 0.5)])
def test_iprec_rounding_compat(compat, expected):
    # R = 3, relevant at ranks 1, 5, 6; level 0.4 -> 1.2 relevant documents:
    # trec_eval 10 rounds to 1 (max precision from rank 1 = 1.0); trec_eval 9 takes
    # floor(1.2 + 0.9) = 2 (max precision from rank 5: max(2/5, 3/6) = 0.5)
    ranking = [1, 0, 0, 0, 1, 1]
    assert value("iprec_at_recall.0.4", ranking, compat=compat) == expected
    assert value("IPrec@0.4", ranking, compat=compat) == expected


def test_iprec_half_rounds_away_from_zero():
    # R = 5, level 0.5 -> 2.5 -> 3 relevant (both versions); level 0.1 -> 0.5 -> 1 (v10)
    ranking = [0, 1, 0, 1, 1, 0, 1, 1]
    assert value("iprec_at_recall.0.5", ranking) == max(3 / 5, 4 / 7, 5 / 8)
    assert value("iprec_at_recall.0.1", ranking) == max(1 / 2, 2 / 4, 3 / 5, 4 / 7, 5 / 8)


def _by_hand(grades, k, level, num_rel, judged, f):
    """quick's summary written out in plain Python: the reference the kernels must equal."""
    n = len(grades)
    pool = list(judged) if judged is not None else list(grades)
    R = sum(g >= level for g in pool) if num_rel is None else num_rel
    ideal = sorted(pool + [level] * (R - sum(g >= level for g in pool)), reverse=True)

    def gain(g):
        g = max(g, 0)
        return 2.0 ** g - 1.0 if f.gain == "exp" else float(g)

    def disc(i):  # rank i = 1, 2, ...
        return math.log2(i + 1) if f.discount == "log2" else max(1.0, math.log(i) / math.log(f.base))

    dcg = sum(gain(g) / disc(i + 1) for i, g in enumerate(grades[:k]))
    idcg = sum(gain(g) / disc(i + 1) for i, g in enumerate(ideal[:k]))
    rel = [g >= level for g in grades[:k]]
    ap = sum(sum(rel[: i + 1]) / (i + 1) for i in range(len(rel)) if rel[i]) / R if R else 0.0
    first = next((i + 1 for i, r in enumerate(rel) if r), None)
    return {
        "cg": float(sum(max(g, 0) for g in grades[:k])), "dcg": dcg, "idcg": idcg,
        "ndcg": dcg / idcg if idcg > 0 else 0.0, "p": sum(rel) / k, "ap": ap,
        "rr": 1.0 / first if first else 0.0, "R": R, "n": n,
    }


@pytest.mark.parametrize("seed", range(40))
def test_quick_goes_through_the_kernels_and_equals_the_formulas(seed):
    """quick_summary is a one-query evaluation by the kernels `eval` uses: on random lists,
    depths, levels, R and judged pools it equals the formulas written out by hand."""
    import random

    rnd = random.Random(seed)
    grades = [rnd.randint(0, 4) for _ in range(rnd.randint(1, 12))]
    k = rnd.randint(1, len(grades) + 3)
    level = rnd.randint(1, 3)
    judged = None
    if seed % 3 == 1:  # a ranked list's query: the listed grades and judged ones not listed
        judged = tuple(grades + [rnd.randint(0, 4) for _ in range(rnd.randint(0, 6))])
    known = sum(g >= level for g in (judged if judged is not None else grades))
    num_rel = known + rnd.randint(0, 3) if seed % 3 == 2 else None
    forms = list(FORMULATIONS) + [Formulation("linear", "jk", math.e)]
    s = quick_summary(grades, k=k, rel_level=level, num_rel=num_rel, judged=judged,
                      formulations=forms)
    for f in forms:
        want = _by_hand(grades, k, level, num_rel, judged, f)
        assert s.dcg[f] == pytest.approx((want["dcg"], want["idcg"], want["ndcg"]), rel=1e-12)
    assert (s.num_rel, s.k) == (want["R"], k)
    assert s.cg == want["cg"]
    assert (s.precision, s.ap, s.rr) == pytest.approx((want["p"], want["ap"], want["rr"]), rel=1e-12)
