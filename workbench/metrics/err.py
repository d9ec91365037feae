"""Expected reciprocal rank (ERR@k), as gdeval computes it.

ERR@k = Σ_{i<=k} R_i / i · Π_{j<i} (1 − R_j), R_i = (2^g_i − 1) / 2^4: the probability that
the user stops at rank i, with grades on gdeval's 0–4 scale (its MAX_JUDGMENT = 4).
Chapelle, Metzler, Zhang & Grinspan (2009), "Expected reciprocal rank for graded
relevance", CIKM; gdeval.pl of the TREC Web track (ir_measures' ``ERR@k``).

Unjudged and negative grades are 0 (R = 0: gdeval reads negative grades as negative
probabilities); grades above 4 count as 4 (gdeval refuses them).
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.ranking import Ranking

__all__ = ["MAX_GRADE", "err"]

MAX_GRADE = 4  # gdeval.pl's $MAX_JUDGMENT


def err(rk: Ranking, cutoff: int | None) -> np.ndarray:
    """ERR@cutoff per query (the whole ranking when cutoff is None)."""
    rows = np.flatnonzero(rk.rel > 0)  # only positive grades stop the user
    if cutoff is not None:
        rows = rows[rk.rank[rows] <= cutoff]
    grp, rank = rk.grp[rows], rk.rank[rows]
    r = (np.exp2(np.minimum(rk.rel[rows], MAX_GRADE).astype(np.float64)) - 1.0) / 2.0 ** MAX_GRADE
    # Π_{j<i} (1 − R_j) over the positive rows above, within the query: an exclusive
    # running sum of log(1 − R) (R <= 15/16, never 1), less the sum before the query
    logs = np.log1p(-r)
    c = np.cumsum(logs)
    before = c - logs
    if rows.size:
        first = np.r_[True, grp[1:] != grp[:-1]]
        start = np.maximum.accumulate(np.where(first, np.arange(rows.size), 0))
        before -= before[start]
    return np.bincount(grp, weights=r * np.exp(before) / rank, minlength=rk.nq)
