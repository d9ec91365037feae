"""Per-query sums and running sums over a flat ``Ranking`` (rows grouped by query).

A ranking's rows come grouped by query and in rank order, and ``rank`` is each row's
1-based position in its group: so each row's group starts ``rank - 1`` rows before it,
and one global running sum, less the sum before that start, is the running sum within
the query. For integer inputs this is exact; for floats the subtraction can differ from
a restarted sum in the last bits (far below the 4 printed decimals).
"""

from __future__ import annotations

import numpy as np

__all__ = ["cumsum_within", "per_query_sum", "first_rows"]


def cumsum_within(x: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Inclusive running sum of x within each query (rank: 1-based position in the query)."""
    x = np.asarray(x)
    if x.size == 0:
        return np.zeros(0, dtype=np.int64 if x.dtype.kind in "biu" else np.float64)
    dtype = np.int64 if x.dtype.kind in "biu" else np.float64
    c = np.cumsum(x, dtype=dtype)
    start = np.arange(x.size) - (np.asarray(rank, dtype=np.int64) - 1)
    return c - (c[start] - x[start].astype(dtype))


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
