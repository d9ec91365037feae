"""Set and cutoff families: P, recall, success, set_P, set_recall, F and set_F, Rprec,
Rprec_mult, relative_P, set_relative_P, set_map, utility, unj and Judged.

One signature: ``kernel(ctx, measure)`` -> float64 per qrels query; the private helpers
below a kernel take the flat ``Ranking``, R and the level. Formulas follow
usnistgov/trec_eval's m_<name>.c, named in each docstring.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from workbench.metrics.kernels.context import Context, safe_div
from workbench.metrics.qrels_index import NONPOOL
from workbench.metrics.ranking import Ranking
from workbench.metrics.segments import per_query_sum

if TYPE_CHECKING:  # measures imports the registry, which imports these kernels
    from workbench.metrics.measures import Measure

RPREC_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)  # m_Rprec_mult.c
RELATIVE_P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # m_rel_P.c
UNJ_CUTOFFS = (5, 10, 20)  # m_unjudged.c
UTILITY_COEFFICIENTS = (1.0, -1.0, 0.0, 0.0)  # m_utility.c


def precision(ctx: Context, m: Measure) -> np.ndarray:
    """P@k = |relevant in the top k| / k (divisor k even when fewer were retrieved).

    van Rijsbergen (1979), Information Retrieval, 2nd ed., ch. 7; Manning et al. (2008), §8.3."""
    return ctx.num_rel_ret(m.cutoff) / m.cutoff


def recall(ctx: Context, m: Measure) -> np.ndarray:
    """R@k = |relevant in the top k| / R (0 when R = 0).

    van Rijsbergen (1979), Information Retrieval, 2nd ed., ch. 7; Manning et al. (2008), §8.3."""
    return safe_div(ctx.num_rel_ret(m.cutoff), ctx.Rf)


def success(ctx: Context, m: Measure) -> np.ndarray:
    """success@k = 1 if a relevant document is in the top k, else 0.

    Hawking & Craswell (2001), "Overview of the TREC-2001 Web Track", TREC 2001."""
    return (ctx.num_rel_ret(m.cutoff) > 0).astype(np.float64)


def set_precision(ctx: Context, m: Measure) -> np.ndarray:
    """set_P = |relevant ∩ retrieved| / |retrieved|.

    van Rijsbergen (1979), Information Retrieval, 2nd ed., ch. 7; Manning et al. (2008), §8.3."""
    return safe_div(ctx.num_rel_ret(), ctx.rk.num_ret)


def set_recall(ctx: Context, m: Measure) -> np.ndarray:
    """set_recall = |relevant ∩ retrieved| / R.

    van Rijsbergen (1979), Information Retrieval, 2nd ed., ch. 7; Manning et al. (2008), §8.3."""
    return safe_div(ctx.num_rel_ret(), ctx.Rf)


def _f(P: np.ndarray, Rc: np.ndarray, x: float, nrr: np.ndarray) -> np.ndarray:
    """F from precision, recall and x = β²."""
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (x + 1.0) * P * Rc / (x * P + Rc)
    return np.where(nrr > 0, v, 0.0)


def f_measure(ctx: Context, m: Measure) -> np.ndarray:
    """F_β = (β² + 1)·P·R / (β²·P + R) over the retrieved set (or the top k: P = rel/k),
    0 when nothing relevant was retrieved; trec_eval's set_F.x has β² = x.

    van Rijsbergen (1979), Information Retrieval, 2nd ed., ch. 7 (F = 1 − E)."""
    k = m.cutoff
    nrr = ctx.num_rel_ret(k)
    ret = ctx.rk.num_ret if k is None else np.full(ctx.nq, float(k))
    return _f(safe_div(nrr, ret), safe_div(nrr, ctx.Rf), m.beta_squared, nrr)


def r_precision(ctx: Context, m: Measure) -> np.ndarray:
    """Rprec = |relevant in the top R| / R.

    Buckley & Voorhees (2005), "Retrieval system evaluation", in TREC: Experiment and
    Evaluation in Information Retrieval, ch. 3."""
    g = ctx.rel_grp
    g = g[ctx.rel_rank <= ctx.R[g]]
    return safe_div(np.bincount(g, minlength=ctx.nq).astype(np.float64), ctx.Rf)


def judged(ctx: Context, m: Measure) -> np.ndarray:
    """Judged@k = |documents of the top k with a qrels line| / min(k, |retrieved|) (whole
    ranking: / |retrieved|; 0 when nothing is retrieved). A negative grade is a
    judgment here.

    MacAvaney, Macdonald & Ounis (2022), "Streamlining evaluation with ir-measures",
    ECIR (ir_measures' Judged, its judged_provider)."""
    rk, k = ctx.rk, m.cutoff
    isjudged = rk.rel != NONPOOL
    if k is None:
        return safe_div(ctx.per_query(1.0, isjudged), rk.num_ret)
    return safe_div(ctx.per_query(1.0, isjudged & (rk.rank <= k)), np.minimum(rk.num_ret, k))


def judged_trec(ctx: Context, m: Measure) -> np.ndarray:
    """JudgedTrec@k = |documents of the top k with a grade >= 0| / k (whole ranking:
    / |retrieved|): as trec_eval counts judgments (a negative grade is "in the pool but
    unjudged"), and a run shorter than k counts its gap as unjudged.

    Buckley & Voorhees (2004), "Retrieval evaluation with incomplete information", SIGIR
    (judged = in the pool); trec_eval m_unjudged.c counts the same documents (unj)."""
    rk, k = ctx.rk, m.cutoff
    isjudged = rk.rel >= 0
    if k is None:
        return safe_div(ctx.per_query(1.0, isjudged), rk.num_ret)
    return ctx.per_query(1.0, isjudged & (rk.rank <= k)) / k


def hits(ctx: Context, m: Measure) -> np.ndarray:
    """hits@k = |relevant documents in the top k| (whole ranking without k): P@k · k.

    Bassani (2022), "ranx: a blazing-fast Python library for ranking evaluation and
    comparison", ECIR (ranx's hits)."""
    k = m.cutoff
    return ctx.per_query(1.0, ctx.isrel if k is None else ctx.isrel & (ctx.rk.rank <= k))


def Rprec_mult(ctx: Context, m: Measure) -> np.ndarray:
    """Rprec_mult(m) = relevant in the top k / k, k = (long)(m·R + 0.9).

    Buckley & Voorhees (2005), TREC book ch. 3 (R-precision); trec_eval m_Rprec_mult.c."""
    return _Rprec_mult(ctx.rk, ctx.R, ctx.level, (m.level,))[0]


def relative_P(ctx: Context, m: Measure) -> np.ndarray:
    """relative_P@k = relevant in the top k / min(k, R) (0 when R = 0).

    Buckley & Voorhees (2005), TREC book ch. 3; trec_eval m_rel_P.c."""
    return _relative_P(ctx.rk, ctx.R, ctx.level, (m.cutoff,))[0]


def set_relative_P(ctx: Context, m: Measure) -> np.ndarray:
    """set_relative_P = relevant retrieved / min(retrieved, R).

    Buckley & Voorhees (2005), TREC book ch. 3; trec_eval m_set_rel_P.c."""
    return _set_relative_P(ctx.rk, ctx.R, ctx.level)


def set_map(ctx: Context, m: Measure) -> np.ndarray:
    """set_map = relevant retrieved² / (retrieved · R): set precision × set recall.

    Buckley & Voorhees (2005), TREC book ch. 3; trec_eval m_set_map.c."""
    return _set_map(ctx.rk, ctx.R, ctx.level)


def utility(ctx: Context, m: Measure) -> np.ndarray:
    """utility = p1·a + p2·b + p3·c + p4·d (a relevant retrieved, b non-relevant
    retrieved, c relevant missed, d = -N + a − retrieved − R); default 1, −1, 0, 0.

    Hull & Robertson (2000), "The TREC-8 filtering track final report", TREC-8."""
    coef = m.params or UTILITY_COEFFICIENTS
    return _utility(ctx.rk, ctx.R, ctx.level, coef, ctx.num_docs)


def unj(ctx: Context, m: Measure) -> np.ndarray:
    """unj@k = documents without a judgment in the top k / k (1 − ir_measures' Judged).

    MacAvaney, Macdonald & Ounis (2022), ECIR (Judged); trec_eval m_unjudged.c."""
    return _unj(ctx.rk, (m.cutoff,))[0]


def _num_ret(rk: Ranking) -> np.ndarray:
    return np.bincount(rk.grp, minlength=rk.nq).astype(np.float64)


def _num_rel_ret_rows(rk: Ranking, level: int, cutoff: int | None = None) -> np.ndarray:
    """Relevant documents (grade >= level) retrieved, in the top `cutoff` if given."""
    mask = rk.rel >= level
    if cutoff is not None:
        mask &= rk.rank <= cutoff
    return per_query_sum(rk.grp, 1.0, rk.nq, mask)


def _set_map(rk: Ranking, R: np.ndarray, level: int) -> np.ndarray:
    """Unranked set AP: num_rel_ret² / (num_ret · R), 0 when either is 0 (m_set_map.c);
    set precision times set recall."""
    nrr, ret = _num_rel_ret_rows(rk, level), _num_ret(rk)
    Rf = np.asarray(R, dtype=np.float64)
    out = np.zeros(rk.nq)
    np.divide(nrr * nrr, ret * Rf, out=out, where=(ret > 0) & (Rf > 0))
    return out


def _set_relative_P(rk: Ranking, R: np.ndarray, level: int) -> np.ndarray:
    """num_rel_ret / min(num_ret, R): set precision relative to the best possible for a
    set that size, 0 when either is 0 (m_set_rel_P.c)."""
    nrr, ret = _num_rel_ret_rows(rk, level), _num_ret(rk)
    Rf = np.asarray(R, dtype=np.float64)
    out = np.zeros(rk.nq)
    np.divide(nrr, np.minimum(ret, Rf), out=out, where=(ret > 0) & (Rf > 0))
    return out


def _relative_P(rk: Ranking, R: np.ndarray, level: int, cutoffs=RELATIVE_P_CUTOFFS) -> np.ndarray:
    """(len(cutoffs), nq): relevant in the top k / min(k, R) — precision up to R, recall
    after; 0 when R is 0 (m_rel_P.c). Cutoffs are positive."""
    Rf = np.asarray(R, dtype=np.float64)
    out = np.zeros((len(cutoffs), rk.nq))
    for i, k in enumerate(cutoffs):
        np.divide(_num_rel_ret_rows(rk, level, int(k)), np.minimum(float(k), Rf), out=out[i],
                  where=Rf > 0)
    return out


def Rprec_mult_cutoffs(R: np.ndarray, multiples=RPREC_MULTIPLES) -> np.ndarray:
    """(len(multiples), nq) int64: the rank each multiple m of R stands for,
    (long)(m · R + 0.9) as trec_eval computes it (m_Rprec_mult.c)."""
    m = np.asarray(multiples, dtype=np.float64)[:, None]
    return np.trunc(m * np.asarray(R, dtype=np.float64)[None, :] + 0.9).astype(np.int64)


def _Rprec_mult(rk: Ranking, R: np.ndarray, level: int, multiples=RPREC_MULTIPLES) -> np.ndarray:
    """(len(multiples), nq): precision at rank k = (long)(m · R + 0.9) for each multiple
    m — relevant in the top k / k, with k past the end of the run counting as
    non-relevant; 0 when k is 0 (m_Rprec_mult.c). m = 1 is R-precision (for R > 0)."""
    cuts = Rprec_mult_cutoffs(R, multiples)
    out = np.zeros(cuts.shape)
    if rk.grp.size == 0:
        return out
    rows = np.flatnonzero(rk.rel >= level)
    g, r = rk.grp[rows], rk.rank[rows]
    for i in range(cuts.shape[0]):
        k = cuts[i]
        hits = per_query_sum(g, 1.0, rk.nq, r <= k[g])
        np.divide(hits, k.astype(np.float64), out=out[i], where=k > 0)
    return out


def _utility(rk: Ranking, R: np.ndarray, level: int, coefficients=UTILITY_COEFFICIENTS,
            num_docs: int = 0) -> np.ndarray:
    """p1·a + p2·b + p3·c + p4·d over the contingency table (m_utility.c):
    a = relevant retrieved, b = retrieved non-relevant (unjudged included),
    c = relevant not retrieved, d = num_docs + a - num_ret - R (the collection size is
    trec_eval's ``-N``, 0 by default). Averaged over queries. A query the run lacks
    (averaged in with ``-c``) scores what an empty retrieval scores, p3·R + p4·(N − R):
    trec_eval 10 scores its stand-in one-document ranking there (and 0 for the default
    coefficients only), a defect, not a definition."""
    p1, p2, p3, p4 = (float(x) for x in coefficients)
    a, ret = _num_rel_ret_rows(rk, level), _num_ret(rk)
    Rf = np.asarray(R, dtype=np.float64)
    return p1 * a + p2 * (ret - a) + p3 * (Rf - a) + p4 * (float(num_docs) + a - ret - Rf)


def _unj(rk: Ranking, cutoffs=UNJ_CUTOFFS) -> np.ndarray:
    """(len(cutoffs), nq): documents in the top k without a judgment (absent from the
    qrels, or a negative grade) / k; a run shorter than k is padded with judged
    documents (m_unjudged.c)."""
    out = np.zeros((len(cutoffs), rk.nq))
    unjudged = rk.rel < 0
    for i, k in enumerate(cutoffs):
        out[i] = per_query_sum(rk.grp, 1.0, rk.nq, unjudged & (rk.rank <= int(k))) / float(k)
    return out
