"""Array kernels: per-query values of each measure family over a flat ``Ranking``.

Every kernel returns one float64 per qrels query (length ``nq``) and follows the
trec_eval source it is named after (usnistgov/trec_eval, ``m_<name>.c``), including the
order of floating-point operations, so values match trec_eval to the last bits. Each
query's rows are contiguous and in rank order; "within query" cumulative counts come
from one global ``cumsum`` minus the count at the start of each query, and per-query
sums from one ``bincount`` (which adds in row order, as trec_eval's loops do).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from workbench.metrics import kernels_families as kf
from workbench.metrics.judged_only import judged_only
from workbench.metrics.qrels_index import NONPOOL, QrelsIndex, _ranks, _run_starts
from workbench.metrics.ranking import Ranking

if TYPE_CHECKING:  # measures imports the registry, which imports these kernels
    from workbench.metrics.measures import Measure

__all__ = ["compute", "MIN_GEO_MEAN", "INFAP_EPSILON"]

MIN_GEO_MEAN = 1e-5  # trec_eval.h
INFAP_EPSILON = 1e-5  # trec_eval.h


class _Ctx:
    """Per (ranking, level) intermediate arrays, computed once and shared by kernels."""

    def __init__(self, index: QrelsIndex, rk: Ranking, level: int, compat: int,
                 num_docs: int = 0) -> None:
        self.index, self.rk, self.level, self.compat = index, rk, level, compat
        self.num_docs = num_docs  # trec_eval's -N (utility)
        self.nq = rk.nq
        self.R, self.N = index.counts(level)
        self.Rf = self.R.astype(np.float64)
        self.isrel = rk.rel >= level
        self._cache: dict = {}

    def seg_cumsum(self, x: np.ndarray) -> np.ndarray:
        """Inclusive cumulative sum of x within each query."""
        c = np.cumsum(x, dtype=np.int64)
        if c.size == 0:
            return c
        grp = self.rk.grp
        starts = self.starts
        base = np.zeros(self.nq, dtype=np.int64)
        base[grp[starts]] = c[starts] - x[starts]
        return c - base[grp]

    @property
    def starts(self) -> np.ndarray:
        if "starts" not in self._cache:
            grp = self.rk.grp
            if grp.size == 0:
                self._cache["starts"] = np.empty(0, dtype=np.int64)
            else:
                self._cache["starts"] = _run_starts(grp)
        return self._cache["starts"]

    @property
    def crel(self) -> np.ndarray:
        """Relevant documents at or above each row, within its query."""
        if "crel" not in self._cache:
            self._cache["crel"] = self.seg_cumsum(self.isrel)
        return self._cache["crel"]

    def per_query(self, weights, mask=None) -> np.ndarray:
        grp = self.rk.grp
        if mask is not None:
            grp = grp[mask]
            if not np.isscalar(weights):
                weights = weights[mask]
        if np.isscalar(weights):
            return np.bincount(grp, minlength=self.nq).astype(np.float64) * weights
        return np.bincount(grp, weights=weights, minlength=self.nq)

    # The relevant retrieved rows, compressed: most measures sum only over them (a
    # bincount that skips rows adding exactly 0.0 gives the same sums, bit for bit).
    def _rel(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if "rel_rows" not in self._cache:
            rows = np.flatnonzero(self.isrel)
            grp = self.rk.grp[rows]
            self._cache["rel_rows"] = (rows, grp, self.rk.rank[rows])
        return self._cache["rel_rows"]

    @property
    def rel_rows(self) -> np.ndarray:
        return self._rel()[0]

    @property
    def rel_grp(self) -> np.ndarray:
        """Query of each relevant retrieved row (in rank order within each query)."""
        return self._rel()[1]

    @property
    def rel_rank(self) -> np.ndarray:
        """Rank of each relevant retrieved row."""
        return self._rel()[2]

    @property
    def rel_crel(self) -> np.ndarray:
        """Relevant documents at or above each relevant retrieved row (1, 2, ...)."""
        if "rel_crel" not in self._cache:
            self._cache["rel_crel"] = _ranks(self.rel_grp, self.nq)
        return self._cache["rel_crel"]

    def num_rel_ret(self, cutoff: int | None = None) -> np.ndarray:
        key = ("nrr", cutoff)
        if key not in self._cache:
            g = self.rel_grp if cutoff is None else self.rel_grp[self.rel_rank <= cutoff]
            self._cache[key] = np.bincount(g, minlength=self.nq).astype(np.float64)
        return self._cache[key]

    def ap_terms(self) -> np.ndarray:
        """crel / rank at each relevant retrieved row."""
        if "ap_terms" not in self._cache:
            self._cache["ap_terms"] = self.rel_crel / self.rel_rank
        return self._cache["ap_terms"]


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _ap(ctx: _Ctx, cutoff: int | None) -> np.ndarray:
    terms, grp = ctx.ap_terms(), ctx.rel_grp
    if cutoff is not None:
        keep = ctx.rel_rank <= cutoff
        terms, grp = terms[keep], grp[keep]
    return _safe_div(np.bincount(grp, weights=terms, minlength=ctx.nq), ctx.R)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    f = np.floor(x)
    return np.where(x - f >= 0.5, f + 1, f)


def _recall_cuts(ctx: _Ctx, levels) -> np.ndarray:
    """(len(levels), nq) number of relevant documents each recall level stands for."""
    p = np.asarray(levels, dtype=np.float64)[:, None]
    x = p * ctx.R[None, :].astype(np.float64)
    if ctx.compat == 9:
        return np.floor(x + 0.9).astype(np.int64)  # trec_eval 9: (long)(p*R + 0.9)
    return _round_half_away(x).astype(np.int64)  # trec_eval 10: lround(p*R)


def _interpolated(ctx: _Ctx, levels) -> np.ndarray:
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


def _gains(rel: np.ndarray, gain: str) -> np.ndarray:
    g = np.where(rel > 0, rel, 0).astype(np.float64)
    return np.exp2(g) - 1.0 if gain == "exp" else g


_DISC_TABLE: dict[tuple[str, float], np.ndarray] = {}


def _discount(rank: np.ndarray, discount: str, base: float) -> np.ndarray:
    """The divisor at each rank: log2(rank + 1), or max(1, log_base(rank)) (J-K).

    Looked up in a table of ranks (one log per distinct rank, not per row)."""
    top = int(rank.max()) if rank.size else 0
    key = (discount, base)
    table = _DISC_TABLE.get(key)
    if table is None or table.size <= top:
        r = np.arange(max(top + 1, 1024), dtype=np.float64)
        if discount == "log2":
            table = np.log2(r + 1.0)
        else:
            with np.errstate(divide="ignore"):
                table = np.maximum(1.0, np.log(r) / math.log(base))
        _DISC_TABLE[key] = table
    return table[rank]


def _dcg(ctx: _Ctx, cutoff, gain="linear", discount="log2", base=2.0, cumulative=False) -> np.ndarray:
    # only rows with a positive grade have a gain; the others would add exactly 0.0
    key = ("gain", gain)
    if key not in ctx._cache:
        rk = ctx.rk
        if ctx.level == 1:  # the relevant rows are the positive ones
            rows, grp, rank = ctx._rel()
        else:
            rows = np.flatnonzero(rk.rel > 0)
            grp, rank = rk.grp[rows], rk.rank[rows]
        ctx._cache[key] = (_gains(rk.rel[rows], gain), grp, rank)
    g, grp, rank = ctx._cache[key]
    if cutoff is not None:
        mask = rank <= cutoff
        g, rank, grp = g[mask], rank[mask], grp[mask]
    w = g if cumulative else g / _discount(rank, discount, base)
    return np.bincount(grp, weights=w, minlength=ctx.nq)


def _idcg(ctx: _Ctx, cutoff, gain="linear", discount="log2", base=2.0, cumulative=False) -> np.ndarray:
    """Ideal DCG per query from all its judged documents (depends on the qrels only,
    so it is computed once per qrels and reused for every run)."""
    key = ("idcg", cutoff, gain, discount, base, cumulative)
    cache = ctx.index.cache
    if key in cache:
        return cache[key]
    out = np.zeros(ctx.nq)
    step = 1 << 12  # queries at a time: the flat ideal rankings stay small
    for lo in range(0, ctx.nq, step):
        hi = min(lo + step, ctx.nq)
        grp, grade = ctx.index.ideal(cutoff, lo, hi)
        if grp.size == 0:
            continue
        grp = grp - lo
        rank = _ranks(grp, hi - lo)
        g = _gains(grade, gain)
        w = g if cumulative else g / _discount(rank, discount, base)
        out[lo:hi] = np.bincount(grp, weights=w, minlength=hi - lo)
    cache[key] = out
    return out


def _bpref(ctx: _Ctx) -> np.ndarray:
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
    return _safe_div(np.bincount(g, weights=term, minlength=ctx.nq), ctx.R)


def _infap(ctx: _Ctx) -> np.ndarray:
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
    return _safe_div(np.bincount(g, weights=term, minlength=ctx.nq), ctx.R)


def _recip_rank(ctx: _Ctx, cutoff: int | None) -> np.ndarray:
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


def _f(P: np.ndarray, Rc: np.ndarray, x: float, nrr: np.ndarray) -> np.ndarray:
    """F from precision, recall and x = β²."""
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (x + 1.0) * P * Rc / (x * P + Rc)
    return np.where(nrr > 0, v, 0.0)


# ----------------------------------------------------------------------------- kernels
# One function per measure family, kernel(ctx, measure) -> float64 per query; the
# registry (workbench.metrics.registry) names each one's family, source file and
# aggregation. Docstrings: the formula, then where it comes from.


def runid(ctx: _Ctx, m: Measure) -> np.ndarray:
    """runid = the run's tag: not a number (the printers print the tag); 0 per query.

    trec_eval's first output line: Buckley & Voorhees (2005), TREC book ch. 3."""
    return np.zeros(ctx.nq)


