"""How fast an assessor judges: documents per hour and median seconds per document, from
the seconds spent on each grade, with idle time capped.

An assessor who leaves the judging screen open over lunch records one document that took
an hour; counting it would halve their documents per hour. Seconds above `cap` count as
`cap` (the idle time is not counted), and how many grades were capped is reported so the
lead sees how much the cap changed. Grades without a time (seconds 0: `grade` on the
command line, imported qrels) are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Pace:
    """`timed` grades with a time, `capped` of them cut at the cap, `hours` of judging time
    (capped), documents per hour and median seconds per document (NaN without a timed
    grade)."""

    timed: int
    capped: int
    hours: float
    per_hour: float
    median_seconds: float


def capped_seconds(seconds, cap: float) -> tuple[np.ndarray, int]:
    """The seconds with every value above `cap` set to `cap`, and how many were."""
    seconds = np.asarray(seconds, dtype=np.float64)
    over = seconds > cap
    return np.where(over, cap, seconds), int(np.count_nonzero(over))


def pace(seconds, cap: float) -> Pace:
    """Pace of one assessor from the seconds spent on each of their grades (0: untimed)."""
    seconds = np.asarray(seconds, dtype=np.float64)
    timed, n_capped = capped_seconds(seconds[seconds > 0], cap)
    total = float(timed.sum())
    if not timed.size:
        return Pace(0, 0, 0.0, float("nan"), float("nan"))
    return Pace(int(timed.size), n_capped, total / 3600, timed.size / (total / 3600),
                float(np.median(timed)))


def rolling_median(values, window: int) -> np.ndarray:
    """The median of each value and the `window - 1` before it (fewer at the start), so a
    plot of it follows a change of pace without the noise of single documents."""
    values = np.asarray(values, dtype=np.float64)
    if window < 1:
        raise ValueError("window must be at least 1")
    if not values.size:
        return values.copy()
    padded = np.concatenate([np.full(window - 1, np.nan), values])
    return np.nanmedian(np.lib.stride_tricks.sliding_window_view(padded, window), axis=1)
