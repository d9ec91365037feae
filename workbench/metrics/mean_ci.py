"""Confidence intervals of each system's mean score over topics, in numpy.

Input: a (systems x topics) matrix of per-topic values and a same-shaped mask of which
topics each system was scored on.

- `t_intervals`: mean +- t_{n-1}((1 - c) / 2) * sd / sqrt(n) (Student's t interval, as
  `scipy.stats.t.interval(c, n - 1, loc=mean, scale=sem)`).
- `bootstrap_intervals`: the percentile bootstrap over topics (Efron & Tibshirani 1993,
  ch. 13): topics are resampled with replacement B times and the (1 - c)/2 and (1 + c)/2
  quantiles of the resampled means taken. Seeded. Every system scored on the same topics
  shares one resampling: the draws become a (B x topics) matrix of how often each topic was
  drawn, and all systems' resampled means are one matrix product (systems x topics) @
  (topics x B). Systems with a different set of topics are resampled per set, each from the
  same seed.

Both give NaN where a system has fewer than 2 topics.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.metrics.noncentral_t import t_isf

__all__ = ["t_intervals", "bootstrap_intervals", "resample_counts_matrix", "DEFAULT_RESAMPLES"]

DEFAULT_RESAMPLES = 10_000
_BATCH_CELLS = 2_000_000  # resamples x topics per batch


def _check(values, present, confidence):
    x = np.asarray(values, dtype=np.float64)
    if x.ndim == 1:
        x = x[None, :]
    mask = np.ones(x.shape, dtype=bool) if present is None else np.asarray(present, dtype=bool)
    if mask.ndim == 1:
        mask = mask[None, :]
    if mask.shape != x.shape:
        raise ValueError("values and present differ in shape")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be between 0 and 1")
    return x, mask


def t_intervals(values, present=None, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) per system: Student's t interval of its mean over its topics."""
    x, mask = _check(values, present, confidence)
    n = mask.sum(axis=1)
    low, high = np.full(n.shape, math.nan), np.full(n.shape, math.nan)
    for i in np.flatnonzero(n >= 2).tolist():
        v = x[i, mask[i]]
        mean = v.mean()
        half = t_isf((1.0 - confidence) / 2.0, float(n[i] - 1)) * v.std(ddof=1) / math.sqrt(n[i])
        low[i], high[i] = mean - half, mean + half
    return low, high


def resample_counts_matrix(n: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(resamples x n) float matrix: how often each of n topics is drawn in each resample."""
    idx = rng.integers(0, n, size=(resamples, n))
    flat = idx + (np.arange(resamples) * n)[:, None]
    return np.bincount(flat.ravel(), minlength=resamples * n).reshape(resamples, n).astype(np.float64)


def bootstrap_intervals(values, present=None, confidence: float = 0.95,
                        resamples: int = DEFAULT_RESAMPLES, seed: int = 0
                        ) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) per system: the seeded percentile bootstrap of its mean over its topics."""
    x, mask = _check(values, present, confidence)
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    low, high = np.full(x.shape[0], math.nan), np.full(x.shape[0], math.nan)
    if x.shape[0] == 0:
        return low, high
    patterns, group = np.unique(mask, axis=0, return_inverse=True)
    group = np.asarray(group).ravel()
    qs = [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0]
    for g, pattern in enumerate(patterns):
        n = int(pattern.sum())
        if n < 2:
            continue
        rows = np.flatnonzero(group == g)
        sub = x[np.ix_(rows, np.flatnonzero(pattern))]  # (systems x n)
        rng = np.random.default_rng(seed)
        means = np.empty((rows.size, resamples))
        size = max(1, _BATCH_CELLS // n)
        for start in range(0, resamples, size):
            b = min(size, resamples - start)
            counts = resample_counts_matrix(n, b, rng)
            means[:, start:start + b] = sub @ counts.T / n
        lo, hi = np.quantile(means, qs, axis=1)
        low[rows], high[rows] = lo, hi
    return low, high
