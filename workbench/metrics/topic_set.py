"""Topic set size design for the paired t-test (Sakai, "Topic set size design",
Information Retrieval Journal 19, 2016), in numpy.

With n topics, per-topic differences of standard deviation sigma and a true mean difference
D, the two-sided paired t-test at level alpha rejects with probability

    power(n) = P(T' > t_c) + P(T' < -t_c),  T' ~ noncentral t(n - 1, (D / sigma) sqrt(n)),

t_c = t_{n-1}(alpha / 2) (as statsmodels' `TTestPower().power`). `topics_needed` is the
smallest whole n with power(n) >= the target (statsmodels' `solve_power` rounded up, since
power grows with n); `min_detectable` the smallest D that n topics detect at that power.

sigma comes from the user or from stored scores as Sakai does: sigma^2 = 2 V_E, V_E the
residual variance of the two-way ANOVA without replication over systems x topics
(`residual_variance`), i.e. the pooled variance of a difference between two systems.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.metrics.noncentral_t import nct_cdf, nct_sf, t_isf

__all__ = ["TopicPlan", "paired_power", "topics_needed", "topics_exact", "min_detectable",
           "residual_variance"]

MAX_TOPICS = 10_000_000


@dataclass(frozen=True)
class TopicPlan:
    topics: int
    sigma: float
    min_diff: float
    alpha: float
    power: float

    def to_json(self) -> dict:
        return {"topics": self.topics, "sigma": self.sigma, "min_diff": self.min_diff,
                "alpha": self.alpha, "power": self.power}


def _check(alpha: float, power: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha}")
    if not 0.0 < power < 1.0:
        raise ValueError(f"power must be between 0 and 1, not {power}")


def paired_power(effect: float, n: float, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t-test with n topics and effect size D / sigma."""
    if n < 2:
        return math.nan
    df = n - 1.0
    crit = t_isf(alpha / 2.0, df)
    nc = effect * math.sqrt(n)
    return nct_sf(crit, df, nc) + nct_cdf(-crit, df, nc)


def topics_needed(effect: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """The smallest number of topics (>= 2) whose paired t-test reaches `power`."""
    _check(alpha, power)
    effect = abs(effect)
    if not effect > 0 or math.isinf(effect):
        raise ValueError("the difference to detect must be a positive finite number")
    if paired_power(effect, 2, alpha) >= power:
        return 2
    lo, hi = 2, 4
    while paired_power(effect, hi, alpha) < power:
        lo, hi = hi, hi * 2
        if hi > MAX_TOPICS:
            raise ValueError(f"more than {MAX_TOPICS} topics would be needed")
    while hi - lo > 1:  # power(lo) < target <= power(hi)
        mid = (lo + hi) // 2
        if paired_power(effect, mid, alpha) >= power:
            hi = mid
        else:
            lo = mid
    return hi


def topics_exact(effect: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The real n with power(n) = target (statsmodels' unrounded solve_power)."""
    hi = float(topics_needed(effect, alpha, power))
    lo = max(hi - 1.0, 2.0)
    if paired_power(abs(effect), lo, alpha) >= power:
        return lo
    for _ in range(60):
        mid = (lo + hi) / 2.0
        if paired_power(abs(effect), mid, alpha) >= power:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2.0


def min_detectable(n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest effect size D / sigma that n topics detect with `power`."""
    _check(alpha, power)
    if n < 2:
        raise ValueError("a paired t-test needs at least 2 topics")
    lo, hi = 0.0, 1.0
    while paired_power(hi, n, alpha) < power:
        lo, hi = hi, hi * 2.0
    for _ in range(80):
        mid = (lo + hi) / 2.0
        if paired_power(mid, n, alpha) >= power:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2.0


def residual_variance(scores) -> float:
    """V_E of the two-way ANOVA without replication on a (systems x topics) matrix:
    sum of (x_ij - mean_i. - mean_.j + mean..)^2 over (m - 1)(n - 1)."""
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise ValueError("the residual variance needs at least 2 systems and 2 topics")
    resid = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    m, n = x.shape
    return float((resid * resid).sum() / ((m - 1) * (n - 1)))
