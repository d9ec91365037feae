"""The numpy Student-t tail against SciPy (the reference) and textbook values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import stdtr

from workbench.metrics.student_t import two_sided_p


def test_table_values():
    # t-table critical values: two-sided 5 % at df 1, 10, 30; 1 % at df 5
    assert two_sided_p(12.706204736, 1) == pytest.approx(0.05, rel=1e-8)
    assert two_sided_p(2.228138852, 10) == pytest.approx(0.05, rel=1e-8)
    assert two_sided_p(2.042272456, 30) == pytest.approx(0.05, rel=1e-8)
    assert two_sided_p(4.032142984, 5) == pytest.approx(0.01, rel=1e-8)
    # df 1 is the Cauchy distribution: p = 1 - 2 atan(t) / pi
    for t in (0.1, 1.0, 3.0, 50.0):
        assert two_sided_p(t, 1) == pytest.approx(1 - 2 * math.atan(t) / math.pi, rel=1e-13)
    # df 2 has a closed form: p = 1 - t / sqrt(2 + t^2)
    for t in (0.1, 1.0, 3.0, 50.0):
        assert two_sided_p(t, 2) == pytest.approx(1 - t / math.sqrt(2 + t * t), rel=1e-12)


@pytest.mark.parametrize("df_high", [1000, 20000])
def test_equals_scipy_on_random_values(df_high):
    rng = np.random.default_rng(7)
    t = np.concatenate([rng.normal(0, 3, 20000), rng.uniform(0, 40, 2000), -rng.uniform(0, 5, 100)])
    df = rng.integers(1, df_high, t.size).astype(float)
    ours = two_sided_p(t, df)
    ref = 2 * stdtr(df, -np.abs(t))
    normal = ref > 1e-300  # below that both are (sub)normal noise
    rel = np.abs(ours - ref)[normal] / ref[normal]
    assert rel.max() < (1e-12 if df_high <= 1000 else 1e-10)
    assert np.abs(ours - ref).max() < (1e-14 if df_high <= 1000 else 1e-12)


def test_edges():
    p = two_sided_p([0.0, math.inf, -math.inf, math.nan, 2.0, 2.0], [5, 5, 5, 5, 0, math.nan])
    assert p[0] == 1.0 and p[1] == 0.0 and p[2] == 0.0
    assert np.isnan(p[3:]).all()
    assert two_sided_p(1.0, 0.5) == pytest.approx(2 * stdtr(0.5, -1.0), rel=1e-12)  # fractional df