def num_q(ctx: _Ctx, m: Measure) -> np.ndarray:
    """num_q = 1 per evaluated query; the 'all' value counts the queries.

    trec_eval's report: Buckley & Voorhees (2005), TREC book ch. 3."""
    return np.ones(ctx.nq)


def num_ret(ctx: _Ctx, m: Measure) -> np.ndarray:
    """num_ret = |retrieved|: the documents the run ranks for the query (after -M).

    trec_eval's report: Buckley & Voorhees (2005), TREC book ch. 3."""
    return ctx.rk.num_ret.astype(np.float64)


def num_rel(ctx: _Ctx, m: Measure) -> np.ndarray:
    """num_rel = R = |{judged d : rel(d) >= l}|, retrieved or not.

    trec_eval's report: Buckley & Voorhees (2005), TREC book ch. 3."""
    return ctx.Rf


def num_rel_ret(ctx: _Ctx, m: Measure) -> np.ndarray:
    """num_rel_ret = |relevant ∩ retrieved|.

    trec_eval's report: Buckley & Voorhees (2005), TREC book ch. 3."""
    return ctx.num_rel_ret()


def average_precision(ctx: _Ctx, m: Measure) -> np.ndarray:
    """AP = (1/R) Σ_{relevant retrieved d} |relevant at or above rank(d)| / rank(d),
    over the ranks up to the cutoff k when there is one (map_cut); 0 when R = 0.

    Buckley & Voorhees (2005), "Retrieval system evaluation", in TREC: Experiment and
    Evaluation in Information Retrieval, ch. 3; GMAP: Robertson (2006), "On GMAP",
    CIKM."""
    return _ap(ctx, m.cutoff)


