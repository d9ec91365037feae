"""Does an assessor grade differently at the end than at the start? Grade distribution in
the first and the last quarter of their grades, compared by a chi-square test of
homogeneity, and their agreement with the other assessors over their grades.

A share of relevant grades that moves, or agreement that drops as the campaign goes on,
is a sign of fatigue or of a criterion that shifted, worth a word with the assessor. A
small p-value says the two quarters are unlikely to be draws from one distribution; it
does not say which quarter is right, and the queries judged early and late may differ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.metrics.chi_square import ChiSquareTest, homogeneity

MIN_GRADES = 4  # a quarter needs at least one grade


@dataclass(frozen=True)
class GradeDrift:
    """`quarter` grades in each quarter; per level (in `levels` order) the counts in the
    first and in the last quarter; the chi-square test between them."""

    quarter: int
    levels: np.ndarray
    first: np.ndarray
    last: np.ndarray
    test: ChiSquareTest

    def shares(self, which: str) -> np.ndarray:
        counts = self.first if which == "first" else self.last
        return counts / counts.sum() if self.quarter else np.full(counts.shape, np.nan)


def grade_drift(grades, levels) -> GradeDrift:
    """First vs last quarter (n // 4 grades each) of `grades`, in the order given (time
    order), counted over `levels` (the scale's grades). With fewer than MIN_GRADES grades
    there are no quarters: counts 0 and a test with p NaN."""
    grades = np.asarray(grades, dtype=np.int64)
    levels = np.asarray(levels, dtype=np.int64)
    quarter = grades.size // 4 if grades.size >= MIN_GRADES else 0

    def counts(part: np.ndarray) -> np.ndarray:
        return (part[:, None] == levels[None, :]).sum(axis=0)

    first = counts(grades[:quarter])
    last = counts(grades[grades.size - quarter:] if quarter else grades[:0])
    return GradeDrift(quarter, levels, first, last, homogeneity(np.vstack([first, last])))


def agreement_with_others(item, grade, other_item, other_grade) -> tuple[np.ndarray, np.ndarray]:
    """For each grade `grade[i]` given to item `item[i]` (integer item keys), how many of
    the other assessors' grades (`other_item`, `other_grade`: one per other assessor and
    item) there are for that item, and how many of them are equal to it."""
    item = np.asarray(item, dtype=np.int64)
    grade = np.asarray(grade, dtype=np.int64)
    other_item = np.asarray(other_item, dtype=np.int64)
    other_grade = np.asarray(other_grade, dtype=np.int64)
    order = np.lexsort((other_grade, other_item))
    oi, og = other_item[order], other_grade[order]
    n = np.searchsorted(oi, item, side="right") - np.searchsorted(oi, item, side="left")
    # (item, grade) pairs sort like the single key item * span + grade, grade shifted >= 0
    low = min(int(og.min(initial=0)), int(grade.min(initial=0)))
    span = max(int(og.max(initial=0)), int(grade.max(initial=0))) - low + 1
    keys = oi * span + (og - low)
    mine = item * span + (grade - low)
    same = np.searchsorted(keys, mine, side="right") - np.searchsorted(keys, mine, side="left")
    return n.astype(np.int64), same.astype(np.int64)


def rolling_mean(values, window: int) -> np.ndarray:
    """The mean of each value and the `window - 1` before it (fewer at the start)."""
    values = np.asarray(values, dtype=np.float64)
    if window < 1:
        raise ValueError("window must be at least 1")
    sums = np.cumsum(np.concatenate([[0.0], values]))
    ends = np.arange(1, values.size + 1)
    starts = np.maximum(ends - window, 0)
    return (sums[ends] - sums[starts]) / (ends - starts)
