"""The numpy chi-square tail and the test of homogeneity against SciPy (the reference) and
textbook values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import chi2, chi2_contingency

from workbench.metrics.chi_square import homogeneity, sf


def test_table_values_and_closed_forms():
    # chi-square table: upper 5 % points at df 1, 2, 3, 10; upper 1 % at df 4
    assert sf(3.841458821, 1) == pytest.approx(0.05, rel=1e-8)
    assert sf(5.991464547, 2) == pytest.approx(0.05, rel=1e-8)
    assert sf(7.814727903, 3) == pytest.approx(0.05, rel=1e-8)
    assert sf(18.30703805, 10) == pytest.approx(0.05, rel=1e-8)
    assert sf(13.27670414, 4) == pytest.approx(0.01, rel=1e-8)
    for x in (0.01, 0.5, 3.0, 40.0, 700.0):
        # df 1: P(Z² >= x) = erfc(sqrt(x / 2)); df 2 is the exponential: exp(-x / 2)
        assert sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-12)
        assert sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)


@pytest.mark.parametrize("high", [10, 1000])
def test_equals_scipy_on_random_values(high):
    rng = np.random.default_rng(13)
    df = rng.integers(1, high, 30000).astype(float)
    x = df * rng.uniform(0, 4, df.size)
    x[:2000] = rng.exponential(3, 2000)  # near zero, where the series is used
    ours = sf(x, df)
    ref = chi2.sf(x, df)
    normal = ref > 1e-300  # below that both are (sub)normal noise
    rel = np.abs(ours - ref)[normal] / ref[normal]
    assert rel.max() < (1e-12 if high <= 10 else 1e-11)
    assert np.abs(ours - ref).max() < 1e-12


def test_fractional_df_and_edges():
    x = np.array([0.2, 1.0, 7.5])
    for df in (0.3, 2.5, 7.7):
        assert np.allclose(sf(x, df), chi2.sf(x, df), rtol=1e-12, atol=0)
    p = sf([0.0, -1.0, math.inf, math.nan, 2.0, 2.0], [3, 3, 3, 3, 0, math.nan])
    assert p[0] == 1.0 and p[1] == 1.0 and p[2] == 0.0
    assert np.isnan(p[3:]).all()


def test_homogeneity_worked_example():
    # first quarter 10 × grade 0, 20 × grade 1, 5 × grade 2; last quarter 3, 30, 12.
    # Row totals 35, 45; column totals 13, 50, 17; N 80: expected grade-0 count in the
    # first row 35 · 13 / 80 = 5.6875 (the smallest). Statistic 7.5191 on 2 df, p 0.0233.
    test = homogeneity([[10, 20, 5], [3, 30, 12]])
    assert test.statistic == pytest.approx(7.5191, abs=1e-4)
    assert (test.df, test.min_expected) == (2, 5.6875)
    assert test.p_value == pytest.approx(0.0233, abs=1e-4)


def test_homogeneity_equals_scipy_and_drops_empty_columns():
    rng = np.random.default_rng(5)
    for _ in range(200):
        table = rng.integers(0, 30, size=(rng.integers(2, 4), rng.integers(2, 6)))
        table[:, rng.integers(0, table.shape[1])] = 0  # a grade nobody gave
        if (table.sum(axis=1) == 0).any() or (table.sum(axis=0) > 0).sum() < 2:
            continue
        stat, p, dof, expected = chi2_contingency(table[:, table.sum(axis=0) > 0], correction=False)
        ours = homogeneity(table)
        assert ours.statistic == pytest.approx(stat, rel=1e-12)
        assert ours.p_value == pytest.approx(p, rel=1e-10, abs=1e-15)
        assert (ours.df, ours.min_expected) == (dof, pytest.approx(expected.min()))


def test_homogeneity_with_nothing_to_test():
    same = homogeneity([[4, 0], [6, 0]])  # one grade only: no evidence of a change
    assert (same.statistic, same.df, same.p_value) == (0.0, 0, 1.0)
    assert math.isnan(homogeneity([[0, 0], [0, 0]]).p_value)
    with pytest.raises(ValueError):
        homogeneity([1, 2, 3])
