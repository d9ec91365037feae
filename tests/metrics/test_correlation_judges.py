"""The leaderboard correlations of `meta` (and `compare`, `calibrate`): AutoJudge's
evaluator's published values, pyircor's tau_AP-b transcribed as loops, scipy, and the one
tie rule (means equal up to floating-point noise are ties everywhere)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from workbench.metrics import correlation as corr

# the cases (pyircor's values, 4 decimals)
TAU_AP_B = [
    ([0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
     [0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988], 0.8333),
    ([0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
     [0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644], 0.2880),
    ([0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
     [0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25], -0.6680),
    ([0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1],
     [0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1], 0.7321),
    ([0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4],
     [0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6], 0.2970),
    ([0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4],
     [0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2], -0.7047),
]


@pytest.mark.parametrize("x, y, expected", TAU_AP_B)
def test_tau_ap_b_equals_pyircor(x, y, expected):
    assert round(corr.tau_ap_b(x, y), 4) == pytest.approx(expected, abs=1e-9)
    assert round(corr.tau_ap_b(y, x), 4) == pytest.approx(expected, abs=1e-9)  # symmetric


def _pyircor_half(x, y):
    """pyircor's tauap_b_ties, decreasing, as its loops: groups from y, order from x."""
    x, y = -np.asarray(x, float), -np.asarray(y, float)
    rx = stats.rankdata(x)
    ry = stats.rankdata(y, "ordinal")
    p = stats.rankdata(y, "min") - 1
    c_all, n_not_top = 0.0, 0
    for i in range(len(p)):
        if p[i] == 0:
            continue
        n_not_top += 1
        c_above = sum(1 for j in range(len(p)) if p[j] < p[i] and (rx[i] > rx[j]) == (ry[i] > ry[j]))
        c_all += c_above / p[i]
    return 2 / n_not_top * c_all - 1


@pytest.mark.parametrize("seed, levels", [(1, 3), (2, 5), (3, None), (4, 2)])
def test_tau_ap_b_rows_equal_pyircor_loops(seed, levels):
    rng = np.random.default_rng(seed)
    shape = (15, 9)
    if levels is None:
        x, y = rng.random(shape), rng.random(shape)
    else:
        x, y = rng.integers(0, levels, shape).astype(float), rng.integers(0, levels, shape).astype(float)
    got = corr.tau_ap_b_rows(x, y)
    for r in range(shape[0]):
        if np.unique(x[r]).size < 2 or np.unique(y[r]).size < 2:
            assert math.isnan(got[r])
            continue
        expected = (_pyircor_half(x[r], y[r]) + _pyircor_half(y[r], x[r])) / 2
        assert got[r] == pytest.approx(expected, abs=1e-12)


def test_tau_gap_equals_autojudge_values():
    assert corr.tau_gap([0.9, 0.5, 0.4], [3, 1, 2]) == pytest.approx(0.8, abs=1e-7)
    truth, judge = [0.9, 0.5, 0.45, 0.2], [0.8, 0.5, 0.6, 0.1]
    assert corr.tau_gap(truth, judge) == pytest.approx(0.9259259, abs=1e-7)
    assert corr.tau_gap(judge, truth) == pytest.approx(0.7777778, abs=1e-7)  # not symmetric
    assert corr.kendall_tau(truth, judge) == pytest.approx(0.6666667, abs=1e-7)


def _tau_gap_loops(t, j):
    n = len(t)
    total, counted = 0.0, 0
    for i in range(n):
        above = [k for k in range(n) if j[k] > j[i]]
        den = sum(abs(t[k] - t[i]) for k in above)
        if den == 0:
            continue
        counted += 1
        total += sum(abs(t[k] - t[i]) for k in above if t[k] > t[i]) / den
    return 2 * total / counted - 1


def test_tau_gap_rows_equal_loops_and_identity():
    rng = np.random.default_rng(7)
    t, j = rng.random((10, 8)), rng.random((10, 8))
    j[:, 3] = j[:, 4]  # a tie in the judge
    got = corr.tau_gap_rows(t, j)
    for r in range(10):
        assert got[r] == pytest.approx(_tau_gap_loops(t[r], j[r]), abs=1e-12)
    assert corr.tau_gap(t[0], t[0]) == pytest.approx(1.0)
    assert corr.tau_gap(t[0], -t[0]) == pytest.approx(-1.0)


@pytest.mark.parametrize("levels", [None, 4])
def test_spearman_and_pearson_equal_scipy(levels):
    rng = np.random.default_rng(11)
    for _ in range(20):
        if levels:
            x, y = rng.integers(0, levels, 12).astype(float), rng.integers(0, levels, 12).astype(float)
        else:
            x, y = rng.random(12), rng.random(12)
        assert corr.pearson_r(x, y) == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
        assert corr.spearman_rows(x[None], y[None])[0] == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
        assert corr.spearman_rho(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)


def test_kendall_top_k_is_tau_b_on_the_truths_head():
    names = [f"s{i}" for i in range(8)]
    rng = np.random.default_rng(3)
    t, j = rng.random(8), rng.random(8)
    head = np.argsort(-t)[:5]
    assert corr.kendall_top_k(names, t, j, 5) == pytest.approx(stats.kendalltau(t[head], j[head]).statistic)
    assert corr.kendall_top_k(names, t, j, 20) == pytest.approx(stats.kendalltau(t, j).statistic)


def test_means_equal_up_to_noise_are_ties_everywhere():
    # P@10 0.2 summed in another order: 0.20000000000000004 and 0.19999999999999998
    lo, hi = 0.19999999999999998, 0.20000000000000004
    assert lo != hi and corr.tie_levels([lo, hi])[0] == corr.tie_levels([lo, hi])[1]
    names = ["s1", "s2", "s3", "s4"]
    x = np.array([0.5, hi, lo, 0.1])  # s2, s3 equal means, summed differently
    y = np.array([0.5, lo, hi, 0.1])  # the same ranking, noise the other way
    assert corr.kendall_tau(x, y, "b", tie_tol=corr.MEAN_TIE_TOL) == pytest.approx(1.0)
    assert corr.kendall_tau_b_rows(x[None], y[None])[0] == pytest.approx(1.0)
    assert corr.tau_ap_b(x, y) == pytest.approx(1.0)
    assert corr.tau_ap_b_rows(x[None], y[None])[0] == pytest.approx(1.0)
    assert corr.rank_order(names, x) == corr.rank_order(names, y) == ["s1", "s2", "s3", "s4"]
    assert corr.rbo(corr.rank_order(names, x), corr.rank_order(names, y)) == pytest.approx(1.0)
    assert corr.rbo_rows(names, x[None], y[None])[0] == pytest.approx(1.0)
    assert corr.spearman_rows(x[None], y[None])[0] == pytest.approx(1.0)
    # the identical case gives the same
    assert corr.tau_ap_b(x, x) == corr.tau_ap_b(x, y)


def test_tie_levels_rows_and_nan():
    v = np.array([[0.3, 0.1, 0.3 + 1e-17, 0.2], [1.0, 1.0, 0.0, np.nan]])
    lv = corr.tie_levels(v)
    assert lv[0].tolist() == [2.0, 0.0, 2.0, 1.0]
    assert lv[1, :3].tolist() == [1.0, 1.0, 0.0] and math.isnan(lv[1, 3])
