"""Correlation between rankings: Kendall's tau (a and b), Spearman's rho, tau_AP and
rank-biased overlap (RBO).

Two input shapes are used:
- **score vectors** `x`, `y` over the same items (e.g. each system's mean nDCG@10 under
  two assessors' qrels): higher means ranked higher. Kendall, Spearman and tau_AP take these.
- **orders**: sequences of item names best first (e.g. two systems' result lists for one
  query, or system rankings from `rank_order`). RBO takes these; lists may differ in length
  and content. `order_scores` turns an order into a score vector.

Kendall's pair counts come from one sort per vector and a radix inversion count
(O(n log n)); tau_AP's per-item counts from a vectorised merge sort (O(n log^2 n)); no Python
loop over items.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

__all__ = [
    "MEAN_TIE_TOL",
    "tie_levels",
    "kendall_tau",
    "spearman_rho",
    "pearson_r",
    "tau_ap",
    "tau_ap_b",
    "tau_gap",
    "kendall_top_k",
    "rbo",
    "rank_order",
    "average_ranks",
    "order_scores",
    "kendall_tau_lists",
    "kendall_tau_b_rows",
    "tau_ap_b_rows",
    "tau_gap_rows",
    "spearman_rows",
    "pearson_rows",
    "kendall_top_k_rows",
    "rbo_rows",
]

def _pair(x, y) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y differ in length ({x.size} vs {y.size})")
    if np.isnan(x).any() or np.isnan(y).any():
        raise ValueError("scores must not be NaN")
    return x, y


def _dense(v: np.ndarray) -> np.ndarray:
    """Dense integer ranks 0..m-1 of `v` (equal values share one)."""
    return np.unique(v, return_inverse=True)[1].astype(np.int64).ravel()


def _greater_before(v: np.ndarray) -> np.ndarray:
    """For each position i, how many j < i hold v[j] > v[i] (v: non-negative ints).

    A bottom-up merge sort done level by level in numpy: at width w, each right half-block
    counts the larger elements of its sorted left half with one `searchsorted` over all
    blocks at once (keys offset by block number). O(n log^2 n), no loop over items.
    """
    n = v.size
    counts = np.zeros(n, dtype=np.int64)
    if n < 2:
        return counts
    m = int(v.max()) + 1
    vals, ids, pos = v.astype(np.int64), np.arange(n), np.arange(n)
    w = 1
    while w < n:
        block = pos // (2 * w)
        right = (pos % (2 * w)) >= w
        keys = block * m + vals
        left_keys = keys[~right]  # sorted: each left half is sorted, blocks ascend
        rb = block[right]
        end = np.searchsorted(left_keys, (rb + 1) * m, side="left")
        counts[ids[right]] += end - np.searchsorted(left_keys, keys[right], side="right")
        order = np.argsort(keys, kind="stable")  # merge each pair of halves
        vals, ids = vals[order], ids[order]
        w *= 2
    return counts


def _equal_before(keys: np.ndarray) -> np.ndarray:
    """For each position i, how many j < i hold keys[j] == keys[i]."""
    n = keys.size
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    first = np.concatenate([[True], sk[1:] != sk[:-1]]) if n else np.array([], bool)
    run_start = np.maximum.accumulate(np.where(first, np.arange(n), 0)) if n else first
    out = np.empty(n, dtype=np.int64)
    out[order] = np.arange(n) - run_start
    return out


MEAN_TIE_TOL = 1e-12  # means equal within this are ties (0.55 vs 0.5499999999999999)


def tie_levels(v, tol: float = MEAN_TIE_TOL) -> np.ndarray:
    """The one tie rule of every rank correlation and every printed ranking: dense levels
    0, 1, ... of `v` along its last axis (a float array of the same shape), ascending with
    `v`, where neighbours in sorted order closer than tol * max(1, |value|) share a level
    (a chain of such neighbours is one level). System means summed in another order differ
    in the last bit (0.20000000000000004 and 0.19999999999999998): those are one level, so
    two identical rankings built from such sums give tau-b, tau_AP and RBO 1. NaN stays NaN.
    """
    v = np.asarray(v, dtype=np.float64)
    if v.size == 0:
        return v.copy()
    order = np.argsort(v, axis=-1, kind="stable")
    sv = np.take_along_axis(v, order, axis=-1)
    with np.errstate(invalid="ignore"):
        bound = tol * np.maximum(1.0, np.abs(sv[..., 1:]))
        gap = sv[..., 1:] - sv[..., :-1]
        step = (gap > bound) | (np.isinf(bound) & (sv[..., 1:] != sv[..., :-1]))
    step |= np.isnan(sv[..., 1:]) & ~np.isnan(sv[..., :-1])
    levels_sorted = np.concatenate(
        [np.zeros(sv.shape[:-1] + (1,)), np.cumsum(step, axis=-1, dtype=np.float64)], axis=-1)
    levels_sorted[np.isnan(sv)] = np.nan
    out = np.empty_like(levels_sorted)
    np.put_along_axis(out, order, levels_sorted, axis=-1)
    return out


def _order_steps(v: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """(order, step): v[order] ascends (the order among equal values arbitrary), and step[i]
    says whether v[order[i + 1]] is a new value. With `tol` > 0, neighbours in sorted order
    closer than tol * max(1, |value|) are one value (sums of floats in another order differ
    in the last bit, and such a difference is not an order).

    numpy's argsort of floats is about twice its sort of int64. So where a sample shows few
    ties (and tol is 0), one int64 sort does it: the float's bits made to ascend with it,
    their low log2(n) bits replaced by the position. Neighbours whose remaining bits differ
    are different values, in order, without looking at them; only runs of equal remaining
    bits (values that differ in the dropped bits only, or equal values) are fetched and
    sorted again by value: none for most data, all of it at worst."""
    n = v.size
    s = max(1, (n - 1).bit_length())
    if tol > 0 or n < 4096 or s > 40 or _many_ties(v):
        order = np.argsort(v)
        sv = v[order]
        if tol > 0:
            bound = tol * np.maximum(1.0, np.abs(sv[1:]))
            step = (sv[1:] - sv[:-1]) > bound
            step |= np.isinf(bound) & (sv[1:] != sv[:-1])  # a finite value below +inf
        else:
            step = sv[1:] != sv[:-1]  # not the difference: inf - inf is NaN
        return order, step
    key = v.view(np.int64).copy()  # bits of floats >= 0 ascend with them
    if key.min() < 0:  # a sign bit set: a negative value or -0.0
        bits = (v + 0.0).view(np.int64)  # + 0.0: -0.0 becomes 0.0, one key for the two
        key = bits >> 63
        key &= 0x7FFFFFFFFFFFFFFF
        key ^= bits  # negative floats: the magnitude bits flipped, so keys ascend with v
    key &= ~((1 << s) - 1)
    key |= np.arange(n)
    key.sort()
    order = key & ((1 << s) - 1)
    key >>= s
    step = key[1:] != key[:-1]
    same = np.flatnonzero(~step)
    if same.size:  # runs of one key: sort their items by value (runs keep their order)
        in_run = np.zeros(n, dtype=bool)
        in_run[same] = True
        in_run[same + 1] = True
        redo = np.flatnonzero(in_run)
        sv = v[order[redo]]
        again = np.argsort(sv, kind="stable")
        order[redo] = order[redo][again]
        sv = sv[again]
        j = np.searchsorted(redo, same)  # each pair inside a run, as places in redo
        step[same] = sv[j + 1] != sv[j]
    return order, step


def _many_ties(v: np.ndarray) -> bool:
    """Whether a sample of about 1 000 of the values repeats more than one in ten."""
    sample = v[:: max(1, v.size // 1024)]
    return np.unique(sample).size < 0.9 * sample.size


_WINDOW = 16  # bits of a value's key that may tell its few distinct values apart


def _few_codes(v: np.ndarray, it) -> tuple[np.ndarray, int] | None:
    """(codes, m) for values with at most 4 096 distinct ones, from one sort of the values
    (no argsort): the distinct values' bits are searched for a window of _WINDOW bits that
    tells them apart, and each item's code read from a table by its window. None where
    there are more values or no such window."""
    bits = (v + 0.0).view(np.int64)  # + 0.0: -0.0 becomes 0.0, one value with one key
    sv = np.sort(bits.view(np.float64))
    new = np.flatnonzero(sv[1:] != sv[:-1])
    if new.size >= 4096:
        return None
    distinct = np.concatenate((sv[:1], sv[new + 1])).view(np.int64)
    mask = (1 << _WINDOW) - 1
    for shift in range(64 - _WINDOW, -1, -1):
        window = (distinct >> shift) & mask
        if np.unique(window).size == distinct.size:
            table = np.zeros(mask + 1, dtype=it)
            table[window] = np.arange(distinct.size, dtype=it)
            key = bits >> shift
            key &= mask
            return table[key], int(distinct.size)
    return None


class _Codes:
    """One score vector as integer codes 0..m-1 that keep its order (equal values one code,
    codes may go unused), their counts, and an ascending order of the items if known."""

    def __init__(self, v: np.ndarray, tol: float, it):
        n = v.size
        self.order = None
        head = v[:64]
        if tol == 0 and np.array_equal(head, np.rint(head)):
            lo, hi = v.min(), v.max()
            if hi - lo <= 2 * n and np.array_equal(v, np.rint(v)):
                # integral values (grades, rounded scores) in a short range: codes without a sort
                self.codes = (v - lo).astype(it)
                self.m = int(hi - lo) + 1
                self.counts = np.bincount(self.codes, minlength=self.m)
                self.tied = int(self.counts.max()) > 1
                return
        if tol == 0 and n >= 4096 and _many_ties(v):
            few = _few_codes(v, it)
            if few is not None:  # few distinct values: codes without an argsort
                self.codes, self.m = few
                self.counts = np.bincount(self.codes, minlength=self.m)
                self.tied = self.m < n
                return
        order, step = _order_steps(v, tol)
        self.order = order
        self.m = int(np.count_nonzero(step)) + 1
        self.tied = self.m < n
        if self.tied:
            ranks = np.empty(n, dtype=it)
            ranks[0] = 0
            np.cumsum(step, out=ranks[1:])
            self.counts = np.bincount(ranks, minlength=self.m)
        else:
            ranks = np.arange(n, dtype=it)
            self.counts = None
        self._ranks = ranks  # the codes along `order`, scattered when first asked for

    @property
    def codes(self) -> np.ndarray:
        if self._ranks is not None:
            self._codes = np.empty_like(self._ranks)
            self._codes[self.order] = self._ranks
            self._ranks = None
        return self._codes

    @codes.setter
    def codes(self, value: np.ndarray) -> None:
        self._codes, self._ranks = value, None

    def ascending(self) -> np.ndarray:
        if self.order is None:
            self.order = _stable_order(self.codes, self.m)
        return self.order

    def tied_pairs(self) -> int:
        return _tied_in(self.counts) if self.tied else 0


def _tied_in(counts: np.ndarray) -> int:
    counts = counts.astype(np.int64)
    return int((counts * (counts - 1)).sum() // 2)


def _stable_order(keys: np.ndarray, m: int) -> np.ndarray:
    """`np.argsort(keys, kind="stable")` for integers 0..m-1: numpy's radix sort where they
    fit 16 bits, else one sort of key * n + position (faster than the stable comparison sort)."""
    n = keys.size
    if m <= 1 << 16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    packed = keys.astype(np.int64) * n + np.arange(n)
    packed.sort()
    packed %= n
    return packed


_CHUNK = 1 << 15  # rows of at most this many places are finished one cache-sized piece at a time


def _permutation_inversions(p: np.ndarray) -> int:
    """Pairs j < i with p[j] > p[i] for a permutation p of 0..n-1, in O(n log n).

    A most-significant-bit-first radix partition that needs no group bookkeeping because p
    is a permutation: at bit b the array is cut into rows of 2h = 2^(b+1) places (a last
    shorter row), row r holding exactly the values [2h r, 2h (r+1)) in their original order.
    In a row whose values with bit b clear sit at places z_1 < ... < z_k, sum(z_i - (i-1))
    pairs have the set bit before the clear one: the inversions this bit decides. Moving
    each row's clear-bit values, then its set-bit values, into rows of h (`np.compress`,
    which keeps order) makes the rows of the next bit. About seven linear numpy passes per
    bit and no gather or scatter; int32 where it fits, as the passes are memory bound. Once
    rows fit _CHUNK places, the remaining bits run on one such piece after another."""
    n = p.size
    if n < 2:
        return 0
    it = np.int32 if n < 2**31 else np.int64
    bufs = (p.astype(it), np.empty(n, dtype=it), np.empty(n, dtype=it), np.empty(n, dtype=bool))
    top = (n - 1).bit_length()
    low = min(top, _CHUNK.bit_length() - 1)
    total, bufs = _radix_bits(bufs, top, low)
    for start in range(0, n, _CHUNK):
        piece = tuple(a[start : start + _CHUNK] for a in bufs)
        total += _radix_bits(piece, low, 0)[0]
    return total


def _radix_bits(bufs, top: int, bottom: int):
    """Inversions decided by bits top-1 .. bottom of `_permutation_inversions` on one piece
    (`bufs`: values, spare, scratch, mask); returns them and the bufs, values first."""
    cur, nxt, bit, clear = bufs
    n = cur.size
    total = 0
    for b in range(top - 1, bottom - 1, -1):
        h = 1 << b
        rows = n // (2 * h)  # full rows of 2h, then a last row of n - cut places
        cut = rows * 2 * h
        k = min(h, n - cut)  # clear-bit values in the last row
        np.bitwise_and(cur, h, out=bit)
        np.equal(bit, 0, out=clear)
        places = int(np.flatnonzero(clear).sum(dtype=np.int64))
        # less each row's start times its clear values, and 0 + 1 + ... + (clear values - 1)
        total += (places - 2 * h * h * (rows * (rows - 1) // 2) - rows * (h * (h - 1) // 2)
                  - cut * k - k * (k - 1) // 2)
        if b == 0:
            break
        np.compress(clear[:cut], cur[:cut], out=nxt[: rows * h])
        np.compress(clear[cut:], cur[cut:], out=nxt[cut : cut + k])
        np.logical_not(clear, out=clear)
        np.compress(clear[:cut], cur[:cut], out=nxt[rows * h : cut])
        np.compress(clear[cut:], cur[cut:], out=nxt[cut + k :])
        cur, nxt = nxt, cur
    return total, (cur, nxt, bit, clear)


_TABLE_CELLS = 2  # x codes times y codes up to this many times n: count on the table


def _concordance_counts(x: np.ndarray, y: np.ndarray, tol: float) -> tuple[int, int, int, int]:
    """(C - D, P, T_x, T_y) in O(n log n): pairs concordant minus discordant, all pairs,
    pairs tied in x, pairs tied in y. C = P - T_x - T_y + T_xy - D (T_xy: tied in both).

    Each vector becomes integer codes (`_Codes`: one sort, or none for integral values in
    a short range). With few codes (x codes times y codes at most 2n) every count comes
    from their contingency table and its cumulative sums. Otherwise the items are put in
    (x, y) order (x's order when x has no ties, else a stable sort of y's order by x code)
    and D is the number of inversions of y along it, ties in y broken by position (a
    stable sort) so that they form a permutation, whose inversions `_permutation_inversions`
    counts."""
    n = x.size
    it = np.int32 if n < 2**31 else np.int64
    cx, cy = _Codes(x, tol, it), _Codes(y, tol, it)
    pairs = n * (n - 1) // 2
    if cx.m * cy.m <= _TABLE_CELLS * n:
        key = cx.codes.astype(np.int64)
        key *= cy.m
        key += cy.codes
        table = np.bincount(key, minlength=cx.m * cy.m).reshape(cx.m, cy.m)
        above = np.cumsum(table, axis=0)
        above -= table  # items with a smaller x, by y
        right = np.cumsum(above[:, ::-1], axis=1)[:, ::-1]
        right -= above  # ... and a larger y
        discordant = int(np.vdot(table, right))
        t_x, t_y = _tied_in(table.sum(axis=1)), _tied_in(table.sum(axis=0))
        t_xy = _tied_in(table.ravel())
    else:
        if cx.tied:
            oy = cy.ascending()
            xy = oy[_stable_order(cx.codes[oy], cx.m)]
        else:
            xy = cx.ascending()
        ys = cy.codes[xy]
        t_x, t_y, t_xy = cx.tied_pairs(), cy.tied_pairs(), 0
        if cx.tied and cy.tied:  # runs equal in both along (x, y) order
            xs = cx.codes[xy]
            new = np.flatnonzero((xs[1:] != xs[:-1]) | (ys[1:] != ys[:-1]))
            t_xy = _tied_in(np.diff(np.concatenate([[0], new + 1, [n]])))
        dense = not cy.tied and cy.m == n  # then y's codes are a permutation already
        discordant = _permutation_inversions(ys if dense else _stable_order(ys, cy.m))
    concordant = pairs - t_x - t_y + t_xy - discordant
    return concordant - discordant, pairs, t_x, t_y


def kendall_tau(x, y, variant: str = "b", *, tie_tol: float = 0.0) -> float:
    """Kendall's tau between two score vectors over the same items.

    tau-a = (C - D) / (n(n-1)/2); tau-b = (C - D) / sqrt((P - T_x)(P - T_y)) with T the
    pairs tied in one vector (Kendall 1945), as `scipy.stats.kendalltau` (its default).
    Without ties both agree; [1,3,2,4] vs [1,2,3,4] gives 4/6 = 0.667. NaN for fewer than
    two items, and tau-b NaN when one vector is constant. `tie_tol` (e.g. MEAN_TIE_TOL for
    means over queries) makes values within tie_tol * max(1, |value|) ties. O(n log n).
    """
    if variant not in ("a", "b"):
        raise ValueError(f"variant must be 'a' or 'b', not {variant!r}")
    x, y = _pair(x, y)
    n = x.size
    if n < 2:
        return math.nan
    if tie_tol > 0:  # the one tie rule: values within tie_tol are one level
        x, y, tie_tol = tie_levels(x, tie_tol), tie_levels(y, tie_tol), 0.0
    s, pairs, t_x, t_y = _concordance_counts(x, y, tie_tol)
    if variant == "a":
        return s / pairs
    den = math.sqrt(float(pairs - t_x) * float(pairs - t_y))
    return s / den if den > 0 else math.nan


def average_ranks(v) -> np.ndarray:
    """Ranks 1..n of `v` ascending, tied values sharing their average rank."""
    v = np.asarray(v, dtype=np.float64).ravel()
    order = np.argsort(v, kind="stable")
    sorted_v = v[order]
    first = np.concatenate([[True], sorted_v[1:] != sorted_v[:-1]])
    group = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    ends = np.concatenate([starts[1:], [v.size]])
    avg = (starts + ends + 1) / 2.0  # mean of ranks start+1 .. end
    ranks = np.empty(v.size)
    ranks[order] = avg[group]
    return ranks


def spearman_rho(x, y) -> float:
    """Spearman's rho: Pearson correlation of the average ranks (as `scipy.stats.spearmanr`).
    NaN when either vector is constant or has fewer than two items."""
    x, y = _pair(x, y)
    if x.size < 2:
        return math.nan
    rx, ry = average_ranks(x), average_ranks(y)
    rx -= rx.mean()
    ry -= ry.mean()
    den = math.sqrt(float(rx @ rx) * float(ry @ ry))
    return float(rx @ ry) / den if den > 0 else math.nan


def pearson_r(x, y) -> float:
    """Pearson's r (as `scipy.stats.pearsonr`); NaN when either vector is constant or has
    fewer than two items."""
    x, y = _pair(x, y)
    return float(pearson_rows(x[None, :], y[None, :])[0])


def tau_ap_b(x, y, *, tie_tol: float = MEAN_TIE_TOL) -> float:
    """tau_AP-b, the AP correlation for ties in both rankings (Urbano & Marrero, ICTIR 2017),
    as pyircor's `tauap_b` and AutoJudge's evaluator compute it; symmetric. Higher is
    better. For each direction (groups from y, order from x): every item i outside y's
    top tie group has p_i items in strictly better y groups, c_i of which x also ranks
    strictly above i; tau = 2 / #(p_i > 0) * sum c_i / p_i - 1. tau_AP-b is the mean of
    the two directions. Without ties it is the mean of Yilmaz's tau_AP both ways. Ties are
    `tie_levels` (values equal up to tie_tol). NaN for fewer than two items or a constant
    vector."""
    x, y = _pair(x, y)
    return float(tau_ap_b_rows(x[None, :], y[None, :], tie_tol=tie_tol)[0])


def tau_gap(truth, judge, *, tie_tol: float = MEAN_TIE_TOL) -> float:
    """tau_GAP (Gao & Oard, SIGIR 2015), head-weighted and gap-sensitive, as AutoJudge's
    evaluator gives it: items in the judge's order (best first); each item i with items
    strictly above it has C(i) = sum of w_ij over the items j above i that the truth also
    ranks above i, divided by the sum of w_ij over all items above i, with w_ij =
    |truth_j - truth_i| (a swap of close systems costs little); tau_GAP = 2 / N * sum C(i)
    - 1 over the N items that have a C(i) (N = n - 1 without ties). Not symmetric: the
    first argument gives the gaps. (truth [.9, .5, .4], judge [3, 1, 2]) gives 0.8."""
    x, y = _pair(truth, judge)
    return float(tau_gap_rows(x[None, :], y[None, :], tie_tol=tie_tol)[0])


def kendall_top_k(names: Sequence[str], truth, judge, k: int) -> float:
    """Kendall's tau-b on the k systems ranked highest by the truth (`rank_order`: ties by
    name): how well the judge orders the head of the leaderboard."""
    x, y = _pair(truth, judge)
    return float(kendall_top_k_rows(names, x[None, :], y[None, :], k)[0])


def tau_ap(x, y) -> float:
    """AP rank correlation tau_AP of the ranking by `x` against the reference ranking by `y`
    (Yilmaz, Aslam & Robertson, SIGIR 2008):

        tau_AP = 2 / (n - 1) * sum_{i=2..n} C(i) / (i - 1) - 1

    where items are taken in `x`'s order (highest first) and C(i) counts the items above
    position i that `y` also ranks above the item at i. Swaps near the top cost more than
    swaps near the bottom; identical rankings give 1, reversed -1. Not symmetric: `y` is the
    reference. Ties are not part of the original definition: here a pair tied in either
    vector counts one half. `compare`, `calibrate` and `meta` report `tau_ap_b`, which
    treats ties as pyircor does; this is Yilmaz's coefficient for untied rankings.
    """
    x, y = _pair(x, y)
    n = x.size
    if n < 2:
        return math.nan
    order = np.argsort(-x, kind="stable")
    xs, ys = x[order], -y[order]  # negate: "ranked above" = larger y = smaller -y
    yr = _dense(ys)
    group = _dense(-xs)  # runs of equal x, numbered top down
    m = int(yr.max()) + 1
    within = group * m + yr
    # j above i and y ranks j above i (strictly), minus those tied in x; the key
    # group*m + (m-1-yr) makes earlier x-groups never "greater", so only ties in x count.
    correct = _less_before(yr) - _greater_before(group * m + (m - 1 - yr))
    tied_y = _equal_before(yr)
    tied_x = np.arange(n) - np.searchsorted(group, group, side="left")
    tied_both = _equal_before(within)
    c = correct + 0.5 * (tied_y + tied_x - tied_both)
    i = np.arange(1, n)  # positions 2..n, 0-based 1..n-1
    return float(2.0 / (n - 1) * (c[i] / i).sum() - 1.0)


def _less_before(v: np.ndarray) -> np.ndarray:
    """For each position i, how many j < i hold v[j] < v[i]."""
    top = int(v.max()) if v.size else 0
    return _greater_before(top - v)


def _codes(a: Sequence, b: Sequence) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of the items of two lists (shared items share a code)."""
    arr_a, arr_b = np.asarray(list(a)), np.asarray(list(b))
    if arr_a.dtype != arr_b.dtype and arr_a.size and arr_b.size:
        arr_a, arr_b = arr_a.astype(str), arr_b.astype(str)
    both = np.concatenate([arr_a, arr_b]) if arr_a.size or arr_b.size else np.array([])
    _, inverse = np.unique(both, return_inverse=True)
    ca, cb = inverse[: arr_a.size], inverse[arr_a.size :]
    for name, c in (("first", ca), ("second", cb)):
        if np.unique(c).size != c.size:
            raise ValueError(f"the {name} list repeats an item")
    return ca, cb


