"""Confidence intervals of agreement: Cohen's kappa against statsmodels (the Fleiss, Cohen
& Everitt 1969 standard error), and the bootstrap intervals of Fleiss' kappa and
Krippendorff's alpha against a plain resampling loop over the point estimators."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from workbench.metrics.agreement import cohen_kappa, confusion_matrix, fleiss_kappa, krippendorff_alpha
from workbench.metrics.agreement_ci import cohen_kappa_ci, fleiss_kappa_ci, krippendorff_alpha_ci


@pytest.mark.parametrize("seed", range(5))
def test_cohen_kappa_ci_equals_statsmodels(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, 200)
    b = np.where(rng.random(200) < 0.7, a, rng.integers(0, 4, 200))
    table, _ = confusion_matrix(a, b)
    ref = cohens_kappa(table)
    low, high = cohen_kappa_ci(a, b)
    assert (low, high) == pytest.approx((ref.kappa_low, ref.kappa_upp), abs=1e-12)
    assert low < cohen_kappa(a, b) < high


def test_cohen_kappa_ci_undefined_and_missing():
    assert all(math.isnan(x) for x in cohen_kappa_ci([1, 1, 1], [1, 1, 1]))  # one category
    assert all(math.isnan(x) for x in cohen_kappa_ci([-1, -1], [1, 0]))  # nothing in common
    # missing labels are skipped: the interval of the common items only
    assert cohen_kappa_ci([0, 1, 1, 0, -1] * 20, [0, 1, 0, 0, 1] * 20) == pytest.approx(
        cohen_kappa_ci([0, 1, 1, 0] * 20, [0, 1, 0, 0] * 20))


def _loop_bootstrap(labels, stat, resamples, seed):
    """The same resamples as the vectorised code (same generator calls), one by one."""
    rng = np.random.default_rng(seed)
    n = labels.shape[0]
    values = []
    size = max(1, 4_000_000 // n)
    for start in range(0, resamples, size):
        b = min(size, resamples - start)
        idx = rng.integers(0, n, size=(b, n))
        values += [stat(labels[row]) for row in idx]
    values = np.array(values)
    values = values[~np.isnan(values)]
    return tuple(np.quantile(values, [0.025, 0.975]))


def test_bootstrap_intervals_match_a_resampling_loop():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 3, 120)
    labels = np.stack([np.where(rng.random(120) < 0.75, truth, rng.integers(0, 3, 120)) for _ in range(3)], axis=1)
    labels[rng.random(labels.shape) < 0.1] = -1  # some missing
    keep = (labels >= 0).sum(axis=1) >= 2
    pairable = labels[keep]  # the estimators drop the other items before resampling
    got = fleiss_kappa_ci(labels, resamples=200, seed=5)
    assert got == pytest.approx(_loop_bootstrap(pairable, fleiss_kappa, 200, 5), abs=1e-12)
    for level in ("nominal", "ordinal", "interval"):
        got = krippendorff_alpha_ci(labels, level, resamples=200, seed=5)
        ref = _loop_bootstrap(pairable, lambda x: krippendorff_alpha(x, level, categories=[0, 1, 2]), 200, 5)
        assert got == pytest.approx(ref, abs=1e-9), level
    low, high = fleiss_kappa_ci(labels)
    assert low < fleiss_kappa(labels) < high
