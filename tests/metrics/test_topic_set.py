"""Topic set size design and the noncentral t against SciPy and statsmodels (test-only)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import TTestPower

from workbench.metrics.noncentral_t import nct_cdf, nct_sf, t_isf
from workbench.metrics.topic_set import (min_detectable, paired_power, residual_variance,
                                         topics_exact, topics_needed)


@pytest.mark.parametrize("df,nc,x", list(itertools.product(
    [1, 2, 5, 30, 400, 5000], [-3.0, 0.0, 0.7, 4.0, 20.0], [-2.0, 0.0, 1.5, 25.0])))
def test_nct_tails_equal_scipy(df, nc, x):
    sf, cdf = stats.nct.sf(x, df, nc), stats.nct.cdf(x, df, nc)
    if math.isnan(cdf):  # SciPy gives up far in the tail (df 1, nc 20, x -2): ~5e-91
        assert nct_cdf(x, df, nc) < 1e-80
    else:
        assert nct_cdf(x, df, nc) == pytest.approx(cdf, abs=1e-10)
    assert nct_sf(x, df, nc) == pytest.approx(sf, abs=1e-10)


@pytest.mark.parametrize("p,df", [(0.025, 1), (0.025, 9), (0.005, 33), (0.2, 4), (0.025, 1.5),
                                  (1e-6, 3), (0.4, 1000), (0.975, 12)])
def test_t_isf_equals_scipy(p, df):
    assert t_isf(p, df) == pytest.approx(stats.t.isf(p, df), rel=1e-12)


def test_published_figures():
    # the figures: statsmodels solve_power gives 33.367 and 198.151
    assert topics_exact(0.5) == pytest.approx(33.367, abs=5e-4)
    assert topics_exact(0.2) == pytest.approx(198.151, abs=5e-4)
    assert topics_needed(0.5) == 34 and topics_needed(0.2) == 199


SETTINGS = [  # (effect size, alpha, power): 20 settings besides the two above
    (0.1, 0.05, 0.8), (0.3, 0.05, 0.8), (0.8, 0.05, 0.8), (1.2, 0.05, 0.8), (2.5, 0.05, 0.8),
    (0.5, 0.01, 0.8), (0.5, 0.10, 0.8), (0.2, 0.01, 0.9), (0.3, 0.05, 0.9), (0.4, 0.05, 0.95),
    (0.6, 0.01, 0.99), (0.25, 0.10, 0.7), (0.15, 0.05, 0.5), (1.0, 0.01, 0.9), (0.05, 0.05, 0.8),
    (0.7, 0.05, 0.6), (0.35, 0.001, 0.8), (1.5, 0.05, 0.95), (0.45, 0.2, 0.8), (3.0, 0.01, 0.8),
]


@pytest.mark.parametrize("effect,alpha,power", SETTINGS)
def test_equals_statsmodels_solve_power(effect, alpha, power):
    exact = TTestPower().solve_power(effect_size=effect, alpha=alpha, power=power)
    assert topics_needed(effect, alpha, power) == max(2, math.ceil(exact))
    n = max(3, math.ceil(exact))
    assert paired_power(effect, n, alpha) == pytest.approx(
        TTestPower().power(effect_size=effect, nobs=n, alpha=alpha), abs=1e-9)


@pytest.mark.parametrize("n,alpha,power", [(10, 0.05, 0.8), (34, 0.05, 0.8), (50, 0.01, 0.9),
                                           (200, 0.05, 0.8), (3, 0.1, 0.5)])
def test_min_detectable_equals_statsmodels(n, alpha, power):
    expected = TTestPower().solve_power(nobs=n, alpha=alpha, power=power)
    assert min_detectable(n, alpha, power) == pytest.approx(expected, rel=1e-5)
    # the converse: that difference needs n topics, a slightly smaller one more
    got = min_detectable(n, alpha, power)
    assert topics_needed(got * 1.0001, alpha, power) <= n < topics_needed(got * 0.999, alpha, power)


def test_residual_variance_equals_two_way_anova():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(6, 25)) + rng.normal(size=(6, 1)) + rng.normal(size=(1, 25))
    # V_E from statsmodels' two-way ANOVA (systems and topics as factors, no interaction)
    import pandas as pd
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    frame = pd.DataFrame([(f"s{i}", f"t{j}", x[i, j]) for i in range(6) for j in range(25)],
                         columns=["system", "topic", "y"])
    table = anova_lm(smf.ols("y ~ C(system) + C(topic)", frame).fit())
    expected = table.loc["Residual", "sum_sq"] / table.loc["Residual", "df"]
    assert residual_variance(x) == pytest.approx(expected, rel=1e-12)
    # with two systems, 2 V_E is the variance of their per-topic differences
    two = x[:2]
    assert 2 * residual_variance(two) == pytest.approx(np.var(two[0] - two[1], ddof=1), rel=1e-12)


def test_bad_input():
    with pytest.raises(ValueError):
        topics_needed(0.0)
    with pytest.raises(ValueError):
        topics_needed(0.5, alpha=1.5)
    with pytest.raises(ValueError):
        residual_variance(np.zeros((1, 5)))
