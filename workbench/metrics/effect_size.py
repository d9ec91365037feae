"""The paired effect size of a difference between two systems, with its interval, in numpy.

For per-topic differences d (n topics): Cohen's d_z = mean(d) / sd(d) (sd with n - 1), and
Hedges' correction g_z = J(n - 1) d_z with J(v) = Gamma(v/2) / (sqrt(v/2) Gamma((v-1)/2))
(Hedges 1981; J ~ 1 - 3 / (4v - 1)), which removes d_z's small-sample bias.

The interval is exact under normality: t = d_z sqrt(n) follows the noncentral t with n - 1
degrees of freedom and noncentrality delta = (true d_z) sqrt(n), so the (1 - c)/2 and
(1 + c)/2 limits of delta are the values at which the observed t is the upper and lower
quantile (Steiger & Fouladi 1997, "Noncentrality interval estimation"; Cumming &
Finch 2001); divided by sqrt(n) they bound d_z, and times J they bound g_z. Each limit is
found by regula falsi (Illinois) on the noncentral t's tail, every pair of systems at once.

The mean difference's interval is Student's t: mean(d) +- t_{n-1} sd(d) / sqrt(n).
"""

from __future__ import annotations

import math

import numpy as np

from workbench.metrics.noncentral_t import normal_cdf, normal_isf, t_isf

__all__ = ["hedges_j", "paired_effect_sizes", "mean_diff_t_intervals"]

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(24)
_PANELS = 3


def hedges_j(df: float) -> float:
    """Hedges' exact small-sample correction J(df) (df > 1; NaN otherwise)."""
    if df <= 1:
        return math.nan
    return math.exp(math.lgamma(df / 2) - math.lgamma((df - 1) / 2)) / math.sqrt(df / 2)


def _grid(df: float, steepest: float = 0.0):
    """Nodes and weights over S's range; more panels where Phi(nc - t S) changes fast in S
    (a large |t|: its step is about 1 / |t| wide)."""
    spread = 14.0 * math.sqrt(2.0 * df) + 60.0
    lo, hi = math.sqrt(max(df - spread, 0.0) / df), math.sqrt((df + spread) / df)
    panels = int(min(max(_PANELS, math.ceil((hi - lo) * steepest / 2.0)), 200))
    edges = np.linspace(lo, hi, panels + 1)
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
    """delta with P(T' > t | delta) = target, for each t: the t of similar size share one
    quadrature grid (a large |t| needs a finer one), each group solved at once."""
    out = np.empty(t.shape)
    need = np.maximum(np.abs(t), 1.0)
    bucket = np.ceil(np.log2(need)).astype(np.int64)
    for b in np.unique(bucket).tolist():
        rows = np.flatnonzero(bucket == b)
        out[rows] = _nc_limit_group(t[rows], df, target, 2.0 ** b)
    return out


def _nc_limit_group(t: np.ndarray, df: float, target: float, steepest: float) -> np.ndarray:
    """delta with P(T' > t | delta) = target, for each t (P grows with delta): the Illinois
    variant of regula falsi inside a bracket, every t at once."""
    s, w = _grid(df, steepest)
    # the normal approximation delta ~ t -+ z sqrt(1 + t^2 / (2 df)) starts a narrow bracket,
    # widened until it holds the root
    z = normal_isf(1.0 - target) if target != 0.5 else 0.0
    spread = np.sqrt(1.0 + t * t / (2.0 * df))
    guess = t + z * spread
    lo, hi = guess - 0.5 * spread - 0.1, guess + 0.5 * spread + 0.1
    f_lo = _sf(t, lo, s, w) - target
    f_hi = _sf(t, hi, s, w) - target
    for _ in range(60):
        bad_lo, bad_hi = f_lo > 0, f_hi < 0
        if not (bad_lo.any() or bad_hi.any()):
            break
        width = hi - lo
        lo = np.where(bad_lo, lo - 2 * width, lo)
        hi = np.where(bad_hi, hi + 2 * width, hi)
        if bad_lo.any():
            f_lo = np.where(bad_lo, _sf(t, lo, s, w) - target, f_lo)
        if bad_hi.any():
            f_hi = np.where(bad_hi, _sf(t, hi, s, w) - target, f_hi)
    side = np.zeros(t.shape, dtype=np.int8)
    x = (lo + hi) / 2
    for it in range(100):
        prev = x
        denom = f_hi - f_lo
        x = np.where(denom != 0, hi - f_hi * (hi - lo) / np.where(denom != 0, denom, 1.0),
                     (lo + hi) / 2)
        fx = _sf(t, x, s, w) - target
        up = fx > 0
        # the new point replaces the end with the same sign; Illinois halves the other end's
        # value when the same end is kept twice in a row
        hi, f_hi = np.where(up, x, hi), np.where(up, fx, f_hi)
        lo, f_lo = np.where(up, lo, x), np.where(up, f_lo, fx)
        f_lo = np.where(up & (side == 1), f_lo / 2, f_lo)
        f_hi = np.where(~up & (side == -1), f_hi / 2, f_hi)
        side = np.where(up, 1, -1).astype(np.int8)
        if np.all((np.abs(fx) <= 1e-14) | (np.abs(x - prev) <= 1e-11 * np.maximum(1.0, np.abs(x)))):
            break
    return x


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
