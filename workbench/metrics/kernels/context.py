"""The per-(ranking, level) context every kernel takes: ``kernel(ctx, measure)``.

A ``Context`` holds the qrels index, the flat ranking, the relevance level and the
intermediate arrays several kernels share (relevant rows, running counts, AP terms),
computed once. Each query's rows are contiguous and in rank order; "within query"
cumulative counts come from one global ``cumsum`` minus the count at the start of each
query, and per-query sums from one ``bincount`` (which adds in row order, as trec_eval's
loops do).
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.qrels_index import QrelsIndex, _ranks, _run_starts
from workbench.metrics.ranking import Ranking

__all__ = ["Context", "INFAP_EPSILON", "MIN_GEO_MEAN", "safe_div"]

MIN_GEO_MEAN = 1e-5  # trec_eval.h
INFAP_EPSILON = 1e-5  # trec_eval.h


class Context:
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


def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out
