"""Uncertainty of agreement: 95 % confidence intervals of kappa and alpha.

- Cohen's kappa: the large-sample standard error of Fleiss, Cohen & Everitt ("Large sample
  standard errors of kappa and weighted kappa", Psychological Bulletin 72, 1969), interval
  kappa +- z * SE (as statsmodels' `cohens_kappa` gives it).
- Fleiss' kappa and Krippendorff's alpha: the percentile bootstrap over items (Hayes &
  Krippendorff, "Answering the call for a standard reliability measure for coding data",
  Communication Methods and Measures 1, 2007): items are resampled with replacement, the
  coefficient recomputed, and the (1-c)/2 and (1+c)/2 quantiles taken. Seeded; vectorised
  over resamples (each resample is a row of item weights).

An interval of fewer than SMALL_N items is wide and unreliable: callers warn about it.
Undefined coefficients give (NaN, NaN).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from workbench.metrics.agreement import delta2, unit_counts, confusion_matrix

SMALL_N = 30  # fewer common items than this: say the interval is unreliable
RESAMPLES = 1000
_CHUNK_CELLS = 4_000_000  # resample weights per batch (resamples x items)

__all__ = ["SMALL_N", "RESAMPLES", "bootstrap_intervals", "cohen_kappa_ci", "fleiss_kappa_ci",
           "group_resamples", "krippendorff_alpha_ci", "percentile_interval", "resample_counts"]


def cohen_kappa_ci(a, b, confidence: float = 0.95, *, categories=None) -> tuple[float, float]:
    """(low, high) of Cohen's kappa: kappa +- z * ASE (Fleiss, Cohen & Everitt 1969)."""
    table, _ = confusion_matrix(a, b, categories)
    n = table.sum()
    if n == 0:
        return math.nan, math.nan
    p = table / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    pe = float(np.dot(rows, cols))
    if pe >= 1.0:
        return math.nan, math.nan
    kappa = (float(np.trace(p)) - pe) / (1 - pe)
    term_a = float((np.diag(p) * (1 - (rows + cols) * (1 - kappa)) ** 2).sum())
    off = p * (cols[:, None] + rows[None, :]) ** 2
    np.fill_diagonal(off, 0.0)
    term_b = (1 - kappa) ** 2 * float(off.sum())
    term_c = (kappa - pe * (1 - kappa)) ** 2
    var = (term_a + term_b - term_c) / (1 - pe) ** 2 / n
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    se = math.sqrt(max(var, 0.0))
    return kappa - z * se, kappa + z * se