def r_precision(ctx: _Ctx, m: Measure) -> np.ndarray:
    """Rprec = |relevant in the top R| / R.

    Buckley & Voorhees (2005), "Retrieval system evaluation", in TREC: Experiment and
    Evaluation in Information Retrieval, ch. 3."""
    g = ctx.rel_grp
    g = g[ctx.rel_rank <= ctx.R[g]]
    return _safe_div(np.bincount(g, minlength=ctx.nq).astype(np.float64), ctx.Rf)


def bpref(ctx: _Ctx, m: Measure) -> np.ndarray:
    """bpref = (1/R) Σ_{relevant retrieved r} (1 − min(n_r, R) / min(N, R)), n_r the judged
    non-relevant documents above r (the term is 1 when n_r = 0), N the judged
    non-relevant documents of the query; unjudged documents are skipped.

    Buckley & Voorhees (2004), "Retrieval evaluation with incomplete information",
    SIGIR."""
    return _bpref(ctx)


def recip_rank(ctx: _Ctx, m: Measure) -> np.ndarray:
    """RR = 1 / rank of the first relevant document (0 if none, or none in the top k).

    Voorhees (1999), "The TREC-8 Question Answering Track Report", TREC-8."""
    return _recip_rank(ctx, m.cutoff)


def iprec_at_recall(ctx: _Ctx, m: Measure) -> np.ndarray:
    """iprec(p) = max precision at any rank at or after the c-th relevant retrieved
    document, c = p·R rounded (trec_eval 10: half away from zero; 9: floor(p·R + 0.9));
    0 when fewer than c relevant were retrieved.

    Manning, Raghavan & Schütze (2008), Introduction to Information Retrieval, §8.4."""
    return _interpolated(ctx, [m.level])[0]


