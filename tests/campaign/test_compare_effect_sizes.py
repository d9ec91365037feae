"""compare's per-pair interval of the mean difference and paired effect size,
against an independent computation with SciPy: the t interval, Hedges' g_z and the
noncentral-t interval found by brentq on scipy.stats.nct."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, special, stats

from workbench.campaign.comparison.systems import SourceScores, compare_tables
from workbench.metrics.effect_size import hedges_j, paired_effect_sizes


def _reference(d: np.ndarray, confidence: float = 0.95):
    n = d.size
    dz = d.mean() / d.std(ddof=1)
    t = dz * math.sqrt(n)
    a = (1 - confidence) / 2
    lo = optimize.brentq(lambda nc: stats.nct.sf(t, n - 1, nc) - a, -60, 60, xtol=1e-13)
    hi = optimize.brentq(lambda nc: stats.nct.sf(t, n - 1, nc) - (1 - a), -60, 60, xtol=1e-13)
    v = n - 1
    j = math.exp(special.gammaln(v / 2) - special.gammaln((v - 1) / 2)) / math.sqrt(v / 2)
    return j * dz, j * lo / math.sqrt(n), j * hi / math.sqrt(n)


def test_hedges_j():
    assert hedges_j(10) == pytest.approx(1 - 3 / (4 * 10 - 1), abs=5e-4)
    assert hedges_j(29) == pytest.approx(special.gamma(14.5) / (math.sqrt(14.5) * special.gamma(14)))


@pytest.mark.parametrize("n,shift", [(5, 0.3), (12, 0.0), (30, 0.05), (50, -0.4), (200, 0.02),
                                     (1000, 0.01), (40, 0.8)])
def test_effect_size_equals_noncentral_t_reference(n, shift):
    rng = np.random.default_rng(n)
    d = rng.normal(shift, 0.2, size=(3, n))
    g, lo, hi = paired_effect_sizes(d)
    for i in range(3):
        assert (g[i], lo[i], hi[i]) == pytest.approx(_reference(d[i]), rel=1e-6, abs=1e-7)


def test_compare_pairs_carry_intervals_effect_sizes_and_a_sentence():
    rng = np.random.default_rng(9)
    values = rng.random((3, 20)) + np.array([[0.2], [0.0], [0.05]])
    systems = ("A", "B", "C")
    src = SourceScores("ref", systems, values, np.ones(values.shape, bool), values.mean(axis=1),
                       np.ones(3, bool))
    report = compare_tables("map", [src], test="t")
    by = {(t.a, t.b): t for t in report.tests}
    for (a, b), t in by.items():
        d = values[systems.index(a)] - values[systems.index(b)]
        lo, hi = stats.t.interval(0.95, d.size - 1, loc=d.mean(), scale=stats.sem(d))
        assert (t.low, t.high) == pytest.approx((lo, hi), abs=1e-12)
        assert (t.effect_size, t.effect_low, t.effect_high) == pytest.approx(_reference(d), abs=1e-7)
        words = t.sentence()
        assert ("not distinguishable from 0" in words) == (t.p_holm >= 0.05)
    data = report.to_json()["tests"][0]
    assert data["mean_diff_ci"] == [pytest.approx(report.tests[0].low), pytest.approx(report.tests[0].high)]
    assert data["effect_size"] == pytest.approx(report.tests[0].effect_size)
    assert len(data["effect_size_ci"]) == 2
    # the bootstrap test keeps its percentile interval of the mean difference
    boot = compare_tables("map", [src], test="bootstrap", n_resamples=500)
    assert all(not math.isnan(t.low) for t in boot.tests)
    assert (boot.tests[0].low, boot.tests[0].high) != (report.tests[0].low, report.tests[0].high)
