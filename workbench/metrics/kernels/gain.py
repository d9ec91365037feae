"""The gain family: DCG, IDCG, nDCG (trec_eval's ndcg, ndcg_cut, dcg, ideal_dcg, with or
without gain parameters), CG and the DCG formulations (gain, discount, base), ndcg_rel,
Rndcg, G and binG.

The DCG formula lives here once: ``gains`` (linear g or exponential 2^g − 1, negative
grades count 0) and ``rank_discounts`` (log2(i + 1) at every rank, or Järvelin–Kekäläinen
max(1, log_b(i))). trec_eval's kernels, the formulation kernels and the quick calculator
(metrics/graded.py) all use them.

trec_eval's gain parameters (``-m ndcg.1=3,2=9``; gain_init.c) build, per query, a table of
(relevance level, gain, number of judged documents at that level): one entry per
``level=gain`` parameter (in command-line order; names that are not integers, such as
rbp's ``p``, are skipped), then one entry per level 0 .. the query's highest judged grade
that no parameter named, with gain = level. It sorts the table by gain with ``qsort`` and a
comparator that returns the difference of the two gains converted to ``int`` (truncated
toward zero): gains less than 1 apart compare equal, and their order is whatever the sort
leaves. glibc's qsort is a top-down merge sort for tables this small (stable; ties keep the
table's order); ``gain_tables`` runs the same merge sort with the same comparator, so
``-m ndcg.1=0.5`` puts level 1 (gain 0.5) *below* level 0 (gain 0, named later) and the
ideal ranking stops at once, as in trec_eval. The ideal ranking walks the sorted table from
the top: each entry contributes its count of documents, entries with no documents are
skipped, and the walk stops at the first entry with documents whose gain is <= 0. A
retrieved document's gain is the gain of the first entry for its grade (0 for documents
outside the qrels or unjudged, unless a parameter names -1 or -2).

One signature: ``kernel(ctx, measure)`` -> float64 per qrels query. Source:
usnistgov/trec_eval, the m_<name>.c named in each docstring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from workbench.metrics.kernels.context import Context, safe_div
from workbench.metrics.qrels_index import _ranks
from workbench.metrics.ranking import Ranking
from workbench.metrics.segments import cumsum_within, first_rows, per_query_sum

if TYPE_CHECKING:  # measures imports the registry, which imports these kernels
    from workbench.metrics.measures import Measure


# ---- the DCG formula


def gains(rel: np.ndarray, gain: str) -> np.ndarray:
    """The gain of each grade: linear g, or exponential 2^g − 1 (`gain="exp"`); a
    negative grade (in the pool but unjudged) gains 0."""
    g = np.where(rel > 0, rel, 0).astype(np.float64)
    return np.exp2(g) - 1.0 if gain == "exp" else g


_DISC_TABLE: dict[tuple[str, float], np.ndarray] = {}


def rank_discounts(rank: np.ndarray, discount: str, base: float) -> np.ndarray:
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


def _log2_discount(rank: np.ndarray) -> np.ndarray:
    """trec_eval's discount: log2(rank + 1) at every rank, rank 1 included."""
    return rank_discounts(np.asarray(rank, dtype=np.int64), "log2", 2.0)


# ---- trec_eval's ndcg family and the formulations


def _dcg(ctx: Context, cutoff, gain="linear", discount="log2", base=2.0, cumulative=False) -> np.ndarray:
    # only rows with a positive grade have a gain; the others would add exactly 0.0
    key = ("gain", gain)
    if key not in ctx._cache:
        rk = ctx.rk
        if ctx.level == 1:  # the relevant rows are the positive ones
            rows, grp, rank = ctx._rel()
        else:
            rows = np.flatnonzero(rk.rel > 0)
            grp, rank = rk.grp[rows], rk.rank[rows]
        ctx._cache[key] = (gains(rk.rel[rows], gain), grp, rank)
    g, grp, rank = ctx._cache[key]
    if cutoff is not None:
        mask = rank <= cutoff
        g, rank, grp = g[mask], rank[mask], grp[mask]
    w = g if cumulative else g / rank_discounts(rank, discount, base)
    return np.bincount(grp, weights=w, minlength=ctx.nq)