def eleven_point_average(ctx: _Ctx, m: Measure) -> np.ndarray:
    """11pt_avg = mean of iprec(p) over the levels p (0.0, 0.1, …, 1.0 by default).

    Manning, Raghavan & Schütze (2008), Introduction to Information Retrieval, §8.4."""
    return _interpolated(ctx, m.levels).sum(axis=0) / len(m.levels)


def precision(ctx: _Ctx, m: Measure) -> np.ndarray:
    """P@k = |relevant in the top k| / k (divisor k even when fewer were retrieved).

    van Rijsbergen (1979), Information Retrieval, 2nd ed., ch. 7; Manning et al. (2008), §8.3."""
    return ctx.num_rel_ret(m.cutoff) / m.cutoff


def recall(ctx: _Ctx, m: Measure) -> np.ndarray:
    """R@k = |relevant in the top k| / R (0 when R = 0).

    van Rijsbergen (1979), Information Retrieval, 2nd ed., ch. 7; Manning et al. (2008), §8.3."""
    return _safe_div(ctx.num_rel_ret(m.cutoff), ctx.Rf)


def success(ctx: _Ctx, m: Measure) -> np.ndarray:
    """success@k = 1 if a relevant document is in the top k, else 0.

    Hawking & Craswell (2001), "Overview of the TREC-2001 Web Track", TREC 2001."""
    return (ctx.num_rel_ret(m.cutoff) > 0).astype(np.float64)


def set_precision(ctx: _Ctx, m: Measure) -> np.ndarray:
    """set_P = |relevant ∩ retrieved| / |retrieved|.

    van Rijsbergen (1979), Information Retrieval, 2nd ed., ch. 7; Manning et al. (2008), §8.3."""
    return _safe_div(ctx.num_rel_ret(), ctx.rk.num_ret)


def set_recall(ctx: _Ctx, m: Measure) -> np.ndarray:
    """set_recall = |relevant ∩ retrieved| / R.

    van Rijsbergen (1979), Information Retrieval, 2nd ed., ch. 7; Manning et al. (2008), §8.3."""
    return _safe_div(ctx.num_rel_ret(), ctx.Rf)


def f_measure(ctx: _Ctx, m: Measure) -> np.ndarray:
    """F_β = (β² + 1)·P·R / (β²·P + R) over the retrieved set (or the top k: P = rel/k),
    0 when nothing relevant was retrieved; trec_eval's set_F.x has β² = x.

    van Rijsbergen (1979), Information Retrieval, 2nd ed., ch. 7 (F = 1 − E)."""
    k = m.cutoff
    nrr = ctx.num_rel_ret(k)
    ret = ctx.rk.num_ret if k is None else np.full(ctx.nq, float(k))
    return _f(_safe_div(nrr, ret), _safe_div(nrr, ctx.Rf), m.beta_squared, nrr)


def infap(ctx: _Ctx, m: Measure) -> np.ndarray:
    """infAP = (1/R) Σ_{relevant retrieved at rank k} E[precision at k], with
    E[prec@k] = 1/k + ((k−1)/k)·(|d above k| / (k−1))·((rel + ε) / (rel + nonrel + 2ε)),
    counts over the judged documents above k and ε = 1e-5 (1 at rank 1).

    Yilmaz & Aslam (2006), "Estimating average precision with incomplete and imperfect
    judgments", CIKM."""
    return _infap(ctx)


