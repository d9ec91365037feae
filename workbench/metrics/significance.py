"""Significance of the difference between two systems scored on the same queries.

Every test takes two paired per-query score vectors `a` and `b` (same queries, same order)
and works on the differences d = a - b. All tests are two-sided. Random ones are seeded, so
the same call gives the same p-value, and are vectorised in batches of resamples (a
(batch x queries) matrix at a time) to bound memory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.metrics.student_t import two_sided_p

__all__ = [
    "TestResult",
    "paired_t_test",
    "paired_t_tests",
    "randomization_test",
    "bootstrap_test",
    "bootstrap_ci",
    "holm",
    "TESTS",
    "run_test",
]

DEFAULT_PERMUTATIONS = 10_000
DEFAULT_RESAMPLES = 10_000
_BATCH_CELLS = 4_000_000  # resamples x queries per batch (~32 MB of float64)


@dataclass(frozen=True)
class TestResult:
    """`mean_diff` = mean(a - b); `p_value` two-sided; `low`/`high` a confidence interval
    of the mean difference when the test gives one (bootstrap), else NaN."""

    __test__ = False  # not a pytest class

    test: str
    n: int
    mean_diff: float
    statistic: float
    p_value: float
    low: float = math.nan
    high: float = math.nan


def _diffs(a, b) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired scores differ in length ({a.size} vs {b.size})")
    if a.size == 0:
        raise ValueError("no paired scores")
    return a - b


def paired_t_test(a, b) -> TestResult:
    """Student's paired t-test: t = mean(d) / (sd(d) / sqrt(n)), n - 1 degrees of freedom
    (as `scipy.stats.ttest_rel`). Where scipy gives NaN because every difference is the
    same, this says what the data say: all zero -> p = 1, all equal and non-zero -> p = 0.
    One query -> NaN."""
    d = _diffs(a, b)
    n = d.size
    mean = float(d.mean())
    if n < 2:
        return TestResult("t", n, mean, math.nan, math.nan)
    sd = float(d.std(ddof=1))
    if sd == 0.0 or sd <= 1e-14 * max(1.0, abs(mean)):
        if mean == 0.0:
            return TestResult("t", n, mean, 0.0, 1.0)
        return TestResult("t", n, mean, math.copysign(math.inf, mean), 0.0)
    t = mean / (sd / math.sqrt(n))
    p = float(two_sided_p(t, n - 1))
    return TestResult("t", n, mean, t, min(p, 1.0))


def paired_t_tests(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    """`paired_t_test` of every row pair at once: a and b are (pairs x queries) with every
    query paired. Returns (mean difference, t, p) arrays, each value equal to what
    `paired_t_test(a[i], b[i])` gives (the same reductions over the same order)."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    pairs, n = d.shape
    mean = d.mean(axis=1)
    if n < 2:
        nan = np.full(pairs, math.nan)
        return mean, nan, nan.copy()
    sd = d.std(axis=1, ddof=1)
    flat = (sd == 0.0) | (sd <= 1e-14 * np.maximum(1.0, np.abs(mean)))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / math.sqrt(n))
    p = np.minimum(two_sided_p(t, n - 1), 1.0)
    t = np.where(flat, np.where(mean == 0.0, 0.0, np.copysign(math.inf, mean)), t)
    p = np.where(flat, np.where(mean == 0.0, 1.0, 0.0), p)
    return mean, t, p


