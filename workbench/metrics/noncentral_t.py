"""Student's t quantiles and the noncentral t distribution in numpy (no SciPy at run time).

- `t_isf(p, df)`: the upper-tail quantile of Student's t (scipy's `t.isf`), by bisection on
  `student_t.two_sided_p`, refined to the last few bits.
- `nct_sf(x, df, nc)`: P(T' > x) for T' = (Z + nc) / S, Z standard normal and
  S = sqrt(chi2_df / df) independent. Conditioning on S gives
  P(T' > x) = E_S[ Phi(nc - x S) ] (the definition, e.g. Johnson, Kotz & Balakrishnan,
  Continuous Univariate Distributions 2, ch. 31), a one-dimensional integral over the
  density of S, evaluated here by Gauss-Legendre quadrature on the range where that density
  is not negligible (accurate to ~1e-10 against `scipy.stats.nct.sf`,
  tests/metrics/test_noncentral_t.py).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from workbench.metrics.student_t import two_sided_p

__all__ = ["t_isf", "normal_cdf", "normal_isf", "nct_sf", "nct_cdf"]

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(160)
_PANELS = 8
_erfc = np.frompyfunc(math.erfc, 1, 1)


def normal_cdf(x) -> np.ndarray:
    """Phi(x), elementwise (erfc keeps the lower tail accurate)."""
    x = np.asarray(x, dtype=np.float64)
    return np.asarray(0.5 * _erfc(-x / math.sqrt(2.0)), dtype=np.float64)


def normal_isf(p: float) -> float:
    """z with P(Z > z) = p."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(1.0 - p)


def _t_pdf(t: float, df: float) -> float:
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(log_c - (df + 1) / 2 * math.log1p(t * t / df))


@lru_cache(maxsize=4096)
def t_isf(p: float, df: float) -> float:
    """t with P(T > t) = p for Student's t with `df` degrees of freedom (0 < p < 1):
    Newton's method on the two-sided tail, kept inside a shrinking bracket."""
    if not 0.0 < p < 1.0 or not df > 0:
        return math.nan
    if p == 0.5:
        return 0.0
    if p > 0.5:
        return -t_isf(1.0 - p, df)
    target = 2.0 * p  # two-sided probability of |T| >= t
    log_target = math.log(target)
    lo, hi = 0.0, math.inf
    t = normal_isf(p)
    for _ in range(200):
        tail = float(two_sided_p(t, df))
        if tail == target:
            return t
        if tail > target:
            lo = t
        else:
            hi = t
        if tail <= 0.0:  # beyond the representable tail: step back
            nxt = 0.5 * (lo + t)
        else:  # Newton on log tail: d/dt log P(|T| >= t) = -2 pdf(t) / tail
            nxt = t + (math.log(tail) - log_target) * tail / (2.0 * _t_pdf(t, df))
        if not lo < nxt < hi:
            nxt = 0.5 * (lo + hi) if math.isfinite(hi) else 2.0 * max(t, 1.0)
        if abs(nxt - t) <= 4e-16 * max(1.0, abs(t)):
            return nxt
        t = nxt
    return t


def _s_grid(df: float) -> tuple[np.ndarray, np.ndarray]:
    """Quadrature nodes on S = sqrt(chi2_df / df) and their weights times S's density."""
    # chi2_df spans df +- 14 sd (sd = sqrt(2 df)) plus room for small df
    spread = 14.0 * math.sqrt(2.0 * df) + 60.0
    lo = math.sqrt(max(df - spread, 0.0) / df)
    hi = math.sqrt((df + spread) / df)
    edges = np.linspace(lo, hi, _PANELS + 1)
    half = (edges[1:] - edges[:-1]) / 2.0
    mid = (edges[1:] + edges[:-1]) / 2.0
    s = (mid[:, None] + half[:, None] * _NODES[None, :]).ravel()
    w = (half[:, None] * _WEIGHTS[None, :]).ravel()
    h = df / 2.0
    with np.errstate(divide="ignore"):
        log_f = (math.log(2.0) + h * math.log(h) - math.lgamma(h)
                 + (df - 1.0) * np.log(s) - h * s * s)
    return s, w * np.exp(log_f)


def nct_sf(x: float, df: float, nc: float) -> float:
    """P(T' > x) for the noncentral t with `df` degrees of freedom and noncentrality nc."""
    if not df > 0 or math.isnan(x) or math.isnan(nc):
        return math.nan
    if math.isinf(x):
        return 0.0 if x > 0 else 1.0
    s, w = _s_grid(float(df))
    return float(np.clip(np.dot(w, normal_cdf(nc - x * s)), 0.0, 1.0))


def nct_cdf(x: float, df: float, nc: float) -> float:
    """P(T' <= x); computed as the upper tail of -T' (noncentrality -nc) to keep accuracy."""
    return nct_sf(-x, df, -nc)
