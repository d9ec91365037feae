"""Chi-square tail in numpy (no SciPy at run time) and Pearson's test of homogeneity.

The survival function of chi-square with k degrees of freedom is the regularized upper
incomplete gamma Q(k/2, x/2) (Abramowitz & Stegun 26.4.19). Q(a, x) is evaluated as
1 - P(a, x) from P's power series where x < a + 1, and from Legendre's continued fraction
for Q (modified Lentz) elsewhere, where the series would converge slowly (Press et al.,
Numerical Recipes, 3rd ed., §6.2). Checked against `scipy.stats.chi2.sf` in
tests/metrics/test_chi_square.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_EPS = 1e-16
_TINY = 1e-300
_MAX_TERMS = 10_000


def sf(x, df) -> np.ndarray:
    """P(X >= x) for X ~ chi-square(`df`) (arrays broadcast; NaN where x or df is NaN or
    df <= 0). Equals scipy.stats.chi2.sf(x, df)."""
    x = np.asarray(x, dtype=np.float64)
    df = np.asarray(df, dtype=np.float64)
    x, df = np.broadcast_arrays(x, df)
    out = np.full(x.shape, np.nan)
    ok = np.isfinite(df) & (df > 0) & ~np.isnan(x)
    out[ok & (x <= 0)] = 1.0
    out[ok & np.isposinf(x)] = 0.0
    ok &= (x > 0) & np.isfinite(x)
    if not ok.any():
        return out
    out[ok] = _upper_gamma(df[ok] / 2.0, x[ok] / 2.0)
    return out


def _upper_gamma(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Regularized upper incomplete gamma Q(a, x) for a > 0, x > 0 (finite)."""
    log_front = a * np.log(x) - x - _lgamma(a)
    out = np.empty(x.shape)
    series = x < a + 1.0
    if series.any():
        s = series
        out[s] = 1.0 - np.exp(log_front[s]) * _lower_series(a[s], x[s])
    fraction = ~series
    if fraction.any():
        f = fraction
        out[f] = np.exp(log_front[f]) * _upper_fraction(a[f], x[f])
    return np.clip(out, 0.0, 1.0)


def _lgamma(a: np.ndarray) -> np.ndarray:
    """ln Γ(a), over the few distinct a (one per degrees of freedom)."""
    values, inverse = np.unique(a, return_inverse=True)
    return np.array([math.lgamma(v) for v in values.tolist()])[np.asarray(inverse).ravel()]


def _lower_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Σ_n x^n / (a (a+1) … (a+n)): P(a, x) = x^a e^-x / Γ(a) times this."""
    term = 1.0 / a
    total = term.copy()
    ap = a.copy()
    active = np.ones(x.shape, dtype=bool)
    for _ in range(_MAX_TERMS):
        ap = ap + 1.0
        term = np.where(active, term * x / ap, 0.0)
        total += term
        active &= np.abs(term) >= np.abs(total) * _EPS
        if not active.any():
            break
    return total


def _upper_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Legendre's continued fraction: Q(a, x) = x^a e^-x / Γ(a) times this (modified
    Lentz); each element stops changing once its last factor is 1 to within _EPS."""
    b = x + 1.0 - a
    c = np.full(x.shape, 1.0 / _TINY)
    d = 1.0 / np.where(np.abs(b) < _TINY, _TINY, b)
    h = d.copy()
    active = np.ones(x.shape, dtype=bool)
    for i in range(1, _MAX_TERMS + 1):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        step = d * c
        h = np.where(active, h * step, h)
        active &= np.abs(step - 1.0) > _EPS
        if not active.any():
            break
    return h


@dataclass(frozen=True)
class ChiSquareTest:
    """Pearson's chi-square test on a table of counts: the statistic, its degrees of
    freedom, the p-value, and the smallest expected count (the usual rule of thumb wants
    every expected count >= 5 for the chi-square approximation to hold)."""

    statistic: float
    df: int
    p_value: float
    min_expected: float


def homogeneity(counts) -> ChiSquareTest:
    """Chi-square test of homogeneity of the rows of an r × c table of counts (do the rows
    come from one distribution over the columns?), without continuity correction, like
    scipy.stats.chi2_contingency(counts, correction=False). Empty rows and columns are
    dropped first; with a single row or column left there is nothing to test (statistic 0,
    df 0, p 1). An empty table has p NaN."""
    table = np.asarray(counts, dtype=np.float64)
    if table.ndim != 2:
        raise ValueError("a table of counts has two dimensions")
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    total = table.sum()
    if total == 0:
        return ChiSquareTest(float("nan"), 0, float("nan"), float("nan"))
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / total
    df = (table.shape[0] - 1) * (table.shape[1] - 1)
    if df == 0:
        return ChiSquareTest(0.0, 0, 1.0, float(expected.min()))
    statistic = float(((table - expected) ** 2 / expected).sum())
    return ChiSquareTest(statistic, df, float(sf(statistic, df)), float(expected.min()))
