"""Rank correlation: the notes' Kendall example, scipy as oracle, hand-computed tau_AP and
RBO values (RBO_ext, Webber et al. 2010 eq. 32)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as ss
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.metrics import correlation as c


# ---------------------------------------------------------------- Kendall


def test_notes_kendall_example():
    # docs/architecture.md#worked-examples: [1,3,2,4] against [1,2,3,4]: 5 concordant, 1 discordant of 6 -> 0.667
    assert c.kendall_tau([1, 3, 2, 4], [1, 2, 3, 4], "a") == pytest.approx(4 / 6)
    assert round(c.kendall_tau([1, 3, 2, 4], [1, 2, 3, 4]), 3) == 0.667


def test_kendall_tau_b_with_ties_against_scipy():
    x = [1, 2, 2, 3, 3, 3, 4]
    y = [1, 3, 2, 2, 4, 3, 4]
    assert c.kendall_tau(x, y) == pytest.approx(ss.kendalltau(x, y).statistic)


def test_kendall_tau_a_with_ties_hand_computed():
    # pairs: (0,1) C, (0,2) C, (1,2): tie in x -> 0 ; C - D = 2 of 3 pairs
    assert c.kendall_tau([1, 2, 2], [1, 2, 3], "a") == pytest.approx(2 / 3)
    # tau-b: sqrt((3 - 1) * (3 - 0))
    assert c.kendall_tau([1, 2, 2], [1, 2, 3], "b") == pytest.approx(2 / math.sqrt(6))


def test_kendall_degenerate():
    assert math.isnan(c.kendall_tau([1], [2]))
    assert math.isnan(c.kendall_tau([1, 1, 1], [1, 2, 3]))
    assert c.kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0
    with pytest.raises(ValueError):
        c.kendall_tau([1, 2], [1, 2, 3])
    with pytest.raises(ValueError):
        c.kendall_tau([1, 2], [1, 2], "c")


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=2, max_size=60))
def test_generated_kendall_and_spearman_against_scipy(pairs):
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    expected = ss.kendalltau(x, y).statistic
    ours = c.kendall_tau(x, y)
    if np.isnan(expected):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(expected, abs=1e-12)
    # tau-a by brute force
    i, j = np.triu_indices(len(x), 1)
    brute = np.sum(np.sign(x[j] - x[i]) * np.sign(y[j] - y[i])) / len(i)
    assert c.kendall_tau(x, y, "a") == pytest.approx(brute, abs=1e-12)
    if len(np.unique(x)) > 1 and len(np.unique(y)) > 1:
        assert c.spearman_rho(x, y) == pytest.approx(ss.spearmanr(x, y).statistic, abs=1e-12)
    else:
        assert math.isnan(c.spearman_rho(x, y))


def test_kendall_large_random_against_scipy():
    rng = np.random.default_rng(0)
    x = rng.random(20_000)
    y = x + rng.random(20_000)
    y[::7] = y[0]  # some ties
    assert c.kendall_tau(x, y) == pytest.approx(ss.kendalltau(x, y).statistic, abs=1e-12)


# ---------------------------------------------------------------- Spearman


def test_spearman_against_scipy_and_ranks():
    x = [3, 1, 4, 1, 5, 9, 2, 6]
    y = [2, 7, 1, 8, 2, 8, 1, 8]
    assert c.spearman_rho(x, y) == pytest.approx(ss.spearmanr(x, y).statistic)
    assert c.average_ranks([10, 20, 20, 5]).tolist() == [2.0, 3.5, 3.5, 1.0]
    assert c.spearman_rho([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)


# ---------------------------------------------------------------- tau_AP


def test_tau_ap_swap_at_top_costs_more_than_at_bottom():
    truth = [4, 3, 2, 1]  # a > b > c > d
    top_swap = [3, 4, 2, 1]  # b a c d
    bottom_swap = [4, 3, 1, 2]  # a b d c
    # top swap: C(2)=0/1, C(3)=2/2, C(4)=3/3 -> 2/3 * 2 - 1
    assert c.tau_ap(top_swap, truth) == pytest.approx(2 / 3 * 2 - 1)
    # bottom swap: 1/1 + 2/2 + 2/3 -> 2/3 * 8/3 - 1 = 7/9
    assert c.tau_ap(bottom_swap, truth) == pytest.approx(2 / 3 * (1 + 1 + 2 / 3) - 1)
    # Kendall cannot tell the two apart
    assert c.kendall_tau(top_swap, truth) == c.kendall_tau(bottom_swap, truth) == pytest.approx(4 / 6)


def test_tau_ap_properties():
    rng = np.random.default_rng(1)
    x = rng.permutation(30).astype(float)
    assert c.tau_ap(x, x) == pytest.approx(1.0)
    assert c.tau_ap(x, -x) == pytest.approx(-1.0)
    # two items: tau_AP = tau
    assert c.tau_ap([2, 1], [1, 2]) == -1.0
    assert math.isnan(c.tau_ap([1], [1]))


def test_tau_ap_is_asymmetric():
    a = [5, 4, 3, 2, 1]
    b = [4, 5, 3, 1, 2]  # swap at top and bottom
    # by hand, a's order judged against b: C = 0/1, 2/2, 3/3, 3/4 -> 2/4 * 3.75 - 1
    assert c.tau_ap(a, b) == pytest.approx(2 / 4 * (0 + 1 + 1 + 3 / 4) - 1)


def _brute_tau_ap(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    order = np.argsort(-x, kind="stable")
    xs, ys = x[order], y[order]
    total = 0.0
    for i in range(1, len(x)):
        ci = 0.0
        for j in range(i):
            if xs[j] == xs[i] or ys[j] == ys[i]:
                ci += 0.5
            elif ys[j] > ys[i]:
                ci += 1
        total += ci / i
    return 2 / (len(x) - 1) * total - 1


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=25))
def test_generated_tau_ap_against_definition(pairs):
    x = [p[0] for p in pairs]
    y = [p[1] for p in pairs]
    assert c.tau_ap(x, y) == pytest.approx(_brute_tau_ap(x, y), abs=1e-12)


# ---------------------------------------------------------------- RBO


def test_rbo_even_lists_reference_value():
    # ragrawal's RBO.py / b4ny4n rankmeasures README: [1..5] vs [2,3,4,1,5], p=0.9 -> 0.828
    p = 0.9
    a_d = [0, 1 / 2, 2 / 3, 1, 1]  # overlap / depth at depths 1..5
    by_hand = (1 - p) / p * sum(a * p**d for d, a in enumerate(a_d, 1)) + 1 * p**5
    assert c.rbo([1, 2, 3, 4, 5], [2, 3, 4, 1, 5], p) == pytest.approx(by_hand)
    assert round(c.rbo([1, 2, 3, 4, 5], [2, 3, 4, 1, 5], p), 3) == 0.828
    assert round(c.rbo(list("abcde"), list("bcdae"), p), 3) == 0.828


def test_rbo_identical_disjoint_empty():
    assert c.rbo(list("abcdefg"), list("abcdefg")) == pytest.approx(1.0)
    assert c.rbo(list("abc"), list("xyz")) == 0.0
    assert c.rbo([], []) == 1.0
    assert c.rbo(["a"], []) == 0.0
    # a prefix extrapolates to full agreement (the short list's tail is assumed to agree)
    assert c.rbo(list("abc"), list("abcdefg"), 0.8) == pytest.approx(1.0)


def test_rbo_uneven_lists_by_hand():
    # S = [a, b] (s = 2), L = [b, c, a] (l = 3), p = 0.5
    # X_1 = 0 ({a} vs {b}), X_2 = 1 ({a,b} vs {b,c}), X_3 = 2 (S whole vs {b,c,a})
    p, s, l = 0.5, 2, 3
    x = {1: 0, 2: 1, 3: 2}
    x_s, x_l = x[s], x[l]
    first = sum(x[d] / d * p**d for d in (1, 2, 3))
    second = x_s * (3 - s) / (s * 3) * p**3
    expected = (1 - p) / p * (first + second) + ((x_l - x_s) / l + x_s / s) * p**l
    assert c.rbo(["a", "b"], ["b", "c", "a"], p) == pytest.approx(expected)
    assert c.rbo(["b", "c", "a"], ["a", "b"], p) == pytest.approx(expected)  # symmetric


def test_rbo_top_weighted_and_bounded():
    base = list("abcdefghij")
    top = list("bacdefghij")
    bottom = list("abcdefghji")
    assert c.rbo(base, bottom) > c.rbo(base, top)
    assert 0 < c.rbo(base, top) < 1


def test_rbo_rejects_bad_input():
    with pytest.raises(ValueError):
        c.rbo(list("aab"), list("abc"))
    with pytest.raises(ValueError):
        c.rbo(list("ab"), list("ab"), p=1.0)


# ---------------------------------------------------------------- helpers


def test_rank_order_and_order_scores():
    assert c.rank_order(["b", "a", "c"], [0.3, 0.3, 0.5]) == ["c", "a", "b"]
    assert c.order_scores(["x", "y"], ["y", "z", "x"]).tolist() == [1.0, 0.0, 2.0]


def test_kendall_on_two_result_lists():
    # shared items a, b, c; order a b c vs c a b -> pairs ab C, ac D, bc D -> -1/3
    assert c.kendall_tau_lists(["a", "x", "b", "c"], ["c", "a", "y", "b"], "a") == pytest.approx(
        -1 / 3
    )
    assert math.isnan(c.kendall_tau_lists(["a"], ["a", "b"]))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 15), unique=True, max_size=12),
    st.lists(st.integers(0, 15), unique=True, max_size=12),
    st.floats(0.05, 0.95),
)
def test_generated_rbo_properties(a, b, p):
    value = c.rbo(a, b, p)
    assert -1e-12 <= value <= 1 + 1e-12
    assert value == pytest.approx(c.rbo(b, a, p), abs=1e-12)  # symmetric
    assert c.rbo(a, a, p) == pytest.approx(1.0)
    if a and b and not set(a) & set(b):
        assert value == 0.0


# ---------------------------------------------------------------- O(n log n) tau


def test_kendall_tau_matches_scipy_on_random_data_with_and_without_ties():
    from scipy.stats import kendalltau

    rng = np.random.default_rng(24)
    for trial in range(200):
        n = int(rng.integers(2, 300))
        if trial % 3 == 0:
            x, y = rng.random(n), rng.random(n)
        else:  # few distinct values: many ties in one or both
            x = rng.integers(0, int(rng.integers(1, 8)), n).astype(float)
            y = rng.integers(0, int(rng.integers(1, n + 1)), n).astype(float)
        expected_b = kendalltau(x, y).statistic
        got = c.kendall_tau(x, y, "b")
        if np.isnan(expected_b):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(expected_b, abs=1e-12)


def test_kendall_tau_a_counts_pairs_exactly():
    rng = np.random.default_rng(7)
    x = rng.integers(0, 5, 60).astype(float)
    y = rng.integers(0, 4, 60).astype(float)
    s = sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i in range(60) for j in range(i))
    assert c.kendall_tau(x, y, "a") == pytest.approx(s / (60 * 59 / 2), abs=1e-15)


def test_kendall_tau_large_input_matches_scipy():
    from scipy.stats import kendalltau

    rng = np.random.default_rng(3)
    x = rng.random(200_000)
    y = x + rng.random(200_000)
    assert c.kendall_tau(x, y) == pytest.approx(kendalltau(x, y).statistic, abs=1e-12)
    xt, yt = np.round(x * 50), np.round(y * 20)
    assert c.kendall_tau(xt, yt) == pytest.approx(kendalltau(xt, yt).statistic, abs=1e-12)


def test_means_equal_within_tolerance_are_ties():
    # reusability's case: 0.55 and 0.5499999999999999 are one mean summed in two orders
    from scipy.stats import kendalltau

    full = np.array([0.1, 0.2, 0.3, 0.4, 0.55, 0.5499999999999999, 0.7])
    loo = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.5, 0.7])
    tied = np.array([0.1, 0.2, 0.3, 0.4, 0.55, 0.55, 0.7])
    assert c.kendall_tau(full, loo, tie_tol=c.MEAN_TIE_TOL) == pytest.approx(
        kendalltau(tied, loo).statistic, abs=1e-15)
    assert c.kendall_tau(full, loo) == pytest.approx(kendalltau(full, loo).statistic, abs=1e-15)
    assert c.kendall_tau(full, loo) != c.kendall_tau(full, loo, tie_tol=c.MEAN_TIE_TOL)