def rbo(a: Sequence, b: Sequence, p: float = 0.9) -> float:
    """Rank-biased overlap RBO_ext of two orders (best first), persistence `p`
    (Webber, Moffat & Zobel 2010, eq. 32: the extrapolated point estimate for finite,
    possibly uneven lists). With s = len(short), l = len(long), X_d the overlap of the two
    prefixes of depth d (the short list counted whole beyond s):

        RBO_ext = (1-p)/p * [ sum_{d=1..l} X_d/d p^d + sum_{d=s+1..l} X_s (d-s)/(s d) p^d ]
                  + [ (X_l - X_s)/l + X_s/s ] p^l

    Identical lists give 1, disjoint 0; both empty 1, one empty 0. Lists must not repeat an
    item. `p` in (0, 1): the expected depth a reader looks at is 1 / (1 - p).
    """
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    if len(a) == 0 and len(b) == 0:
        return 1.0
    if len(a) == 0 or len(b) == 0:
        return 0.0
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    cs, cl = _codes(short, long_)
    s, l = len(cs), len(cl)
    # Depth at which each shared item has been seen in both lists.
    pos_s = np.full(cs.max(initial=0) + cl.max(initial=0) + 2, np.inf)
    pos_l = pos_s.copy()
    pos_s[cs] = np.arange(1, s + 1)
    pos_l[cl] = np.arange(1, l + 1)
    seen = np.maximum(pos_s, pos_l)
    seen = seen[np.isfinite(seen)].astype(np.int64)
    x = np.cumsum(np.bincount(seen, minlength=l + 1)[1:])  # X_d for d = 1..l
    d = np.arange(1, l + 1, dtype=np.float64)
    weights = p**d
    x_s, x_l = float(x[s - 1]), float(x[l - 1])
    total = float((x / d * weights).sum())
    tail = d > s
    total += float((x_s * (d[tail] - s) / (s * d[tail]) * weights[tail]).sum())
    return (1 - p) / p * total + ((x_l - x_s) / l + x_s / s) * p**l


