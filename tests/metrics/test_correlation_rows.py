"""The batch correlations (one value per row of resampled scores) equal the scalar ones row
by row, with and without ties, and scipy's Kendall tau-b."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import kendalltau

from workbench.metrics import correlation as corr


def _rows(seed: int, rows: int, n: int, levels: int | None):
    rng = np.random.default_rng(seed)
    if levels is None:
        return rng.random((rows, n)), rng.random((rows, n))
    return rng.integers(0, levels, (rows, n)).astype(float), rng.integers(0, levels, (rows, n)).astype(float)


@pytest.mark.parametrize("n, levels", [(2, None), (7, None), (30, None), (12, 3), (25, 5), (6, 2)])
def test_rows_equal_scalar(n, levels):
    x, y = _rows(n * 7 + (levels or 0), 40, n, levels)
    names = [f"s{i:02d}" for i in range(n)][::-1]
    tau = corr.kendall_tau_b_rows(x, y)
    ap = corr.tau_ap_b_rows(x, y)
    rbo = corr.rbo_rows(names, x, y, 0.9)
    for r in range(x.shape[0]):
        expected = corr.kendall_tau(x[r], y[r], "b")
        if math.isnan(expected):
            assert math.isnan(tau[r])
        else:
            assert tau[r] == pytest.approx(expected, abs=1e-12)
            assert tau[r] == pytest.approx(kendalltau(x[r], y[r]).statistic, abs=1e-12)
        assert ap[r] == pytest.approx(corr.tau_ap_b(x[r], y[r]), abs=1e-12) or math.isnan(ap[r])
        assert rbo[r] == pytest.approx(
            corr.rbo(corr.rank_order(names, x[r]), corr.rank_order(names, y[r]), 0.9), abs=1e-12)


def test_constant_row_and_worked_example():
    x = np.array([[1.0, 1.0, 1.0], [4.0, 2.0, 3.0]])
    y = np.array([[3.0, 2.0, 1.0], [4.0, 3.0, 2.0]])
    tau = corr.kendall_tau_b_rows(x, y)
    assert math.isnan(tau[0]) and tau[1] == pytest.approx(1 / 3)
    # [1,3,2,4] against [1,2,3,4]: 4/6 (the reference notes' example)
    assert corr.kendall_tau_b_rows([[1, 3, 2, 4]], [[1, 2, 3, 4]])[0] == pytest.approx(2 / 3)