def _batches(total: int, n: int):
    size = max(1, _BATCH_CELLS // max(n, 1))
    for start in range(0, total, size):
        yield min(size, total - start)


def randomization_test(
    a, b, n_permutations: int = DEFAULT_PERMUTATIONS, seed: int = 0
) -> TestResult:
    """Fisher's paired randomization (permutation) test, two-sided.

    Under the null hypothesis the labels "a" and "b" of each query are exchangeable, so
    each difference keeps or flips its sign at random. p = (k + 1) / (N + 1), where k of N
    random sign-flip patterns give |mean| >= the observed |mean| (Phipson & Smyth 2010: never
    0, valid for a Monte Carlo test). Seeded; `n_permutations` sign patterns, batched.
    """
    d = _diffs(a, b)
    n = d.size
    observed = abs(float(d.mean()))
    rng = np.random.default_rng(seed)
    tolerance = 1e-12 * max(1.0, observed)  # float noise must not decide "as extreme"
    hits = 0
    for size in _batches(n_permutations, n):
        signs = rng.integers(0, 2, size=(size, n), dtype=np.int8) * 2 - 1
        means = np.abs(signs @ d) / n
        hits += int(np.count_nonzero(means >= observed - tolerance))
    p = (hits + 1) / (n_permutations + 1)
    return TestResult("randomization", n, float(d.mean()), observed, p)


def _bootstrap_means(d: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    n = d.size
    rng = np.random.default_rng(seed)
    out = np.empty(n_resamples)
    done = 0
    for size in _batches(n_resamples, n):
        idx = rng.integers(0, n, size=(size, n))
        out[done : done + size] = d[idx].mean(axis=1)
        done += size
    return out


def bootstrap_ci(
    a, b, confidence: float = 0.95, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> tuple[float, float, float]:
    """(mean difference, low, high): the percentile bootstrap confidence interval of
    mean(a - b), resampling queries with replacement. Seeded."""
    result = bootstrap_test(a, b, n_resamples=n_resamples, seed=seed, confidence=confidence)
    return result.mean_diff, result.low, result.high


def bootstrap_test(
    a, b, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0, confidence: float = 0.95
) -> TestResult:
    """Paired bootstrap test of mean(a - b) = 0, two-sided, with the percentile interval.

    The p-value shifts the differences to mean 0 (the null) and counts resampled means at
    least as far from 0 as the observed one: p = (k + 1) / (B + 1) (Efron & Tibshirani 1993,
    sec. 16.4; Sakai 2006 for IR). The interval is the (1-c)/2 and (1+c)/2 percentiles of the
    resampled means of the unshifted differences.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")
    d = _diffs(a, b)
    mean = float(d.mean())
    means = _bootstrap_means(d, n_resamples, seed)
    low, high = np.quantile(means, [(1 - confidence) / 2, (1 + confidence) / 2])
    shifted = means - mean  # the same resamples of d - mean(d)
    tolerance = 1e-12 * max(1.0, abs(mean))
    hits = int(np.count_nonzero(np.abs(shifted) >= abs(mean) - tolerance))
    p = (hits + 1) / (n_resamples + 1)
    return TestResult("bootstrap", d.size, mean, mean, p, float(low), float(high))


def holm(p_values) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values (Holm 1979), in the input order: sort ascending,
    multiply the i-th smallest (0-based) by (m - i), make them non-decreasing, cap at 1.
    Same as statsmodels `multipletests(p, method="holm")[1]`. NaNs stay NaN, not counted."""
    p = np.asarray(p_values, dtype=np.float64).ravel()
    out = np.full(p.shape, math.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if m == 0:
        return out
    order = np.argsort(q, kind="stable")
    scaled = q[order] * (m - np.arange(m))
    adjusted = np.minimum(np.maximum.accumulate(scaled), 1.0)
    back = np.empty(m)
    back[order] = adjusted
    out[ok] = back
    return out


TESTS = ("t", "randomization", "bootstrap")


def run_test(name: str, a, b, *, seed: int = 0, n: int | None = None) -> TestResult:
    """The test called `name` (one of TESTS); `n` = permutations or resamples."""
    if name == "t":
        return paired_t_test(a, b)
    if name == "randomization":
        return randomization_test(a, b, n or DEFAULT_PERMUTATIONS, seed)
    if name == "bootstrap":
        return bootstrap_test(a, b, n or DEFAULT_RESAMPLES, seed)
    raise ValueError(f"unknown test {name!r}; choose from {', '.join(TESTS)}")