def judged(ctx: _Ctx, m: Measure) -> np.ndarray:
    """Judged@k = |documents of the top k with a qrels line| / min(k, |retrieved|) (whole
    ranking: / |retrieved|; 0 when nothing is retrieved). A negative grade is a
    judgment here.

    MacAvaney, Macdonald & Ounis (2022), "Streamlining evaluation with ir-measures",
    ECIR (ir_measures' Judged, its judged_provider)."""
    rk, k = ctx.rk, m.cutoff
    isjudged = rk.rel != NONPOOL
    if k is None:
        return _safe_div(ctx.per_query(1.0, isjudged), rk.num_ret)
    return _safe_div(ctx.per_query(1.0, isjudged & (rk.rank <= k)), np.minimum(rk.num_ret, k))


def judged_trec(ctx: _Ctx, m: Measure) -> np.ndarray:
    """JudgedTrec@k = |documents of the top k with a grade >= 0| / k (whole ranking:
    / |retrieved|): as trec_eval counts judgments (a negative grade is "in the pool but
    unjudged"), and a run shorter than k counts its gap as unjudged.

    Buckley & Voorhees (2004), "Retrieval evaluation with incomplete information", SIGIR
    (judged = in the pool); trec_eval m_unjudged.c counts the same documents (unj)."""
    rk, k = ctx.rk, m.cutoff
    isjudged = rk.rel >= 0
    if k is None:
        return _safe_div(ctx.per_query(1.0, isjudged), rk.num_ret)
    return ctx.per_query(1.0, isjudged & (rk.rank <= k)) / k


def hits(ctx: _Ctx, m: Measure) -> np.ndarray:
    """hits@k = |relevant documents in the top k| (whole ranking without k): P@k · k.

    Bassani (2022), "ranx: a blazing-fast Python library for ranking evaluation and
    comparison", ECIR (ranx's hits)."""
    k = m.cutoff
    return ctx.per_query(1.0, ctx.isrel if k is None else ctx.isrel & (ctx.rk.rank <= k))


def expected_reciprocal_rank(ctx: _Ctx, m: Measure) -> np.ndarray:
    """ERR@k = Σ_{i<=k} R_i / i · Π_{j<i} (1 − R_j), R_i = (2^g_i − 1) / 16 (metrics.err).

    Chapelle, Metzler, Zhang & Grinspan (2009), "Expected reciprocal rank for graded
    relevance", CIKM; as gdeval.pl computes it."""
    from workbench.metrics.err import err

    return err(ctx.rk, m.cutoff)


