"""Per-query sums and running sums over a flat ``Ranking`` (rows grouped by query).

A ranking's rows come grouped by query and in rank order, and ``rank`` is each row's
1-based position in its group: so each row's group starts ``rank - 1`` rows before it,
and for integers one global running sum, less the sum before that start, is the running
sum within the query. Floats are summed afresh in each query, in rank order (a global
sum less an offset would differ in the last bits with the query's place in the array,
and a run evaluated in pieces must give the numbers of the whole run).
"""

from __future__ import annotations

import numpy as np

__all__ = ["cumsum_within", "per_query_sum", "first_rows"]


def cumsum_within(x: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Inclusive running sum of x within each query (rank: 1-based position in the query)."""
    x = np.asarray(x)
    if x.size == 0:
        return np.zeros(0, dtype=np.int64 if x.dtype.kind in "biu" else np.float64)
    rank = np.asarray(rank, dtype=np.int64)
    if x.dtype.kind in "biu":
        c = np.cumsum(x, dtype=np.int64)
        start = np.arange(x.size) - (rank - 1)
        return c - (c[start] - x[start].astype(np.int64))
    return _restarted_cumsum(x.astype(np.float64, copy=False), rank)


def _restarted_cumsum(x: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Running sums that restart at each query: one step per rank across all queries, or
    one cumsum per query, whichever needs fewer numpy calls (both add in rank order)."""
    starts = np.flatnonzero(rank == 1)
    top = int(rank.max())
    if starts.size <= top:
        return np.concatenate([np.cumsum(part) for part in np.split(x, starts[1:])])
    out = np.empty_like(x)
    order = np.argsort(rank, kind="stable")  # rows by rank; within a rank, by query
    bounds = np.searchsorted(rank[order], np.arange(1, top + 2))
    seg = np.cumsum(rank == 1) - 1  # each row's query (its segment)
    acc = np.zeros(starts.size)
    for r in range(top):
        rows = order[bounds[r]:bounds[r + 1]]
        acc[seg[rows]] += x[rows]
        out[rows] = acc[seg[rows]]
    return out


def per_query_sum(grp: np.ndarray, weights, nq: int, mask: np.ndarray | None = None) -> np.ndarray:
    """Sum of weights (an array or a scalar per row) over each query's rows (float64, length nq)."""
    if mask is not None:
        grp = grp[mask]
        if not np.isscalar(weights):
            weights = np.asarray(weights)[mask]
    if np.isscalar(weights):
        return np.bincount(grp, minlength=nq).astype(np.float64) * float(weights)
    # astype: bincount of no rows returns integers even with weights
    return np.bincount(grp, weights=weights, minlength=nq).astype(np.float64, copy=False)


def first_rows(rank: np.ndarray) -> np.ndarray:
    """Positions of each query's first row."""
    return np.flatnonzero(np.asarray(rank) == 1)