def _idcg(ctx: Context, cutoff, gain="linear", discount="log2", base=2.0, cumulative=False) -> np.ndarray:
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
        g = gains(grade, gain)
        w = g if cumulative else g / rank_discounts(rank, discount, base)
        out[lo:hi] = np.bincount(grp, weights=w, minlength=hi - lo)
    cache[key] = out
    return out


def _trec_dcg(ctx: Context, k: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(DCG, ideal DCG) as trec_eval's ndcg family computes them (shared by four)."""
    key = ("trec_dcg", k)
    if key not in ctx._cache:
        ctx._cache[key] = (_dcg(ctx, k), _idcg(ctx, k))
    return ctx._cache[key]


def trec_dcg(ctx: Context, m: Measure) -> np.ndarray:
    """DCG = Σ_i g_i / log2(i + 1), g_i the grade (negative → 0).

    Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4); log2(i+1) discount: Burges et al. (2005), ICML."""
    if m.params:  # dcg.1=3,2=9: trec_eval's gain tables
        return gain_dcg(ctx, m)
    return _trec_dcg(ctx, m.cutoff)[0]


def trec_ideal_dcg(ctx: Context, m: Measure) -> np.ndarray:
    """IDCG = DCG of all judged documents of the query sorted by grade descending.

    Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4)."""
    if m.params:
        return gain_ideal_dcg(ctx, m)
    return _trec_dcg(ctx, m.cutoff)[1]


def trec_ndcg(ctx: Context, m: Measure) -> np.ndarray:
    """nDCG(@k) = DCG(@k) / IDCG(@k), the ideal cut at the same k (DCG when IDCG = 0).

    Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4)."""
    if m.params:  # ndcg.1=3,2=9 (gains sorted as trec_eval's qsort leaves them)
        return gain_ndcg(ctx, m)
    dcg, idcg = _trec_dcg(ctx, m.cutoff)
    return np.where(idcg > 0, safe_div(dcg, idcg), dcg)


def _formulation(m: Measure) -> tuple:
    return (m.cutoff, m.gain, m.discount, m.base)


def cumulative_gain(ctx: Context, m: Measure) -> np.ndarray:
    """CG@k = Σ_{i<=k} gain(g_i); gain linear g or exponential 2^g − 1.

    Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4)."""
    return _dcg(ctx, *_formulation(m), cumulative=True)


def discounted_cumulative_gain(ctx: Context, m: Measure) -> np.ndarray:
    """DCG@k = Σ_{i<=k} gain(g_i) / disc(i); disc log2(i + 1), or Järvelin–Kekäläinen
    max(1, log_b(i)).

    Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4); exponential gain: Burges et al. (2005), ICML."""
    return _dcg(ctx, *_formulation(m))


def ideal_discounted_cumulative_gain(ctx: Context, m: Measure) -> np.ndarray:
    """IDCG@k = DCG@k of the query's judged documents in the ideal (grade) order.

    Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4)."""
    return _idcg(ctx, *_formulation(m))


def normalized_dcg(ctx: Context, m: Measure) -> np.ndarray:
    """nDCG@k = DCG@k / IDCG@k under the chosen gain and discount (0 when IDCG = 0).

    Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4)."""
    args = _formulation(m)
    return safe_div(_dcg(ctx, *args), _idcg(ctx, *args))


# ---- gain parameters (gain_init.c)


def grade_counts(qcode: np.ndarray, rel: np.ndarray, nq: int) -> np.ndarray:
    """(nq, top + 1) int64: judged qrels documents of each query at each grade 0..top
    (negative grades — in the pool but unjudged — are not counted).

    qcode, rel: each qrels row's query index and grade (``QrelsIndex.qcode``, ``.rel``)."""
    qcode = np.asarray(qcode, dtype=np.int64)
    rel = np.asarray(rel, dtype=np.int64)
    keep = rel >= 0
    top = int(rel[keep].max()) if keep.any() else 0
    width = top + 1
    flat = np.bincount(qcode[keep] * width + rel[keep], minlength=nq * width)
    return flat.reshape(nq, width).astype(np.int64)


def parse_gain_pairs(pairs) -> tuple[tuple[int, float], ...]:
    """The (level, gain) pairs trec_eval uses from ``name=value`` parameters: names that
    are integers (a sign allowed), in order; others (``p``) are skipped (gain_init.c)."""
    out = []
    for name, value in pairs:
        s = str(name)
        body = s[1:] if s[:1] in "+-" else s
        if body and body.isascii() and body.isdigit():
            out.append((int(s), float(value)))
    return tuple(out)


def _c_int(x: float) -> int:
    """C's conversion of a double to int: truncation toward zero."""
    return int(x)


def trec_gain_order(gains) -> list[int]:
    """The order glibc's qsort leaves a small table in, sorted with trec_eval's
    comparator ``(int)(gain1 - gain2)`` (gain_init.c comp_rel_gain): glibc's top-down
    merge sort (msort.c: halves n/2 and n - n/2, a tie takes the left element)."""
    gains = [float(g) for g in gains]

    def msort(idx: list[int]) -> list[int]:
        n = len(idx)
        if n <= 1:
            return idx
        n1 = n // 2
        left, right = msort(idx[:n1]), msort(idx[n1:])
        out: list[int] = []
        i = j = 0
        while i < len(left) and j < len(right):
            if _c_int(gains[left[i]] - gains[right[j]]) <= 0:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
        return out + left[i:] + right[j:]

    return msort(list(range(len(gains))))


@dataclass(frozen=True)
class GainTables:
    """Per-query gain tables, as trec_eval sorts them, and the ideal rankings they give.

    layout[q]: which table layout query q uses (queries whose highest judged grade is
    the same share one); gain_of[l, g - lo]: the gain of grade g (lo..) under layout l;
    ideal_grp, ideal_gain: each query's ideal gains (all > 0), flat, grouped by query,
    in ideal order; ideal_len[q]: their number; entry_*: the sorted tables, flat
    (entry_grp, entry_level, entry_gain, entry_count), each query's entries ascending.
    """

    nq: int
    lo: int
    layout: np.ndarray
    gain_of: np.ndarray
    ideal_grp: np.ndarray
    ideal_gain: np.ndarray
    ideal_len: np.ndarray
    entry_grp: np.ndarray
    entry_level: np.ndarray
    entry_gain: np.ndarray
    entry_count: np.ndarray

    def ideal_rank(self) -> np.ndarray:
        """1-based position of each ideal entry within its query."""
        return _positions(self.ideal_len)


def _positions(sizes: np.ndarray) -> np.ndarray:
    n = int(sizes.sum())
    starts = np.cumsum(sizes) - sizes
    return np.arange(1, n + 1, dtype=np.int64) - np.repeat(starts, sizes)


def gain_tables(counts: np.ndarray, pairs=()) -> GainTables:
    """trec_eval's per-query gain tables (gain_init.c setup_gains).

    counts: ``grade_counts`` (nq, levels); pairs: (level, gain) from ``parse_gain_pairs``
    (or raw (name, value) pairs: non-integer names are skipped)."""
    counts = np.asarray(counts, dtype=np.int64)
    nq = counts.shape[0]
    pairs = parse_gain_pairs(pairs)
    # a query's table lists levels 0 .. its highest grade with a judged document
    has = counts > 0
    nlev = np.where(has.any(axis=1), counts.shape[1] - np.argmax(has[:, ::-1], axis=1), 0)
    layouts, layout = np.unique(nlev, return_inverse=True)
    lo = min([-2] + [lv for lv, _ in pairs])
    hi = max([counts.shape[1] - 1] + [lv for lv, _ in pairs])
    gain_of = np.zeros((layouts.size, hi - lo + 1))
    e_grp, e_level, e_gain, e_count = [], [], [], []
    tables = []
    for li, nl in enumerate(layouts.tolist()):
        levels = [lv for lv, _ in pairs]
        gains = [g for _, g in pairs]
        slot = {}  # level -> the entry whose count it fills (the first parameter naming it)
        for i, lv in enumerate(levels):
            slot.setdefault(lv, i)
        for lv in range(nl):
            if lv not in slot:
                slot[lv] = len(levels)
                levels.append(lv)
                gains.append(float(lv))
        order = trec_gain_order(gains)
        seen = set()
        for i in order:  # get_gain: the first entry in sorted order with the level
            if levels[i] not in seen:
                seen.add(levels[i])
                gain_of[li, levels[i] - lo] = gains[i]
        tables.append((levels, gains, order, slot, nl))
    for q in range(nq):
        levels, gains, order, slot, nl = tables[layout[q]]
        cnt = [0] * len(levels)
        for lv in range(nl):
            cnt[slot[lv]] = int(counts[q, lv])
        for i in order:
            e_grp.append(q)
            e_level.append(levels[i])
            e_gain.append(gains[i])
            e_count.append(cnt[i])
    e_grp = np.asarray(e_grp, dtype=np.int64)
    e_level = np.asarray(e_level, dtype=np.int64)
    e_gain = np.asarray(e_gain, dtype=np.float64)
    e_count = np.asarray(e_count, dtype=np.int64)
    i_grp, i_gain, i_len = _ideal(nq, e_grp, e_gain, e_count)
    return GainTables(nq, lo, layout.astype(np.int64), gain_of, i_grp, i_gain, i_len,
                      e_grp, e_level, e_gain, e_count)


def _ideal(nq, e_grp, e_gain, e_count):
    """Each query's ideal gains: its table walked from the top (see the module doc)."""
    grp_out, gain_out = [], []
    ln = np.zeros(nq, dtype=np.int64)
    if e_grp.size:
        bounds = np.searchsorted(e_grp, np.arange(nq + 1))
        for q in range(nq):
            a, b = int(bounds[q]), int(bounds[q + 1])
            if b == a or e_gain[b - 1] <= 0.0:
                continue
            for i in range(b - 1, a - 1, -1):
                if e_count[i] == 0:
                    continue
                if e_gain[i] <= 0.0:
                    break
                grp_out.append(np.full(e_count[i], q, dtype=np.int64))
                gain_out.append(np.full(e_count[i], e_gain[i]))
                ln[q] += e_count[i]
    if grp_out:
        return np.concatenate(grp_out), np.concatenate(gain_out), ln
    return np.zeros(0, dtype=np.int64), np.zeros(0), ln


def row_gains(rk: Ranking, tables: GainTables) -> np.ndarray:
    """The gain of each retrieved row (gain_init.c get_gain)."""
    if rk.rel.size == 0:
        return np.zeros(0)
    rel = rk.rel.astype(np.int64)
    ok = (rel >= tables.lo) & (rel - tables.lo < tables.gain_of.shape[1])
    out = np.zeros(rel.size)
    out[ok] = tables.gain_of[tables.layout[rk.grp[ok]], rel[ok] - tables.lo]
    return out


def _running_idcg(tables: GainTables) -> np.ndarray:
    """IDCG at each ideal position (inclusive), flat like tables.ideal_gain."""
    return cumsum_within(tables.ideal_gain / _log2_discount(tables.ideal_rank()), tables.ideal_rank())


def _idcg_at(tables: GainTables, grp: np.ndarray, k: np.ndarray) -> np.ndarray:
    """IDCG over the first k ideal positions of query grp (k may exceed the ideal length;
    k = 0 gives 0)."""
    run = _running_idcg(tables)
    start = np.cumsum(tables.ideal_len) - tables.ideal_len
    kk = np.minimum(k, tables.ideal_len[grp])
    out = np.zeros(np.shape(grp))
    has = kk > 0
    out[has] = run[start[grp[has]] + kk[has] - 1]
    return out


def _tables(ctx: Context, m: Measure) -> GainTables:
    """trec_eval's gain tables of the qrels under the measure's gain pairs (cached on
    the qrels index: the same for every run)."""
    pairs = parse_gain_pairs(m.params)
    key = ("gain_tables", pairs)
    cache = ctx.index.cache
    if key not in cache:
        index = ctx.index
        cache[key] = gain_tables(grade_counts(index.qcode, index.rel, index.nq), pairs)
    return cache[key]


def _dcg_values(rk: Ranking, tables: GainTables) -> np.ndarray:
    """DCG = sum over retrieved ranks i of gain_i / log2(i + 1) (m_ndcg.c, ``dcg``).

    Järvelin & Kekäläinen, "Cumulated gain-based evaluation of IR techniques", ACM TOIS
    20(4), 2002; trec_eval's variant discounts every rank, rank 1 included."""
    g = row_gains(rk, tables)
    nz = g != 0
    return per_query_sum(rk.grp, g / _log2_discount(rk.rank), rk.nq, nz)


def _ideal_dcg_values(tables: GainTables) -> np.ndarray:
    """IDCG: the DCG of the ideal ranking of all judged documents, not cut to the run's
    length (m_ndcg.c, ``ideal_dcg``)."""
    return per_query_sum(tables.ideal_grp, tables.ideal_gain / _log2_discount(tables.ideal_rank()), tables.nq)


def _ndcg_values(rk: Ranking, tables: GainTables) -> np.ndarray:
    """nDCG = DCG / IDCG, 0 when IDCG is 0 (m_ndcg.c, ``ndcg``; Järvelin & Kekäläinen 2002)."""
    d, i = _dcg_values(rk, tables), _ideal_dcg_values(tables)
    out = np.zeros(rk.nq)
    np.divide(d, i, out=out, where=i > 0)
    return out


def _ndcg_rel_values(rk: Ranking, tables: GainTables) -> np.ndarray:
    """nDCG averaged over the relevant documents (m_ndcg_rel.c).

    L = the ideal ranking's length (documents with positive gain). At each retrieved
    document with positive gain, at rank i: DCG@i / IDCG@min(i, L); each of the L minus
    that many documents not retrieved adds DCG@end / IDCG@L. The value is the sum / L
    (0 when the sum is not positive)."""
    nq = rk.nq
    g = row_gains(rk, tables)
    run_dcg = cumsum_within(np.where(g != 0, g / _log2_discount(rk.rank), 0.0), rk.rank)
    L = tables.ideal_len
    pos = np.flatnonzero(g > 0)
    q = rk.grp[pos]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = run_dcg[pos] / _idcg_at(tables, q, rk.rank[pos])
        total = per_query_sum(q, terms, nq)
        nrr = np.bincount(q, minlength=nq)
        end_dcg = per_query_sum(rk.grp, np.where(g != 0, g / _log2_discount(rk.rank), 0.0), nq)
        full = _ideal_dcg_values(tables)
        missing = (L - nrr).astype(np.float64)
        total = total + missing * end_dcg / full
        out = np.where(total > 0, total / L, 0.0)
    return out


def _Rndcg_values(rk: Ranking, tables: GainTables, R: np.ndarray) -> np.ndarray:
    """nDCG averaged at the R levels (m_Rndcg.c): at each position c where the ideal
    gain changes (after the last document of a gain level, and at the end of the ideal
    ranking, c = L), DCG@min(c, num_ret) / IDCG@c; plus DCG@num_ret / IDCG@L when the run
    is longer than L + 1 (trec_eval's loop leaves out a run exactly L + 1 long). The
    value is the mean of these terms; 0 when the query has no relevant document (R at
    the evaluation's level); NaN when no term has a positive IDCG (gains all <= 0).
    """
    nq = rk.nq
    g = row_gains(rk, tables)
    run_dcg = cumsum_within(np.where(g != 0, g / _log2_discount(rk.rank), 0.0), rk.rank)
    num_ret = np.bincount(rk.grp, minlength=nq)
    end_dcg = per_query_sum(rk.grp, np.where(g != 0, g / _log2_discount(rk.rank), 0.0), nq)
    # change points within the ideal ranking: c where gain[c] != gain[c - 1], and c = L
    ig, irank = tables.ideal_grp, tables.ideal_rank()
    nxt = np.append(ig[1:], -1)
    nxt_gain = np.append(tables.ideal_gain[1:], 0.0)
    change = (nxt != ig) | (nxt_gain != tables.ideal_gain)
    cq = ig[change]
    c = irank[change]  # the number of ideal documents before the change
    # DCG@min(c, num_ret) of the run
    k = np.minimum(c, num_ret[cq])
    start = np.zeros(nq, dtype=np.int64)
    firsts = first_rows(rk.rank)
    start[rk.grp[firsts]] = firsts
    d = np.zeros(c.size)
    has = k > 0
    d[has] = run_dcg[start[cq[has]] + k[has] - 1]
    idcg = _idcg_at(tables, cq, c)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = per_query_sum(cq, d / idcg, nq)
        n = np.bincount(cq, minlength=nq).astype(np.float64)
        L = tables.ideal_len
        extra = (num_ret > L + 1) & (L > 0)
        full = _ideal_dcg_values(tables)
        total[extra] += end_dcg[extra] / full[extra]
        n[extra] += 1
        out = total / n
    return np.where(np.asarray(R) > 0, out, 0.0)


def _G_values(rk: Ranking, tables: GainTables) -> np.ndarray:
    """trec_eval's normalised gain G (m_G.c, Buckley 2008, experimental):

    G = sum over retrieved ranks i with gain_i != 0 of
    gain_i / log2(2 + cost_i - sum_{j<=i} gain_j), divided by the sum of the ideal
    gains (0 when that is 0), where cost_i = sum_{j<=i} max(ideal_j, 1) and ideal_j is
    the j-th ideal gain (0 past the ideal ranking's end)."""
    nq = rk.nq
    g = row_gains(rk, tables)
    if g.size == 0:
        return np.zeros(nq)
    ideal_here = np.zeros(g.size)
    start = np.cumsum(tables.ideal_len) - tables.ideal_len
    inside = rk.rank <= tables.ideal_len[rk.grp]
    ideal_here[inside] = tables.ideal_gain[start[rk.grp[inside]] + rk.rank[inside] - 1]
    cost = cumsum_within(np.maximum(ideal_here, 1.0), rk.rank)
    got = cumsum_within(g, rk.rank)
    nz = g != 0
    terms = np.zeros(g.size)
    terms[nz] = g[nz] / np.log2(2.0 + cost[nz] - got[nz])
    total = per_query_sum(rk.grp, terms, nq, nz)
    ideal_sum = per_query_sum(tables.ideal_grp, tables.ideal_gain, nq)
    out = np.zeros(nq)
    np.divide(total, ideal_sum, out=out, where=ideal_sum > 0)
    return out


def _binG_values(rk: Ranking, R: np.ndarray, level: int) -> np.ndarray:
    """Binary G (m_binG.c, Buckley 2008, experimental): the sum over relevant retrieved
    documents (grade >= level) of 1 / log2(2 + non-relevant documents above it),
    divided by R; 0 when none is retrieved."""
    nq = rk.nq
    isrel = rk.rel >= level
    crel = cumsum_within(isrel.astype(np.int64), rk.rank)
    rows = np.flatnonzero(isrel)
    above = (rk.rank[rows] - crel[rows]).astype(np.float64)
    total = per_query_sum(rk.grp[rows], 1.0 / np.log2(2.0 + above), nq)
    out = np.zeros(nq)
    np.divide(total, np.asarray(R, dtype=np.float64), out=out, where=np.asarray(R) > 0)
    return out


def gain_dcg(ctx: Context, m: Measure) -> np.ndarray:
    """dcg with gain parameters (_dcg_values)."""
    return _dcg_values(ctx.rk, _tables(ctx, m))


def gain_ideal_dcg(ctx: Context, m: Measure) -> np.ndarray:
    """ideal_dcg with gain parameters (_ideal_dcg_values)."""
    return _ideal_dcg_values(_tables(ctx, m))


def gain_ndcg(ctx: Context, m: Measure) -> np.ndarray:
    """ndcg with gain parameters (_ndcg_values)."""
    return _ndcg_values(ctx.rk, _tables(ctx, m))


def ndcg_rel(ctx: Context, m: Measure) -> np.ndarray:
    """ndcg_rel = (1/L) Σ over the L documents of positive gain of DCG@i / IDCG@min(i, L),
    i the rank where the document was retrieved (the run's end when it was not).

    Järvelin & Kekäläinen (2002), ACM TOIS 20(4); averaged at relevant documents:
    Buckley (2008), trec_eval's experimental m_ndcg_rel.c (_ndcg_rel_values)."""
    return _ndcg_rel_values(ctx.rk, _tables(ctx, m))


def Rndcg(ctx: Context, m: Measure) -> np.ndarray:
    """Rndcg = mean of DCG@c / IDCG@c over the ranks c where the ideal gain changes.

    Järvelin & Kekäläinen (2002), ACM TOIS 20(4); at R levels: Buckley (2008), trec_eval's
    experimental m_Rndcg.c (_Rndcg_values)."""
    return _Rndcg_values(ctx.rk, _tables(ctx, m), ctx.R)


def G(ctx: Context, m: Measure) -> np.ndarray:
    """G = Σ_i gain_i / log2(2 + ideal gain so far − gain so far) / Σ ideal gains.

    Buckley (2008), trec_eval's experimental m_G.c (_G_values)."""
    return _G_values(ctx.rk, _tables(ctx, m))


def binG(ctx: Context, m: Measure) -> np.ndarray:
    """binG = (1/R) Σ over relevant retrieved d of 1 / log2(2 + non-relevant above d).

    Buckley (2008), trec_eval's experimental m_binG.c (_binG_values)."""
    return _binG_values(ctx.rk, ctx.R, ctx.level)
