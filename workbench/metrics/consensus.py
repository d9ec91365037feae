"""One grade per item from several assessors' grades: the people's majority and mean.

The consensus rules of the qrels sources (campaign/scoring/qrels.py) and of judge panels
(campaign/assessors/panels.py), as arrays: ``majority`` is the most frequent grade of the
item, a tie to the LOWER grade; ``mean`` is the mean grade rounded half up, computed in
integers (no float tie surprises). Pure numpy.

A negative grade is trec_eval's "in the pool, unjudged" (a qrels file's; `import qrels`
stores it as written): it is no vote. An item with any other grade is combined from those;
an item with negative grades only keeps one (the majority of them), so that a source that
is one assessor's file gives that file back.
"""

from __future__ import annotations

import numpy as np

__all__ = ["combine_grades"]


def combine_grades(qi: np.ndarray, di: np.ndarray, g: np.ndarray, method: str):
    """One grade per (query id, document id) item: ``majority`` (most frequent, ties to
    the lower grade) or ``mean`` (rounded half up); items come out sorted by (qi, di).
    Negative grades (unjudged) are no votes; an item with negative grades only keeps one."""
    unjudged = np.asarray(g) < 0
    if qi.size == 0 or not unjudged.any():
        return _combine(qi, di, g, method)
    jq, jd, jg = _combine(qi[~unjudged], di[~unjudged], g[~unjudged], method)
    uq, ud, ug = _combine(qi[unjudged], di[unjudged], g[unjudged], "majority")
    if jq.size:  # an item with a grade besides its negative ones is the grade's
        width = int(max(jd.max(), ud.max())) + 1
        keys = jq * width + jd
        at = np.minimum(np.searchsorted(keys, uq * width + ud), keys.size - 1)
        only = keys[at] != uq * width + ud
        uq, ud, ug = uq[only], ud[only], ug[only]
    qi, di, g = np.concatenate((jq, uq)), np.concatenate((jd, ud)), np.concatenate((jg, ug))
    order = np.lexsort((di, qi))
    return qi[order], di[order], g[order]


def _combine(qi: np.ndarray, di: np.ndarray, g: np.ndarray, method: str):
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
