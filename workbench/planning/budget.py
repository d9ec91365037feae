"""Spreading a total judging budget over queries: the one rule shared by the simulation
(simulate.py) and the stored campaign's pool (campaign/pooling/plan.py)."""

from __future__ import annotations

import numpy as np


def shares(budget: int, n_queries: int) -> np.ndarray:
    """Judgments per query for a total budget: equal shares, the remainder one each to the
    first queries (in the caller's order: byte order of the query ids)."""
    if n_queries == 0:
        return np.zeros(0, dtype=np.int64)
    base, extra = divmod(max(budget, 0), n_queries)
    return np.full(n_queries, base, dtype=np.int64) + (np.arange(n_queries) < extra)
