"""Significance tests between paired per-query scores: scipy and statsmodels as oracles, the
exact permutation distribution for small n, and seeded reproducibility."""

from __future__ import annotations

import gc
import itertools
import math

import numpy as np
import pytest
import scipy.stats as ss
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from workbench.metrics import significance as sg

RNG = np.random.default_rng(42)
A = RNG.random(40)
B = A - 0.04 + RNG.normal(0, 0.1, 40)


def test_paired_t_against_scipy():
    ours = sg.paired_t_test(A, B)
    ref = ss.ttest_rel(A, B)
    assert ours.statistic == pytest.approx(ref.statistic)
    assert ours.p_value == pytest.approx(ref.pvalue)
    assert ours.mean_diff == pytest.approx(np.mean(A - B))
    assert ours.n == 40


def test_paired_t_hand_computed():
    # d = [1, 2, 3]: mean 2, sd 1, t = 2 / (1 / sqrt 3) = 2 sqrt 3, df 2
    r = sg.paired_t_test([2, 4, 6], [1, 2, 3])
    assert r.statistic == pytest.approx(2 * math.sqrt(3))
    assert r.p_value == pytest.approx(2 * ss.t.sf(2 * math.sqrt(3), 2))


def test_paired_t_degenerate():
    assert sg.paired_t_test([1, 2, 3], [1, 2, 3]).p_value == 1.0
    assert sg.paired_t_test([2, 3, 4], [1, 2, 3]).p_value == 0.0  # scipy: inf, 0
    assert math.isnan(sg.paired_t_test([1], [0]).p_value)
    with pytest.raises(ValueError):
        sg.paired_t_test([1, 2], [1])


def _exact_permutation_p(d):
    patterns = np.array(list(itertools.product([-1, 1], repeat=len(d))))
    return np.mean(np.abs(patterns @ d) >= abs(d.sum()) - 1e-12)


def test_randomization_close_to_exact_permutation_test():
    a, b = A[:12], B[:12]
    exact = _exact_permutation_p(a - b)
    # scipy's exact paired permutation test gives the same exact p
    ref = ss.permutation_test(
        (a, b), lambda x, y: np.mean(x - y), permutation_type="samples", n_resamples=np.inf
    ).pvalue
    assert exact == pytest.approx(ref)
    ours = sg.randomization_test(a, b, n_permutations=20_000, seed=3).p_value
    # Monte Carlo error of p with N = 20 000 is about sqrt(p(1-p)/N) < 0.0036
    assert ours == pytest.approx(exact, abs=0.015)


def test_randomization_is_seeded_and_batched():
    r1 = sg.randomization_test(A, B, seed=7)
    r2 = sg.randomization_test(A, B, seed=7)
    assert r1.p_value == r2.p_value
    assert r1.mean_diff == pytest.approx(np.mean(A - B))
    assert sg.randomization_test(A, B).p_value > 0  # (k + 1) / (N + 1), never 0


def test_randomization_batches_give_the_same_answer(monkeypatch):
    whole = sg.randomization_test(A, B, n_permutations=5000, seed=1).p_value
    monkeypatch.setattr(sg, "_BATCH_CELLS", 40 * 7)  # 7 permutations per batch
    batched = sg.randomization_test(A, B, n_permutations=5000, seed=1).p_value
    # a different stream of draws, the same estimate within Monte Carlo error
    assert batched == pytest.approx(whole, abs=0.02)


def test_randomization_identical_systems_p_is_one():
    assert sg.randomization_test(A, A, n_permutations=999).p_value == 1.0


def test_bootstrap_ci_contains_mean_and_matches_scipy_percentile():
    mean, low, high = sg.bootstrap_ci(A, B, seed=0)
    assert low < mean < high
    ref = ss.bootstrap(
        (A - B,), np.mean, n_resamples=10_000, method="percentile", random_state=0
    ).confidence_interval
    assert low == pytest.approx(ref.low, abs=0.01)
    assert high == pytest.approx(ref.high, abs=0.01)


def test_bootstrap_test_p_value_agrees_with_t_roughly():
    r = sg.bootstrap_test(A, B, seed=0)
    t = sg.paired_t_test(A, B)
    assert r.p_value == pytest.approx(t.p_value, abs=0.03)
    assert sg.bootstrap_test(A, B, seed=0).p_value == r.p_value
    with pytest.raises(ValueError):
        sg.bootstrap_test(A, B, confidence=1.5)


def _statsmodels_holm(p):
    """statsmodels' Holm-adjusted p-values. Its holm branch ends with a `gc.collect()` that
    changes no value and costs 0.2-0.3 s in a test process's heap, on every call (7 s of
    the generated test's 26 calls); it is a no-op here for the call."""
    collect = gc.collect
    gc.collect = lambda *args, **kwargs: 0
    try:
        return multipletests(p, method="holm")[1]
    finally:
        gc.collect = collect


def test_holm_against_statsmodels():
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.2, 0.04])
    assert sg.holm(p) == pytest.approx(_statsmodels_holm(p))
    # by hand: sorted 0.005*6, 0.01*5, 0.03*4, 0.04*3, 0.04*2 -> max-accumulated, 0.2*1
    assert sg.holm([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])


def test_holm_keeps_nan_out():
    out = sg.holm([0.01, math.nan, 0.02])
    assert math.isnan(out[1])
    assert out[[0, 2]].tolist() == pytest.approx([0.02, 0.02])
    assert sg.holm([]).size == 0


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=30))
def test_generated_holm_against_statsmodels(p):
    assert sg.holm(p) == pytest.approx(_statsmodels_holm(p), abs=1e-12)


def test_run_test_dispatch():
    assert sg.run_test("t", A, B).p_value == sg.paired_t_test(A, B).p_value
    assert sg.run_test("randomization", A, B, n=999).test == "randomization"
    assert sg.run_test("bootstrap", A, B, n=999).test == "bootstrap"
    with pytest.raises(ValueError):
        sg.run_test("wilcoxon", A, B)
