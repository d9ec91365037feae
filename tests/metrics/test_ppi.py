"""Prediction-powered mean (metrics/ppi.py) against the paper's formula written here, against
ppi-python (a test dependency), and its coverage on simulated campaigns."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from workbench.metrics.ppi import ppi_mean_ci, ppi_population_mean
from workbench.metrics.weighting import hajek_mean, inverse_probability_weights


def _paper_ppi_mean(y, yhat, yhat_u, alpha=0.05):
    """Angelopoulos et al. 2023, the mean (Example 1 / Algorithm 1 with lambda = 1):
    theta = mean(f(X~)) - mean(f(X) - Y); sigma_f^2 / N + sigma_rect^2 / n."""
    n, big_n = len(y), len(yhat_u)
    theta = np.mean(yhat_u) - np.mean(np.asarray(yhat) - np.asarray(y))
    w = stats.norm.ppf(1 - alpha / 2) * math.sqrt(np.var(yhat_u, ddof=1) / big_n
                                                  + np.var(np.asarray(yhat) - y, ddof=1) / n)
    return theta, theta - w, theta + w


def _data(seed=0, n=120, big_n=3000):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n).astype(float)
    yhat = np.clip(y + 0.3 + rng.normal(0, 0.7, n), 0, 3)
    u = np.clip(rng.integers(0, 4, big_n) + 0.3 + rng.normal(0, 0.7, big_n), 0, 3)
    return y, yhat, u


def test_ppi_mean_equals_the_paper_formula():
    for seed in range(3):
        y, yhat, u = _data(seed)
        assert ppi_mean_ci(y, yhat, u) == pytest.approx(_paper_ppi_mean(y, yhat, u), abs=1e-12)
        assert ppi_mean_ci(y, yhat, u, alpha=0.1) == pytest.approx(_paper_ppi_mean(y, yhat, u, 0.1), abs=1e-12)


def test_ppi_mean_equals_ppi_python():
    import ppi_py  # a test dependency (pyproject.toml): the oracle must be there
    y, yhat, u = _data(4)
    theta = float(np.ravel(ppi_py.ppi_mean_pointestimate(y, yhat, u, lam=1))[0])
    low, high = ppi_py.ppi_mean_ci(y, yhat, u, alpha=0.05, lam=1)
    est, lo, hi = ppi_mean_ci(y, yhat, u, ddof=0)  # ppi-python divides variances by n
    assert est == pytest.approx(theta, abs=1e-10)
    assert (lo, hi) == pytest.approx((float(np.ravel(low)[0]), float(np.ravel(high)[0])), abs=1e-10)


def test_hajek_mean_and_weights():
    p = np.array([0.1, 0.1, 0.5, 1.0])
    y = np.array([1.0, 0.0, 2.0, 3.0])
    w = 1 / p
    assert inverse_probability_weights(p).tolist() == w.tolist()
    mean, var = hajek_mean(y, p)
    assert mean == pytest.approx((w * y).sum() / w.sum())
    assert var == pytest.approx(((1 - p) * w ** 2 * (y - mean) ** 2).sum() / w.sum() ** 2)
    assert math.isnan(inverse_probability_weights([0.0])[0])


def test_coverage_on_simulated_campaigns():
    """A machine biased by +0.3 grade on average, 10 % of the items labelled by people
    (Poisson sampling, a stratum of likely-relevant items drawn twice as often): the PPI
    interval covers the true mean in 0.95 +- 0.03 of 500 repetitions; the naive interval on
    the hybrid labels (people where they labelled, the machine elsewhere) far less often."""
    reps, big_n = 500, 1500
    rng = np.random.default_rng(2024)
    y = rng.choice(4, size=(reps, big_n), p=[0.5, 0.25, 0.15, 0.1]).astype(float)
    yhat = y + 0.3 + rng.normal(0, 0.6, size=y.shape)
    p = np.where(yhat > 1.0, 0.16, 0.08)  # about 10 % of the items overall
    sampled = rng.random(y.shape) < p
    truth = y.mean(axis=1)
    ppi_hits = naive_hits = 0
    for r in range(reps):
        s = sampled[r]
        est, lo, hi = ppi_population_mean(yhat[r], y[r, s], yhat[r, s], p[r, s])
        ppi_hits += lo <= truth[r] <= hi
        hybrid = np.where(s, y[r], yhat[r])
        half = 1.96 * hybrid.std(ddof=1) / math.sqrt(big_n)
        naive_hits += abs(hybrid.mean() - truth[r]) <= half
    ppi_cov, naive_cov = ppi_hits / reps, naive_hits / reps
    print(f"coverage of 500 repetitions: PPI {ppi_cov:.3f}, naive {naive_cov:.3f}")
    assert 0.92 <= ppi_cov <= 0.98
    assert naive_cov < 0.90