def rank_order(names: Sequence[str], scores) -> list[str]:
    """Names best first by score (descending), ties (`tie_levels`: equal up to
    floating-point noise) broken by name so output is stable."""
    scores = tie_levels(np.asarray(scores, dtype=np.float64).ravel())
    names_arr = np.asarray(list(names), dtype=object)
    if names_arr.size != scores.size:
        raise ValueError("names and scores differ in length")
    by_name = np.argsort(names_arr.astype(str), kind="stable")
    order = by_name[np.argsort(-scores[by_name], kind="stable")]
    return [str(n) for n in names_arr[order]]


def order_scores(order: Sequence, items: Sequence) -> np.ndarray:
    """A score vector over `items` from an order best first: n for the first, 1 for the
    last; items not in the order get 0 (below everything listed)."""
    position = {item: len(order) - i for i, item in enumerate(order)}
    return np.array([position.get(item, 0) for item in items], dtype=np.float64)


def kendall_tau_lists(a: Sequence, b: Sequence, variant: str = "b") -> float:
    """Kendall's tau between two orders (e.g. two systems' result lists for one query),
    over the items both contain. NaN when fewer than two items are shared."""
    in_b = set(b)
    shared = [item for item in a if item in in_b]
    return kendall_tau(order_scores(a, shared), order_scores(b, shared), variant)


