"""Ranked-relevance families: AP (map, map_cut, gm_map), bpref (and gm_bpref), infAP,
reciprocal rank, interpolated precision at recall levels and 11pt_avg.

One signature: ``kernel(ctx, measure)`` -> float64 per qrels query. Each follows the
trec_eval source it is named after (usnistgov/trec_eval, ``m_<name>.c``), including the
order of floating-point operations, so values match trec_eval to the last bits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from workbench.metrics.kernels.context import INFAP_EPSILON, Context, safe_div
from workbench.metrics.qrels_index import _run_starts

if TYPE_CHECKING:  # measures imports the registry, which imports these kernels
    from workbench.metrics.measures import Measure


def _ap(ctx: Context, cutoff: int | None) -> np.ndarray:
    terms, grp = ctx.ap_terms(), ctx.rel_grp
    if cutoff is not None:
        keep = ctx.rel_rank <= cutoff
        terms, grp = terms[keep], grp[keep]
    return safe_div(np.bincount(grp, weights=terms, minlength=ctx.nq), ctx.R)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    f = np.floor(x)
    return np.where(x - f >= 0.5, f + 1, f)


def _recall_cuts(ctx: Context, levels) -> np.ndarray:
    """(len(levels), nq) number of relevant documents each recall level stands for."""
    p = np.asarray(levels, dtype=np.float64)[:, None]
    x = p * ctx.R[None, :].astype(np.float64)
    if ctx.compat == 9:
        return np.floor(x + 0.9).astype(np.int64)  # trec_eval 9: (long)(p*R + 0.9)
    return _round_half_away(x).astype(np.int64)  # trec_eval 10: lround(p*R)


def _interpolated(ctx: Context, levels) -> np.ndarray:
    """(len(levels), nq) interpolated precision at each recall level (m_iprec_at_recall.c)."""
    rk = ctx.rk
    nq = ctx.nq
    cuts = _recall_cuts(ctx, levels)
    out = np.zeros((len(levels), nq), dtype=np.float64)
    if rk.grp.size == 0:
        return out
    rmax = ctx._cache.get("iprec_rmax")
    starts = ctx.starts
    if rmax is None:
        prec = ctx.crel / rk.rank
        # max precision at this rank or below, within the query: a reversed running max
        # over integer codes of the precisions (exact), lifted per query segment so one
        # global accumulate never crosses from one query into the next
        values, codes = np.unique(prec, return_inverse=True)
        seg = np.zeros(rk.grp.size, dtype=np.int64)
        seg[starts[1:]] = 1
        seg = np.cumsum(seg)
        lift = (seg[-1] - seg) * values.size
        rcode = np.maximum.accumulate((codes.reshape(-1) + lift)[::-1])[::-1] - lift
        rmax = values[rcode]
        ctx._cache["iprec_rmax"] = rmax
    nrr = ctx.num_rel_ret().astype(np.int64)
    # value at the c-th relevant retrieved document, for c >= 1
    rel_rows = np.flatnonzero(ctx.isrel)
    g = rk.grp[rel_rows]
    c = ctx.crel[rel_rows]
    for i in range(len(levels)):
        want = cuts[i]
        hit = c == want[g]
        out[i, g[hit]] = rmax[rel_rows[hit]]
        zero = (want == 0) & rk.present & (rk.num_ret > 0)
        qs = np.flatnonzero(zero)
        if qs.size:
            firsts = np.zeros(nq, dtype=np.int64)
            firsts[rk.grp[starts]] = starts
            out[i, qs] = rmax[firsts[qs]]
        out[i, want > nrr] = 0.0
    return out


def _bpref(ctx: Context) -> np.ndarray:
    rk = ctx.rk
    nonrel = rk.rel >= 0
    nonrel &= ~ctx.isrel
    # judged non-relevant rows above each relevant row, within its query (a running
    # count over all rows, less the count before the query's first row)
    c = np.cumsum(nonrel, dtype=np.int64)
    g = ctx.rel_grp
    if g.size == 0:
        return np.zeros(ctx.nq)
    starts = ctx.starts
    before = np.zeros(ctx.nq, dtype=np.int64)
    before[rk.grp[starts]] = c[starts] - nonrel[starts]
    nsf = (c[ctx.rel_rows] - before[g]).astype(np.float64)
    R = ctx.R[g].astype(np.float64)
    N = ctx.N[g].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(nsf > 0, 1.0 - (np.minimum(nsf, R) / np.minimum(N, R)), 1.0)
    return safe_div(np.bincount(g, weights=term, minlength=ctx.nq), ctx.R)


def _infap(ctx: Context) -> np.ndarray:
    rk = ctx.rk
    nonrel = (rk.rel >= 0) & ~ctx.isrel
    unj = rk.rel == -2
    nonrel_so_far = ctx.seg_cumsum(nonrel.astype(np.int64))
    unj_so_far = ctx.seg_cumsum(unj.astype(np.int64))
    rows = ctx.isrel
    g = rk.grp[rows]
    fj = (rk.rank[rows] - 1).astype(np.float64)
    rsf = ctx.crel[rows].astype(np.float64)
    nsf = nonrel_so_far[rows].astype(np.float64)
    usf = unj_so_far[rows].astype(np.float64)
    e = INFAP_EPSILON
    with np.errstate(divide="ignore", invalid="ignore"):
        term = (
            1.0 / (fj + 1.0)
            + (fj / (fj + 1.0)) * ((rsf - 1 + nsf + usf) / fj) * ((rsf - 1 + e) / (rsf - 1 + nsf + 2 * e))
        )
    term = np.where(fj == 0, 1.0, term)
    return safe_div(np.bincount(g, weights=term, minlength=ctx.nq), ctx.R)


def _recip_rank(ctx: Context, cutoff: int | None) -> np.ndarray:
    out = np.zeros(ctx.nq)
    g = ctx.rel_grp
    if g.size == 0:
        return out
    first = _run_starts(g)  # each query's first relevant row
    r = ctx.rel_rank[first].astype(np.float64)
    gg = g[first]
    if cutoff is not None:
        ok = r <= cutoff
        gg, r = gg[ok], r[ok]
    out[gg] = 1.0 / r
    return out


def average_precision(ctx: Context, m: Measure) -> np.ndarray:
    """AP = (1/R) Σ_{relevant retrieved d} |relevant at or above rank(d)| / rank(d),
    over the ranks up to the cutoff k when there is one (map_cut); 0 when R = 0.

    Buckley & Voorhees (2005), "Retrieval system evaluation", in TREC: Experiment and
    Evaluation in Information Retrieval, ch. 3; GMAP: Robertson (2006), "On GMAP",
    CIKM."""
    return _ap(ctx, m.cutoff)


def bpref(ctx: Context, m: Measure) -> np.ndarray:
    """bpref = (1/R) Σ_{relevant retrieved r} (1 − min(n_r, R) / min(N, R)), n_r the judged
    non-relevant documents above r (the term is 1 when n_r = 0), N the judged
    non-relevant documents of the query; unjudged documents are skipped.

    Buckley & Voorhees (2004), "Retrieval evaluation with incomplete information",
    SIGIR."""
    return _bpref(ctx)


def infap(ctx: Context, m: Measure) -> np.ndarray:
    """infAP = (1/R) Σ_{relevant retrieved at rank k} E[precision at k], with
    E[prec@k] = 1/k + ((k−1)/k)·(|d above k| / (k−1))·((rel + ε) / (rel + nonrel + 2ε)),
    counts over the judged documents above k and ε = 1e-5 (1 at rank 1).

    Yilmaz & Aslam (2006), "Estimating average precision with incomplete and imperfect
    judgments", CIKM."""
    return _infap(ctx)


def recip_rank(ctx: Context, m: Measure) -> np.ndarray:
    """RR = 1 / rank of the first relevant document (0 if none, or none in the top k).

    Voorhees (1999), "The TREC-8 Question Answering Track Report", TREC-8."""
    return _recip_rank(ctx, m.cutoff)


def iprec_at_recall(ctx: Context, m: Measure) -> np.ndarray:
    """iprec(p) = max precision at any rank at or after the c-th relevant retrieved
    document, c = p·R rounded (trec_eval 10: half away from zero; 9: floor(p·R + 0.9));
    0 when fewer than c relevant were retrieved.

    Manning, Raghavan & Schütze (2008), Introduction to Information Retrieval, §8.4."""
    return _interpolated(ctx, [m.level])[0]


def eleven_point_average(ctx: Context, m: Measure) -> np.ndarray:
    """11pt_avg = mean of iprec(p) over the levels p (0.0, 0.1, …, 1.0 by default).

    Manning, Raghavan & Schütze (2008), Introduction to Information Retrieval, §8.4."""
    return _interpolated(ctx, m.levels).sum(axis=0) / len(m.levels)
