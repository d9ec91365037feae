"""One grade per item from several assessors' grades: the people's majority and mean.

The consensus rules of the qrels sources (campaign/scoring/qrels.py) and of judge panels
(campaign/assessors/panels.py), as arrays: ``majority`` is the most frequent grade of the
item, a tie to the LOWER grade; ``mean`` is the mean grade rounded half up, computed in
integers (no float tie surprises). Pure numpy.
"""

from __future__ import annotations

import numpy as np

__all__ = ["combine_grades"]


def combine_grades(qi: np.ndarray, di: np.ndarray, g: np.ndarray, method: str):
    """One grade per (query id, document id) item: ``majority`` (most frequent, ties to
    the lower grade) or ``mean`` (rounded half up); items come out sorted by (qi, di)."""
    if qi.size == 0:
        return qi, di, g
    order = np.lexsort((g, di, qi))  # by item, grades ascending within it
    qi, di, g = qi[order], di[order], g[order]
    new_item = np.ones(qi.size, dtype=bool)
    new_item[1:] = (qi[1:] != qi[:-1]) | (di[1:] != di[:-1])
    starts = np.flatnonzero(new_item)
    if method == "mean":
        item = np.cumsum(new_item) - 1
        total = np.bincount(item, weights=g, minlength=starts.size).astype(np.int64)  # exact below 2**53
        n = np.diff(np.append(starts, qi.size))
        # floor(total / n + 1/2) == floor((2 * total + n) / (2 * n)), in integers
        return qi[starts], di[starts], (2 * total + n) // (2 * n)
    # runs of equal (item, grade); per item the longest run, the first (lowest grade) on ties
    new_run = new_item.copy()
    new_run[1:] |= g[1:] != g[:-1]
    run_starts = np.flatnonzero(new_run)
    run_len = np.diff(np.append(run_starts, qi.size))
    run_item = (np.cumsum(new_item) - 1)[run_starts]
    pick = np.lexsort((run_starts, -run_len, run_item))  # item, then longest, then lowest grade
    first = np.ones(pick.size, dtype=bool)
    first[1:] = run_item[pick[1:]] != run_item[pick[:-1]]
    rows = run_starts[pick[first]]
    return qi[rows], di[rows], g[rows]
