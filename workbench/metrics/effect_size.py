"""The paired effect size of a difference between two systems, with its interval, in numpy.

For per-topic differences d (n topics): Cohen's d_z = mean(d) / sd(d) (sd with n - 1), and
Hedges' correction g_z = J(n - 1) d_z with J(v) = Gamma(v/2) / (sqrt(v/2) Gamma((v-1)/2))
(Hedges 1981; J ~ 1 - 3 / (4v - 1)), which removes d_z's small-sample bias.

The interval is exact under normality: t = d_z sqrt(n) follows the noncentral t with n - 1
degrees of freedom and noncentrality delta = (true d_z) sqrt(n), so the (1 - c)/2 and
(1 + c)/2 limits of delta are the values at which the observed t is the upper and lower
quantile (Steiger & Fouladi 1997, "Noncentrality interval estimation"; Cumming &
Finch 2001); divided by sqrt(n) they bound d_z, and times J they bound g_z. Each limit is
found by bisection on noncentral_t's tail, every pair of systems at once.

The mean difference's interval is Student's t: mean(d) +- t_{n-1} sd(d) / sqrt(n).
"""

from __future__ import annotations

import math

import numpy as np

from workbench.metrics.noncentral_t import normal_cdf, t_isf

__all__ = ["hedges_j", "paired_effect_sizes", "mean_diff_t_intervals"]

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(48)
_PANELS = 4


def hedges_j(df: float) -> float:
    """Hedges' exact small-sample correction J(df) (df > 1; NaN otherwise)."""
    if df <= 1:
        return math.nan
    return math.exp(math.lgamma(df / 2) - math.lgamma((df - 1) / 2)) / math.sqrt(df / 2)


def _grid(df: float):
    spread = 14.0 * math.sqrt(2.0 * df) + 60.0
    lo, hi = math.sqrt(max(df - spread, 0.0) / df), math.sqrt((df + spread) / df)
    edges = np.linspace(lo, hi, _PANELS + 1)
    half, mid = (edges[1:] - edges[:-1]) / 2, (edges[1:] + edges[:-1]) / 2
    s = (mid[:, None] + half[:, None] * _NODES).ravel()
    w = (half[:, None] * _WEIGHTS).ravel()
    h = df / 2
    with np.errstate(divide="ignore"):
        log_f = math.log(2) + h * math.log(h) - math.lgamma(h) + (df - 1) * np.log(s) - h * s * s
    return s, w * np.exp(log_f)


def _sf(x: np.ndarray, nc: np.ndarray, s: np.ndarray, w: np.ndarray) -> np.ndarray:
    """P(T' > x) for each (x, nc), one df (its grid s, w)."""
    return normal_cdf(nc[:, None] - x[:, None] * s[None, :]) @ w


def _nc_limit(t: np.ndarray, df: float, target: float) -> np.ndarray:
    """delta with P(T' > t | delta) = target, for each t (P grows with delta)."""
    s, w = _grid(df)
    lo = t - 10.0 - 2.0 * np.abs(t)
    hi = t + 10.0 + 2.0 * np.abs(t)
    for _ in range(60):
        mid = (lo + hi) / 2
        above = _sf(t, mid, s, w) > target
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
        if np.all(hi - lo <= 1e-10 * np.maximum(1.0, np.abs(mid))):
            break
    return (lo + hi) / 2


def paired_effect_sizes(d, confidence: float = 0.95):
    """(g_z, low, high) arrays for each row of d (pairs x topics, every topic paired):
    Hedges-corrected d_z and its noncentral-t interval. NaN where n < 3 or sd = 0."""
    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    pairs, n = d.shape
    nan = np.full(pairs, math.nan)
    if n < 3:
        return nan, nan.copy(), nan.copy()
    sd = d.std(axis=1, ddof=1)
    mean = d.mean(axis=1)
    ok = sd > 1e-14 * np.maximum(1.0, np.abs(mean))
    g, low, high = nan.copy(), nan.copy(), nan.copy()
    if not ok.any():
        return g, low, high
    dz = mean[ok] / sd[ok]
    df = n - 1.0
    j = hedges_j(df)
    t = dz * math.sqrt(n)
    a = (1.0 - confidence) / 2.0
    lo_nc = _nc_limit(t, df, a)        # observed t is the upper a-quantile
    hi_nc = _nc_limit(t, df, 1.0 - a)  # ... the lower one
    g[ok] = j * dz
    low[ok] = j * lo_nc / math.sqrt(n)
    high[ok] = j * hi_nc / math.sqrt(n)
    return g, low, high


def mean_diff_t_intervals(d, confidence: float = 0.95):
    """(low, high) of mean(d) for each row (Student's t); NaN where n < 2."""
    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    pairs, n = d.shape
    if n < 2:
        nan = np.full(pairs, math.nan)
        return nan, nan.copy()
    half = t_isf((1.0 - confidence) / 2.0, n - 1.0) * d.std(axis=1, ddof=1) / math.sqrt(n)
    mean = d.mean(axis=1)
    return mean - half, mean + half
