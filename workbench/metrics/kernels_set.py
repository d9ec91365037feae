"""trec_eval's set and cutoff families not in ``kernels``: set_map, set_relative_P,
relative_P, Rprec_mult, utility, unj, num_nonrel_judged_ret; and the geometric mean
gm_bpref averages with.

Each kernel takes the flat ``Ranking`` (``metrics.ranking``), the per-query number of
relevant documents R (``QrelsIndex.counts(level)[0]``), the relevance level and the
family's parameters, and returns float64 per qrels query (cutoff families: one row per
cutoff). The formulas follow usnistgov/trec_eval's m_<name>.c, named in each docstring.
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.ranking import Ranking
from workbench.metrics.segments import per_query_sum

__all__ = [
    "MIN_GEO_MEAN", "RPREC_MULTIPLES", "RELATIVE_P_CUTOFFS", "UNJ_CUTOFFS",
    "UTILITY_COEFFICIENTS", "num_rel_ret", "num_nonrel_judged_ret", "set_map",
    "set_relative_P", "relative_P", "Rprec_mult", "Rprec_mult_cutoffs", "utility", "unj",
    "geometric_mean",
]

MIN_GEO_MEAN = 1e-5  # trec_eval.h
RPREC_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)  # m_Rprec_mult.c
RELATIVE_P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # m_rel_P.c
UNJ_CUTOFFS = (5, 10, 20)  # m_unjudged.c
UTILITY_COEFFICIENTS = (1.0, -1.0, 0.0, 0.0)  # m_utility.c


def _num_ret(rk: Ranking) -> np.ndarray:
    return np.bincount(rk.grp, minlength=rk.nq).astype(np.float64)


def num_rel_ret(rk: Ranking, level: int, cutoff: int | None = None) -> np.ndarray:
    """Relevant documents (grade >= level) retrieved, in the top `cutoff` if given."""
    mask = rk.rel >= level
    if cutoff is not None:
        mask &= rk.rank <= cutoff
    return per_query_sum(rk.grp, 1.0, rk.nq, mask)


def num_nonrel_judged_ret(rk: Ranking, level: int) -> np.ndarray:
    """Judged non-relevant documents retrieved: 0 <= grade < level
    (m_num_nonrel_judged_ret.c; summed, not averaged, over queries)."""
    return per_query_sum(rk.grp, 1.0, rk.nq, (rk.rel >= 0) & (rk.rel < level))


def set_map(rk: Ranking, R: np.ndarray, level: int) -> np.ndarray:
    """Unranked set AP: num_rel_ret² / (num_ret · R), 0 when either is 0 (m_set_map.c);
    set precision times set recall."""
    nrr, ret = num_rel_ret(rk, level), _num_ret(rk)
    Rf = np.asarray(R, dtype=np.float64)
    out = np.zeros(rk.nq)
    np.divide(nrr * nrr, ret * Rf, out=out, where=(ret > 0) & (Rf > 0))
    return out


def set_relative_P(rk: Ranking, R: np.ndarray, level: int) -> np.ndarray:
    """num_rel_ret / min(num_ret, R): set precision relative to the best possible for a
    set that size, 0 when either is 0 (m_set_rel_P.c)."""
    nrr, ret = num_rel_ret(rk, level), _num_ret(rk)
    Rf = np.asarray(R, dtype=np.float64)
    out = np.zeros(rk.nq)
    np.divide(nrr, np.minimum(ret, Rf), out=out, where=(ret > 0) & (Rf > 0))
    return out


def relative_P(rk: Ranking, R: np.ndarray, level: int, cutoffs=RELATIVE_P_CUTOFFS) -> np.ndarray:
    """(len(cutoffs), nq): relevant in the top k / min(k, R) — precision up to R, recall
    after; 0 when R is 0 (m_rel_P.c). Cutoffs are positive."""
    Rf = np.asarray(R, dtype=np.float64)
    out = np.zeros((len(cutoffs), rk.nq))
    for i, k in enumerate(cutoffs):
        np.divide(num_rel_ret(rk, level, int(k)), np.minimum(float(k), Rf), out=out[i],
                  where=Rf > 0)
    return out


def Rprec_mult_cutoffs(R: np.ndarray, multiples=RPREC_MULTIPLES) -> np.ndarray:
    """(len(multiples), nq) int64: the rank each multiple m of R stands for,
    (long)(m · R + 0.9) as trec_eval computes it (m_Rprec_mult.c)."""
    m = np.asarray(multiples, dtype=np.float64)[:, None]
    return np.trunc(m * np.asarray(R, dtype=np.float64)[None, :] + 0.9).astype(np.int64)


def Rprec_mult(rk: Ranking, R: np.ndarray, level: int, multiples=RPREC_MULTIPLES) -> np.ndarray:
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


def utility(rk: Ranking, R: np.ndarray, level: int, coefficients=UTILITY_COEFFICIENTS,
            num_docs: int = 0) -> np.ndarray:
    """p1·a + p2·b + p3·c + p4·d over the contingency table (m_utility.c):
    a = relevant retrieved, b = retrieved non-relevant (unjudged included),
    c = relevant not retrieved, d = num_docs + a - num_ret - R (the collection size is
    trec_eval's ``-N``, 0 by default). Averaged over queries. A query the run lacks
    (averaged in with ``-c``) scores what an empty retrieval scores, p3·R + p4·(N − R):
    trec_eval 10 scores its stand-in one-document ranking there (and 0 for the default
    coefficients only), a defect, not a definition."""
    p1, p2, p3, p4 = (float(x) for x in coefficients)
    a, ret = num_rel_ret(rk, level), _num_ret(rk)
    Rf = np.asarray(R, dtype=np.float64)
    return p1 * a + p2 * (ret - a) + p3 * (Rf - a) + p4 * (float(num_docs) + a - ret - Rf)


def unj(rk: Ranking, cutoffs=UNJ_CUTOFFS) -> np.ndarray:
    """(len(cutoffs), nq): documents in the top k without a judgment (absent from the
    qrels, or a negative grade) / k; a run shorter than k is padded with judged
    documents (m_unjudged.c)."""
    out = np.zeros((len(cutoffs), rk.nq))
    unjudged = rk.rel < 0
    for i, k in enumerate(cutoffs):
        out[i] = per_query_sum(rk.grp, 1.0, rk.nq, unjudged & (rk.rank <= int(k))) / float(k)
    return out


def geometric_mean(values: np.ndarray) -> float:
    """trec_eval's geometric mean over queries (gm_map, gm_bpref; meas_avg.c):
    exp(mean(log(max(v, 1e-5)))); 0 for no queries."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return 0.0
    return float(np.exp(np.log(np.maximum(v, MIN_GEO_MEAN)).sum() / v.size))
