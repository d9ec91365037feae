"""Kendall's tau against scipy (and brute force) on every path `kendall_tau` takes: the
contingency table, integral codes without a sort, the packed float sort and its repair of
values that differ only in the dropped low bits, the permutation inversion count (whole
array and cache-sized pieces), ties in x, in y, in both, and `tie_tol`."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import kendalltau

from workbench.metrics import correlation as c

EPS = np.finfo(float).eps


def _brute_tau(x, y, variant="b"):
    x, y = np.asarray(x, float), np.asarray(y, float)
    i, j = np.triu_indices(x.size, 1)
    sx, sy = np.sign(x[j] - x[i]), np.sign(y[j] - y[i])
    s = float((sx * sy).sum())
    if variant == "a":
        return s / i.size
    den = math.sqrt(float(np.abs(sx).sum()) * float(np.abs(sy).sum()))
    return s / den if den else math.nan


def _check(x, y):
    expected = kendalltau(x, y).statistic
    got = c.kendall_tau(x, y)
    if np.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, abs=1e-12)
    return got


@pytest.mark.parametrize("n", [1, 2, 3, 5, 31, 100])
def test_small_inputs_against_brute_force(n):
    rng = np.random.default_rng(n)
    for x, y in [
        (rng.random(n), rng.random(n)),
        (rng.integers(0, 3, n).astype(float), rng.random(n)),
        (rng.random(n), rng.integers(0, 2, n) * 0.5),
        (np.ones(n), rng.random(n)),
        (np.ones(n), np.ones(n)),
    ]:
        for variant in ("a", "b"):
            got = c.kendall_tau(x, y, variant)
            if n < 2:
                assert math.isnan(got)
                continue
            want = _brute_tau(x, y, variant)
            if math.isnan(want):
                assert math.isnan(got)
            else:
                assert got == pytest.approx(want, abs=1e-12)


def test_two_items_and_all_ties():
    assert c.kendall_tau([1.0, 2.0], [3.0, 4.0]) == 1.0
    assert c.kendall_tau([1.0, 2.0], [4.0, 3.0]) == -1.0
    assert math.isnan(c.kendall_tau([2.0, 2.0], [4.0, 3.0]))
    assert c.kendall_tau([2.0, 2.0], [4.0, 3.0], "a") == 0.0
    assert math.isnan(c.kendall_tau(np.zeros(10_000), np.arange(10_000.0)))
    with pytest.raises(ValueError, match="NaN"):
        c.kendall_tau([1.0, np.nan, 3.0], [1.0, 2.0, 3.0])


def test_large_floats_without_ties_packed_sort():
    rng = np.random.default_rng(1)
    for n in (5_000, 70_001):  # over the plain-argsort cut (4096) and over one piece
        x = rng.standard_normal(n)
        y = x + rng.standard_normal(n)
        assert _check(x, y) > 0.4
        assert _check(-x, y) < -0.4


def test_values_that_differ_only_in_the_dropped_low_bits():
    # 1 + k eps: the packed sort keeps only the high bits, so these all collide and the
    # runs are sorted again by value
    rng = np.random.default_rng(2)
    n = 20_000
    x = 1.0 + rng.permutation(n) * EPS
    y = 1.0 + rng.permutation(n) * EPS * 3
    _check(x, y)
    _check(x, x[::-1].copy())
    # a few colliding runs among otherwise distinct values
    z = rng.random(n)
    z[::97] = z[0] + np.arange(z[::97].size) * EPS
    _check(z, rng.random(n))


def test_signs_zeros_and_infinities():
    rng = np.random.default_rng(3)
    n = 10_000
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
    x[:6] = [np.inf, -np.inf, 0.0, -0.0, 5e-324, -5e-324]
    y = np.where(rng.random(n) < 0.5, x, rng.standard_normal(n))
    _check(x, y)
    # -0.0 and 0.0 are one value (a tie), two +inf are one value
    assert c.kendall_tau([0.0, -0.0, 1.0], [1.0, 2.0, 3.0]) == pytest.approx(
        kendalltau([0.0, 0.0, 1.0], [1.0, 2.0, 3.0]).statistic)
    assert c.kendall_tau([np.inf, np.inf, 1.0], [1.0, 2.0, 3.0]) == pytest.approx(
        kendalltau([9.0, 9.0, 1.0], [1.0, 2.0, 3.0]).statistic)


def test_integral_codes_and_the_contingency_table():
    rng = np.random.default_rng(4)
    n = 50_000
    grades = rng.integers(0, 4, n).astype(float)
    other = np.clip(grades + rng.integers(-1, 2, n), 0, 3)
    _check(grades, other)
    _check(grades - 1000.0, other * 7)  # integral, shifted and spread: still a small range
    _check(grades, rng.random(n))  # one integral, one float: general path, ties in x
    # integral but a long range without ties: codes with gaps, general path
    wide = rng.permutation(2 * n)[:n].astype(float)
    _check(wide, wide + rng.integers(-5000, 5000, n))


def test_ties_in_one_or_both_with_a_large_table():
    rng = np.random.default_rng(5)
    n = 30_000
    x = np.round(rng.random(n) * 3000) / 7  # 3001 distinct non-integral values
    y = x + np.round(rng.random(n) * 900) / 3
    _check(x, y)  # ties in both, table of 3001 x ~n values: general path with T_xy
    _check(rng.random(n), np.round(rng.random(n) * 5000) / 3)  # ties in y only
    _check(np.round(rng.random(n) * 5000) / 3, rng.random(n))  # ties in x only
    z = rng.random(n)
    _check(np.concatenate([z[:100]] * 300), np.concatenate([z[:300]] * 100))  # pairs tied in both


def test_more_than_65536_codes_with_ties():
    # the stable order of codes over 16 bits: the packed int64 sort
    rng = np.random.default_rng(6)
    n = 200_000
    x = rng.integers(0, 150_000, n) / 3.0
    y = x + rng.integers(0, 150_000, n) / 7.0
    _check(x, y)
    _check(y, x)


@pytest.mark.parametrize("chunk", [2, 4, 8, 64])
def test_permutation_inversions_in_pieces_against_brute_force(monkeypatch, chunk):
    monkeypatch.setattr(c, "_CHUNK", chunk)
    rng = np.random.default_rng(chunk)
    for n in (1, 2, 3, 7, 8, 9, 63, 64, 65, 200, 257):
        for p in (rng.permutation(n), np.arange(n), np.arange(n)[::-1].copy()):
            i, j = np.triu_indices(n, 1)
            assert c._permutation_inversions(p) == int((p[i] > p[j]).sum())


def test_permutation_inversions_large_against_scipy():
    from scipy.stats._stats import _kendall_dis

    rng = np.random.default_rng(7)
    for n in (2**16, 2**16 + 1, 100_003):
        p = rng.permutation(n)
        expected = _kendall_dis(np.arange(1, n + 1, dtype=np.intp), (p + 1).astype(np.intp))
        assert c._permutation_inversions(p) == expected


def test_packed_sort_orders_and_finds_new_values():
    rng = np.random.default_rng(8)
    few_equal = rng.random(10_000)
    few_equal[::50] = few_equal[7]  # 2 % equal: the sample still sends it to the packed sort
    for v in (rng.random(10_000), 1.0 + rng.permutation(10_000) * EPS,
              -rng.random(10_000), rng.standard_normal(10_000) * 1e-310, few_equal,
              np.concatenate([1.0 + rng.permutation(5_000) * EPS, rng.random(5_000)])):
        order, step = c._order_steps(v, 0.0)
        assert np.array_equal(np.sort(order), np.arange(v.size))
        assert np.array_equal(v[order], np.sort(v))
        sv = np.sort(v)
        assert np.array_equal(step, sv[1:] != sv[:-1])


def test_tie_tol_on_large_input():
    # means summed in two orders: equal within 1e-12 relative, scipy sees them tied once snapped
    rng = np.random.default_rng(9)
    n = 20_000
    base = np.round(rng.random(n), 3)
    jitter = base * (1 + rng.choice([-1, 0, 1], n) * 4 * EPS)
    y = base + rng.random(n)
    got = c.kendall_tau(jitter, y, tie_tol=c.MEAN_TIE_TOL)
    assert got == pytest.approx(kendalltau(base, y).statistic, abs=1e-12)
    assert c.kendall_tau(jitter, y) == pytest.approx(kendalltau(jitter, y).statistic, abs=1e-12)
    # integral values keep their ties under a tolerance too
    g = rng.integers(0, 5, n).astype(float)
    assert c.kendall_tau(g, y, tie_tol=c.MEAN_TIE_TOL) == pytest.approx(
        kendalltau(g, y).statistic, abs=1e-12)


def test_few_distinct_non_integral_values_codes_without_an_argsort():
    rng = np.random.default_rng(10)
    n = 30_000
    x = np.round(rng.random(n) * 100) / 100  # 101 values, not integral
    y = np.round((x + rng.random(n)) * 50) / 100
    codes, m = c._few_codes(x, np.int32)
    assert m == np.unique(x).size
    assert np.array_equal(codes, np.unique(x, return_inverse=True)[1].ravel())
    _check(x, y)
    _check(-x, y)
    signed = np.where(rng.random(n) < 0.5, -0.0, 0.0) + rng.integers(-3, 4, n) / 3
    codes, m = c._few_codes(signed, np.int32)
    assert m == np.unique(signed).size  # -0.0 and 0.0 one value
    _check(signed, y)
    # distinct values apart in bits no 16-bit window spans: no codes, the argsort path
    spread = np.array([1.0, 1.0 + EPS, 2.0, 2.0 + 2 * EPS, 4.0, 4.0 + 4 * EPS])
    far = spread[rng.integers(0, 6, n)]
    assert c._few_codes(far, np.int32) is None
    _check(far, y)
    # more than 4 096 distinct values, still many ties in a sample
    many = rng.integers(0, 6_000, n) / 7.0
    assert c._few_codes(many, np.int32) is None
    _check(many, y)
