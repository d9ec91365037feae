"""Worked examples of an assessor's pace (capped seconds) and drift (first vs last quarter,
agreement with the others over their grades)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from workbench.metrics.drift import agreement_with_others, grade_drift, rolling_mean
from workbench.metrics.pace import capped_seconds, pace, rolling_median


def test_pace_caps_idle_time_and_skips_untimed_grades():
    # six grades: 10, 20, 30, 40 s, one left open for 1 000 s (capped at 300), one from the
    # command line (0 s: untimed). Five timed grades in 10+20+30+40+300 = 400 s:
    # 5 / (400 / 3600) = 45 documents per hour; median of 10 20 30 40 300 = 30 s.
    p = pace([10, 20, 0, 30, 1000, 40], cap=300)
    assert (p.timed, p.capped) == (5, 1)
    assert p.hours == pytest.approx(400 / 3600)
    assert p.per_hour == pytest.approx(45.0)
    assert p.median_seconds == 30.0
    # without the cap the idle grade would have dragged the pace to 5 / (1100 / 3600)
    assert pace([10, 20, 30, 1000, 40], cap=math.inf).per_hour == pytest.approx(16.3636, abs=1e-4)
    assert capped_seconds([5, 300, 301], 300)[1] == 1  # exactly the cap is not capped


def test_pace_without_timed_grades():
    p = pace([0, 0], cap=300)
    assert (p.timed, p.capped, p.hours) == (0, 0, 0.0)
    assert math.isnan(p.per_hour) and math.isnan(p.median_seconds)


def test_rolling_median_and_mean():
    assert rolling_median([10, 30, 20, 100, 5], 3).tolist() == [10, 20, 20, 30, 20]
    assert rolling_mean([1, 0, 1, 1, 0], 2).tolist() == [1.0, 0.5, 0.5, 1.0, 0.5]
    assert rolling_median([], 3).size == 0 and rolling_mean([], 3).size == 0
    with pytest.raises(ValueError):
        rolling_mean([1], 0)


def test_grade_drift_first_against_last_quarter():
    # 20 grades on a 0-3 scale: the first five are mostly 0, the last five mostly 2 and 3.
    grades = [0, 0, 0, 1, 0] + [1, 2, 1, 0, 2] + [1, 1, 2, 2, 1] + [2, 3, 2, 3, 1]
    d = grade_drift(grades, [0, 1, 2, 3])
    assert d.quarter == 5
    assert d.first.tolist() == [4, 1, 0, 0] and d.last.tolist() == [0, 1, 2, 2]
    assert d.shares("first").tolist() == [0.8, 0.2, 0.0, 0.0]
    # table [[4,1,0,0],[0,1,2,2]]: expected 2, 1, 1, 1 in each row;
    # statistic 2·(2²/2) + 0 + 2·(1²/1) + 2·(1²/1) = 8 on 3 df, p = 0.0460
    assert (d.test.statistic, d.test.df, d.test.min_expected) == (8.0, 3, 1.0)
    assert d.test.p_value == pytest.approx(0.0460, abs=1e-4)
    assert d.test.p_value == pytest.approx(chi2_contingency([[4, 1, 0, 0], [0, 1, 2, 2]], correction=False)[1])
    # the same distribution in both quarters: statistic 0, p 1
    steady = grade_drift([1, 2, 1, 2, 1, 2, 1, 2], [0, 1, 2])
    assert steady.quarter == 2 and steady.test.statistic == 0.0 and steady.test.p_value == 1.0


def test_grade_drift_needs_four_grades():
    d = grade_drift([1, 2, 3], [0, 1, 2, 3])
    assert d.quarter == 0 and d.first.sum() == 0
    assert math.isnan(d.test.p_value) and np.isnan(d.shares("last")).all()


def test_agreement_with_others():
    # items 7, 8, 9; the others graded 7 as 1 and 1, 8 as 2, nobody else graded 9
    n, same = agreement_with_others([7, 8, 9, 7], [1, 0, 3, 2], [7, 8, 7], [1, 2, 1])
    assert n.tolist() == [2, 1, 0, 2] and same.tolist() == [2, 0, 0, 0]
    n, same = agreement_with_others([1], [-1], [1, 1], [-1, 0])  # negative grades too
    assert (n.tolist(), same.tolist()) == ([2], [1])
