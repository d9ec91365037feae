"""Nugget scores of generated answers (docs/nuggets.md), pure numpy.

For one answer to a topic with nuggets N (V of them vital), each nugget i labelled
l_i in {2 support, 1 partial_support, 0 not_support} (an unlabelled nugget counts 0):

    s_i = 1 if l_i == 2, 0.5 if l_i == 1, else 0;  t_i = 1 if l_i == 2 else 0
    all            = sum_N s_i / |N|              all_strict      = sum_N t_i / |N|
    vital          = sum_V s_i / |V|              vital_strict    = sum_V t_i / |V|
    weighted       = sum_N w_i s_i / sum_N w_i    weighted_strict = sum_N w_i t_i / sum_N w_i
    with w_i = 1 for vital, 0.5 for okay nuggets; a topic without a vital nugget scores
    0 on vital and vital_strict (nuggetizer's calculate_nugget_scores; Pradeep et al.,
    arXiv 2411.09607 and 2504.15068).
"""

from __future__ import annotations

import numpy as np

MEASURES = ("all", "all_strict", "vital", "vital_strict", "weighted", "weighted_strict")
SUPPORT, PARTIAL, NOT_SUPPORT = 2, 1, 0
OKAY_WEIGHT = 0.5


def nugget_scores(n_systems: int, nugget_query: np.ndarray, nugget_vital: np.ndarray,
                  n_queries: int, system: np.ndarray, nugget: np.ndarray,
                  label: np.ndarray) -> dict[str, np.ndarray]:
    """Per (system, query) scores, each an (n_systems, n_queries) float64 array.

    `nugget_query[k]`, `nugget_vital[k]`: nugget k's query index and importance;
    `system`, `nugget`, `label`: one row per label (system index, nugget index, label),
    at most one per (system, nugget)."""
    nugget_query = np.asarray(nugget_query, dtype=np.int64)
    vital = np.asarray(nugget_vital, dtype=bool)
    weight = np.where(vital, 1.0, OKAY_WEIGHT)
    n_all = np.bincount(nugget_query, minlength=n_queries).astype(np.float64)
    n_vital = np.bincount(nugget_query, weights=vital.astype(np.float64), minlength=n_queries)
    w_total = np.bincount(nugget_query, weights=weight, minlength=n_queries)

    label = np.asarray(label, dtype=np.int64)
    nugget = np.asarray(nugget, dtype=np.int64)
    soft = np.where(label == SUPPORT, 1.0, np.where(label == PARTIAL, 0.5, 0.0))
    strict = (label == SUPPORT).astype(np.float64)
    cell = np.asarray(system, dtype=np.int64) * n_queries + nugget_query[nugget]
    size = n_systems * n_queries
    row_vital, row_weight = vital[nugget].astype(np.float64), weight[nugget]

    def summed(values: np.ndarray) -> np.ndarray:
        # float64 also without a label: bincount of nothing is int64 even with weights, and
        # the division below then refused to write floats into it (the lead's F10 on a
        # campaign without labels said "could not load")
        sums = np.bincount(cell, weights=values, minlength=size).astype(np.float64)
        return sums.reshape(n_systems, n_queries)

    def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        return np.divide(num, den, out=np.zeros_like(num), where=den > 0)

    return {
        "all": ratio(summed(soft), n_all),
        "all_strict": ratio(summed(strict), n_all),
        "vital": ratio(summed(soft * row_vital), n_vital),
        "vital_strict": ratio(summed(strict * row_vital), n_vital),
        "weighted": ratio(summed(soft * row_weight), w_total),
        "weighted_strict": ratio(summed(strict * row_weight), w_total),
    }


def run_means(values: np.ndarray, counted: np.ndarray) -> np.ndarray:
    """Per-system mean over the counted (system, query) cells (`counted` bool, same shape);
    NaN for a system with no counted cell."""
    n = counted.sum(axis=1)
    total = np.where(counted, values, 0.0).sum(axis=1)
    return np.divide(total, n, out=np.full(n.shape, np.nan), where=n > 0)
