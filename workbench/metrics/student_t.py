"""Student's t two-sided tail probability in numpy (no SciPy at run time).

p = P(|T| >= |t|) for T ~ t(df) is the regularized incomplete beta I_x(df/2, 1/2) with
x = df / (df + t²) (Abramowitz & Stegun 26.7.1 with 26.5.27). I_x(a, b) is evaluated by
its continued fraction (A&S 26.5.8) with the modified Lentz method (Press et al.,
Numerical Recipes, 3rd ed., §6.4), using the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where
the fraction converges slowly. Accurate to a few units in the last place against
`scipy.special.stdtr` (tests/metrics/test_student_t.py); importing SciPy cost `compare` a
fifth of a second of start-up.
"""

from __future__ import annotations

import math

import numpy as np

_EPS = 1e-16
_TINY = 1e-300
_MAX_TERMS = 500


def two_sided_p(t, df) -> np.ndarray:
    """P(|T| >= |t|) for Student's t with `df` degrees of freedom (arrays broadcast;
    NaN where t or df is NaN or df <= 0). Equals 2 * scipy.special.stdtr(df, -|t|)."""
    t = np.abs(np.asarray(t, dtype=np.float64))
    df = np.asarray(df, dtype=np.float64)
    t, df = np.broadcast_arrays(t, df)
    out = np.full(t.shape, np.nan)
    ok = np.isfinite(df) & (df > 0) & ~np.isnan(t)
    inf = ok & np.isinf(t)
    out[inf] = 0.0
    ok &= ~inf
    if not ok.any():
        return out
    tt, nu = t[ok], df[ok]
    t2 = tt * tt
    x = nu / (nu + t2)  # and 1 - x, computed without cancellation
    y = t2 / (nu + t2)
    with np.errstate(divide="ignore"):
        log_x = -np.log1p(t2 / nu)
        log_y = np.log(y)
    out[ok] = _betainc(nu / 2.0, x, y, log_x, log_y)
    return out


def _betainc(a: np.ndarray, x: np.ndarray, y: np.ndarray, log_x: np.ndarray,
             log_y: np.ndarray) -> np.ndarray:
    """Regularized incomplete beta I_x(a, 1/2), y = 1 - x and the logs given separately
    (each without cancellation)."""
    b = np.full(a.shape, 0.5)
    out = np.empty(x.shape)
    direct = x < (a + 1.0) / (a + b + 2.0)
    log_front = a * log_x + b * log_y - _log_beta_half(a)
    front = np.exp(log_front)
    d = direct
    if d.any():
        out[d] = front[d] * _continued_fraction(a[d], b[d], x[d]) / a[d]
    r = ~direct
    if r.any():
        out[r] = 1.0 - front[r] * _continued_fraction(b[r], a[r], y[r]) / b[r]
    return np.clip(out, 0.0, 1.0)


def _log_beta_half(a: np.ndarray) -> np.ndarray:
    """ln B(a, 1/2) = lgamma(1/2) + lgamma(a) - lgamma(a + 1/2), over the few distinct a
    (one per degrees of freedom)."""
    values, inverse = np.unique(a, return_inverse=True)
    out = np.array([_lgamma_half_gap(v) for v in values.tolist()])
    return math.lgamma(0.5) + out[np.asarray(inverse).ravel()]


def _lgamma_half_gap(a: float) -> float:
    """lgamma(a) - lgamma(a + 1/2). For large a the two lgammas agree in their leading
    digits, so their difference comes from Stirling's series instead (the (z - 1/2) ln z - z
    terms subtract exactly; S is the series' tail, A&S 6.1.41)."""
    if a < 20.0:
        return math.lgamma(a) - math.lgamma(a + 0.5)

    def tail(z: float) -> float:
        z2 = z * z
        return (1 / 12 - (1 / 360 - (1 / 1260 - 1 / (1680 * z2)) / z2) / z2) / z

    return -a * math.log1p(0.5 / a) - 0.5 * math.log(a) + 0.5 + tail(a) - tail(a + 0.5)


def _continued_fraction(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The continued fraction of I_x(a, b) (modified Lentz), every element at once; each
    stops changing once its last factor is 1 to within _EPS."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
    h = d.copy()
    active = np.ones(x.shape, dtype=bool)
    for m in range(1, _MAX_TERMS + 1):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
            c = 1.0 + aa / c
            c = np.where(np.abs(c) < _TINY, _TINY, c)
            step = d * c
            h = np.where(active, h * step, h)
        active &= np.abs(step - 1.0) > _EPS
        if not active.any():
            break
    return h