# ---------------------------------------------------------------- many resamples at once


_ROWS_CELLS = 2_000_000  # rows x pairs per batch: a few tens of MB


def _row_batches(n_rows: int, per_row: int):
    size = max(1, _ROWS_CELLS // max(per_row, 1))
    for start in range(0, n_rows, size):
        yield slice(start, min(start + size, n_rows))


def kendall_tau_b_rows(x, y) -> np.ndarray:
    """`kendall_tau(x[r], y[r], "b", tie_tol=MEAN_TIE_TOL)` for every row r of two
    (rows x items) arrays (e.g. bootstrap resamples of system means), from the "j above i"
    tables of the two rows: C = pairs above in both, D = above in x and below in y, and
    tau-b = (C - D) / sqrt(#pairs untied in x * #pairs untied in y)."""
    lx, ly = _levels_pair(x, y, MEAN_TIE_TOL)
    rows, n = lx.shape
    out = np.full(rows, math.nan)
    if n < 2:
        return out
    for batch in _row_batches(rows, n * n):
        ax, ay = _above(lx[batch]), _above(ly[batch])
        c = np.logical_and(ax, ay).sum(axis=(1, 2), dtype=np.int64)
        d = np.logical_and(ax, ay.transpose(0, 2, 1)).sum(axis=(1, 2), dtype=np.int64)
        den = np.sqrt(ax.sum(axis=(1, 2), dtype=np.int64).astype(np.float64)
                      * ay.sum(axis=(1, 2), dtype=np.int64))
        with np.errstate(divide="ignore", invalid="ignore"):
            out[batch] = np.where(den > 0, (c - d) / den, math.nan)
    return out


def _levels_pair(x, y, tol):
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 2:
        raise ValueError("x and y must be (rows x items) arrays of one shape")
    return tie_levels(x, tol).astype(np.int32), tie_levels(y, tol).astype(np.int32)


def _above(levels: np.ndarray) -> np.ndarray:
    """rows x n x n: [r, i, j] = item j strictly above item i (higher level)."""
    return levels[:, None, :] > levels[:, :, None]


def tau_ap_b_rows(x, y, *, tie_tol: float = MEAN_TIE_TOL) -> np.ndarray:
    """`tau_ap_b(x[r], y[r])` for every row r of two (rows x items) arrays. The count c_i
    (items strictly above i in both) is shared by the two directions."""
    lx, ly = _levels_pair(x, y, tie_tol)
    rows, n = lx.shape
    out = np.full(rows, math.nan)
    if n < 2:
        return out
    for batch in _row_batches(rows, n * n):
        ax, ay = _above(lx[batch]), _above(ly[batch])
        c = np.logical_and(ax, ay).sum(axis=2, dtype=np.float64)
        halves = []
        for a in (ay, ax):  # groups from y (order from x), then the other way round
            p = a.sum(axis=2, dtype=np.float64)
            counted = p > 0
            with np.errstate(divide="ignore", invalid="ignore"):
                share = np.where(counted, c / np.where(counted, p, 1.0), 0.0).sum(axis=1)
                k = counted.sum(axis=1)
                halves.append(np.where(k > 0, 2.0 * share / k - 1.0, math.nan))
        out[batch] = (halves[0] + halves[1]) / 2.0
    return out


def tau_gap_rows(truth, judge, *, tie_tol: float = MEAN_TIE_TOL) -> np.ndarray:
    """`tau_gap(truth[r], judge[r])` for every row r. A tie in the judge puts neither item
    above the other; a tie in the truth weighs 0."""
    t = np.asarray(truth, dtype=np.float64)
    lt, lj = _levels_pair(truth, judge, tie_tol)
    rows, n = lt.shape
    out = np.full(rows, math.nan)
    if n < 2:
        return out
    for batch in _row_batches(rows, n * n):
        tv = t[batch]
        w = np.abs(tv[:, None, :] - tv[:, :, None])
        w[~(lt[batch][:, None, :] != lt[batch][:, :, None])] = 0.0  # noise is a tie
        above = _above(lj[batch])
        den = np.einsum("rij,rij->ri", above, w, dtype=np.float64)
        agree = above & _above(lt[batch])
        num = np.einsum("rij,rij->ri", agree, w, dtype=np.float64)
        counted = den > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(counted, num / np.where(counted, den, 1.0), 0.0).sum(axis=1)
            k = counted.sum(axis=1)
            out[batch] = np.where(k > 0, 2.0 * share / k - 1.0, math.nan)
    return out


def _average_ranks_rows(levels: np.ndarray) -> np.ndarray:
    """Ranks 1..n ascending along each row, tied levels sharing their average rank."""
    rows, n = levels.shape
    order = np.argsort(levels, axis=1, kind="stable")
    sv = np.take_along_axis(levels, order, axis=1)
    new = np.ones((rows, n), dtype=bool)
    new[:, 1:] = sv[:, 1:] != sv[:, :-1]
    pos = np.broadcast_to(np.arange(n), (rows, n))
    start = np.maximum.accumulate(np.where(new, pos, 0), axis=1)
    last = np.ones((rows, n), dtype=bool)
    last[:, :-1] = new[:, 1:]
    end = np.minimum.accumulate(np.where(last, pos, n)[:, ::-1], axis=1)[:, ::-1]
    avg = (start + end) / 2.0 + 1.0
    out = np.empty((rows, n))
    np.put_along_axis(out, order, avg, axis=1)
    return out


def pearson_rows(x, y) -> np.ndarray:
    """Pearson's r of every row pair (NaN where a row is constant or has < 2 items)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape[1] < 2:
        return np.full(x.shape[0], math.nan)
    dx = x - x.mean(axis=1, keepdims=True)
    dy = y - y.mean(axis=1, keepdims=True)
    den = np.sqrt((dx * dx).sum(axis=1) * (dy * dy).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0, (dx * dy).sum(axis=1) / den, math.nan)
    return np.clip(r, -1.0, 1.0)


def spearman_rows(x, y, *, tie_tol: float = MEAN_TIE_TOL) -> np.ndarray:
    """Spearman's rho of every row pair: Pearson's r of the average ranks of `tie_levels`."""
    lx, ly = _levels_pair(x, y, tie_tol)
    return pearson_rows(_average_ranks_rows(lx), _average_ranks_rows(ly))


def _name_key(names: Sequence[str]) -> np.ndarray:
    """Each name's place in name order (the tie-break of `rank_order`)."""
    return np.argsort(np.argsort(np.asarray(list(names)).astype(str), kind="stable"), kind="stable")


def kendall_top_k_rows(names: Sequence[str], truth, judge, k: int) -> np.ndarray:
    """`kendall_top_k` of every row pair: the k best by the truth (ties by name) in each row."""
    if k < 2:
        raise ValueError("k must be at least 2")
    t, j = np.asarray(truth, dtype=np.float64), np.asarray(judge, dtype=np.float64)
    rows, n = t.shape
    if n <= k:
        return kendall_tau_b_rows(t, j)
    key = np.broadcast_to(_name_key(names), t.shape)
    top = np.lexsort((key, -tie_levels(t)), axis=-1)[:, :k]
    return kendall_tau_b_rows(np.take_along_axis(t, top, axis=1), np.take_along_axis(j, top, axis=1))


def rbo_rows(names: Sequence[str], x, y, p: float = 0.9) -> np.ndarray:
    """`rbo(rank_order(names, x[r]), rank_order(names, y[r]), p)` for every row r: two
    orderings of the same items (ties by name), so RBO_ext is
    (1-p)/p * sum_{d=1..n} X_d/d p^d + X_n/n p^n, X_d the items in both top-d prefixes."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    x, y = tie_levels(x), tie_levels(y)  # the one tie rule, as `rank_order`
    rows, n = x.shape
    if n == 0:
        return np.ones(rows)
    name_key = np.broadcast_to(_name_key(names), x.shape)

    def positions(v):
        order = np.lexsort((name_key, -v), axis=-1)  # best first, ties by name
        pos = np.empty_like(order)
        np.put_along_axis(pos, order, np.arange(1, n + 1)[None, :].repeat(rows, axis=0), axis=1)
        return pos

    seen = np.maximum(positions(x), positions(y))  # depth at which each item is in both
    counts = np.zeros((rows, n + 1))
    np.add.at(counts, (np.arange(rows)[:, None], seen), 1)
    big_x = np.cumsum(counts[:, 1:], axis=1)  # X_d, d = 1..n
    d = np.arange(1, n + 1, dtype=np.float64)
    return (1 - p) / p * (big_x / d * p**d).sum(axis=1) + big_x[:, -1] / n * p**n