def _weights(n_items: int, resamples: int, seed: int):
    """Batches of bootstrap weights: how often each item is drawn in each resample."""
    rng = np.random.default_rng(seed)
    size = max(1, _CHUNK_CELLS // max(n_items, 1))
    for start in range(0, resamples, size):
        b = min(size, resamples - start)
        idx = rng.integers(0, n_items, size=(b, n_items))
        idx += np.arange(b)[:, None] * n_items  # one bincount for the whole batch
        yield np.bincount(idx.ravel(), minlength=b * n_items).reshape(b, n_items).astype(np.float64)


def resample_counts(n_items: int, resamples: int = RESAMPLES, seed: int = 0) -> np.ndarray:
    """(resamples x n_items) bootstrap weights: how often each item is drawn in each
    resample of n_items drawn with replacement (for small n: queries, systems)."""
    if n_items == 0:
        return np.zeros((resamples, 0))
    return np.concatenate(list(_weights(n_items, resamples, seed)))


def group_resamples(sizes, resamples: int = RESAMPLES, seed: int = 0, strata=None) -> np.ndarray:
    """(resamples x groups) counts of a bootstrap over items that fall into a few groups
    of interchangeable items (e.g. the cells of a confusion table): drawing n items with
    replacement is drawing multinomial(n, sizes / n) group counts, whatever n is. With
    `strata` (one label per group) each stratum is resampled on its own, keeping its size
    (the bootstrap of a stratified sample)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    rng = np.random.default_rng(seed)
    out = np.zeros((resamples, sizes.size))
    labels = np.zeros(sizes.size, np.int64) if strata is None else np.asarray(strata)
    for label in np.unique(labels).tolist():
        cols = np.flatnonzero(labels == label)
        n = int(sizes[cols].sum())
        if n:
            out[:, cols] = rng.multinomial(n, sizes[cols] / n, size=resamples)
    return out


def percentile_interval(values, confidence: float = 0.95) -> tuple[float, float]:
    """The percentile bootstrap interval of resampled values (NaNs left out)."""
    return _percentiles(np.asarray(values, dtype=np.float64), confidence)


def _percentiles(values: np.ndarray, confidence: float) -> tuple[float, float]:
    values = values[~np.isnan(values)]
    if values.size == 0:
        return math.nan, math.nan
    lo, hi = np.quantile(values, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(lo), float(hi)


def fleiss_kappa_ci(labels, confidence: float = 0.95, *, resamples: int = RESAMPLES, seed: int = 0,
                    categories=None) -> tuple[float, float]:
    """(low, high) of Fleiss' kappa by the percentile bootstrap over items."""
    return bootstrap_intervals(labels, (), confidence, resamples=resamples, seed=seed,
                               categories=categories)["fleiss_kappa"]


def krippendorff_alpha_ci(labels, level: str = "nominal", confidence: float = 0.95, *,
                          resamples: int = RESAMPLES, seed: int = 0, categories=None) -> tuple[float, float]:
    """(low, high) of Krippendorff's alpha by the percentile bootstrap over items (Hayes &
    Krippendorff 2007 resample units; this draws whole items with replacement)."""
    return bootstrap_intervals(labels, (level,), confidence, resamples=resamples, seed=seed,
                               categories=categories)[f"krippendorff_alpha_{level}"]


def bootstrap_intervals(labels, levels=("nominal", "ordinal", "interval"), confidence: float = 0.95, *,
                        resamples: int = RESAMPLES, seed: int = 0, categories=None) -> dict:
    """Fleiss' kappa's and alpha's intervals at `levels` from ONE set of resamples (the
    weights are most of the cost): {"fleiss_kappa": (lo, hi), "krippendorff_alpha_<level>":
    (lo, hi)}. Both coefficients use the items with two labels or more."""
    counts, cats = unit_counts(labels, categories)
    counts = counts.astype(np.float64)
    n_i = counts.sum(axis=1)
    keep = n_i >= 2
    counts, n_i = counts[keep], n_i[keep]
    nan = (math.nan, math.nan)
    out = {"fleiss_kappa": nan, **{f"krippendorff_alpha_{lv}": nan for lv in levels}}
    if counts.shape[0] == 0 or counts.shape[1] < 1:
        return out
    k = counts.shape[1]
    p_i = (counts * (counts - 1)).sum(axis=1) / (n_i * (n_i - 1))
    inv = 1.0 / (n_i - 1)
    # each item's contribution to the coincidence matrix, flattened (items x k*k)
    per_item = ((counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(k))
                * inv[:, None, None]).reshape(-1, k * k)
    fleiss, alphas = [], {lv: [] for lv in levels}
    for w in _weights(counts.shape[0], resamples, seed):
        p_bar = (w @ p_i) / w.sum(axis=1)
        p_j = (w @ counts) / (w @ n_i)[:, None]
        p_e = (p_j**2).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            fleiss.append(np.where(p_e < 1, (p_bar - p_e) / (1 - p_e), np.nan))
        if levels:
            for o in (w @ per_item).reshape(-1, k, k):  # k is small: one k x k step per resample
                n_c = o.sum(axis=1)
                n = n_c.sum()
                for lv in levels:
                    d2 = delta2(cats, n_c, lv)
                    d_e = float((np.outer(n_c, n_c) * d2).sum()) / (n - 1) if n > 1 else 0.0
                    alphas[lv].append(1.0 - float((o * d2).sum()) / d_e if d_e > 0 else math.nan)
    out["fleiss_kappa"] = _percentiles(np.concatenate(fleiss), confidence)
    for lv in levels:
        out[f"krippendorff_alpha_{lv}"] = _percentiles(np.asarray(alphas[lv]), confidence)
    return out