def _trec_dcg(ctx: _Ctx, k: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(DCG, ideal DCG) as trec_eval's ndcg family computes them (shared by four)."""
    key = ("trec_dcg", k)
    if key not in ctx._cache:
        ctx._cache[key] = (_dcg(ctx, k), _idcg(ctx, k))
    return ctx._cache[key]


def trec_dcg(ctx: _Ctx, m: Measure) -> np.ndarray:
    """DCG = Σ_i g_i / log2(i + 1), g_i the grade (negative → 0).

    Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4); log2(i+1) discount: Burges et al. (2005), ICML."""
    if m.params:  # dcg.1=3,2=9: trec_eval's gain tables
        return kf.gain_dcg(ctx, m)
    return _trec_dcg(ctx, m.cutoff)[0]


def trec_ideal_dcg(ctx: _Ctx, m: Measure) -> np.ndarray:
    """IDCG = DCG of all judged documents of the query sorted by grade descending.

    Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4)."""
    if m.params:
        return kf.gain_ideal_dcg(ctx, m)
    return _trec_dcg(ctx, m.cutoff)[1]


def trec_ndcg(ctx: _Ctx, m: Measure) -> np.ndarray:
    """nDCG(@k) = DCG(@k) / IDCG(@k), the ideal cut at the same k (DCG when IDCG = 0).

    Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4)."""
    if m.params:  # ndcg.1=3,2=9 (gains sorted as trec_eval's qsort leaves them)
        return kf.gain_ndcg(ctx, m)
    dcg, idcg = _trec_dcg(ctx, m.cutoff)
    return np.where(idcg > 0, _safe_div(dcg, idcg), dcg)


def _formulation(m: Measure) -> tuple:
    return (m.cutoff, m.gain, m.discount, m.base)


def cumulative_gain(ctx: _Ctx, m: Measure) -> np.ndarray:
    """CG@k = Σ_{i<=k} gain(g_i); gain linear g or exponential 2^g − 1.

    Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4)."""
    return _dcg(ctx, *_formulation(m), cumulative=True)


def discounted_cumulative_gain(ctx: _Ctx, m: Measure) -> np.ndarray:
    """DCG@k = Σ_{i<=k} gain(g_i) / disc(i); disc log2(i + 1), or Järvelin–Kekäläinen
    max(1, log_b(i)).

    Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4); exponential gain: Burges et al. (2005), ICML."""
    return _dcg(ctx, *_formulation(m))


def ideal_discounted_cumulative_gain(ctx: _Ctx, m: Measure) -> np.ndarray:
    """IDCG@k = DCG@k of the query's judged documents in the ideal (grade) order.

    Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4)."""
    return _idcg(ctx, *_formulation(m))


def normalized_dcg(ctx: _Ctx, m: Measure) -> np.ndarray:
    """nDCG@k = DCG@k / IDCG@k under the chosen gain and discount (0 when IDCG = 0).

    Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4)."""
    if m.params:  # nDCG(gains={0:0,1:1,2:3,3:7})
        return _mapped_ndcg(ctx, m)
    args = _formulation(m)
    return _safe_div(_dcg(ctx, *args), _idcg(ctx, *args))


def _map_gains(grade: np.ndarray, pairs) -> np.ndarray:
    """Each grade's gain: the gain named for it (``gains={0:0,1:1,2:3,3:7}``), else the
    grade itself; unjudged documents (negative codes) gain 0."""
    gain = np.where(grade > 0, grade, 0).astype(np.float64)
    for key, value in pairs:
        gain[grade == int(float(key))] = float(value)
    return gain


def _mapped_ndcg(ctx: _Ctx, m: Measure) -> np.ndarray:
    """nDCG(@k) with grades mapped to gains before anything else, as ir_measures maps the
    qrels (``nDCG(gains=…)``): DCG = Σ gain_i / log2(i + 1) over the (top k) ranking,
    the ideal = the query's positive gains sorted descending (cut at k), 0 when it is 0."""
    rk, k = ctx.rk, m.cutoff
    keep = rk.rel >= 0 if k is None else (rk.rel >= 0) & (rk.rank <= k)
    g = _map_gains(rk.rel[keep], m.params)
    dcg = np.bincount(rk.grp[keep], weights=g / _discount(rk.rank[keep], "log2", 2.0), minlength=ctx.nq)
    index = ctx.index
    judged = index.rel >= 0
    ig, iq = _map_gains(index.rel[judged], m.params), index.qcode[judged]
    pos = ig > 0
    ig, iq = ig[pos], iq[pos]
    order = np.lexsort((-ig, iq))
    ig, iq = ig[order], iq[order]
    irank = _ranks(iq, ctx.nq)
    if k is not None:
        cut = irank <= k
        ig, iq, irank = ig[cut], iq[cut], irank[cut]
    idcg = np.bincount(iq, weights=ig / _discount(irank, "log2", 2.0), minlength=ctx.nq)
    return _safe_div(dcg, idcg)


def compute(measure: Measure, index: QrelsIndex, rk: Ranking, level: int, compat: int,
            _ctx_cache: dict | None = None, num_docs: int = 0) -> np.ndarray:
    """Per-query values (length nq) of one measure on one ranking: its family's kernel
    (num_docs: trec_eval's -N, the collection size utility uses)."""
    lvl = level if measure.rel is None else measure.rel
    cache = _ctx_cache if _ctx_cache is not None else {}
    key = (lvl, measure.judged_only)
    if key not in cache:
        # judged_only=True (ir_measures): trec_eval's -J for this measure only
        cache[key] = _Ctx(index, judged_only(rk) if measure.judged_only else rk, lvl, compat, num_docs)
    return measure.spec.kernel(cache[key], measure)
