"""Watching the assessors at work, for the lead: each one's pace (documents per hour,
median seconds per document, idle time capped) and drift (grade distribution in their
first and last quarter of grades, tested for a change; agreement with the other assessors
over their grades), for `workbench list assessors` and the lead's Pace screen (F8).

Which grades count (docs/pace.md):
- every grade given is a `set`, `change` or `repeat` event, taken in the order given;
- pace uses the ones with a time (seconds > 0; `grade` on the command line and imported
  qrels have none), each capped at `idle_cap` seconds (IDLE_CAP_SECONDS by default);
- drift and agreement leave out grades an undo took back (a slipped key), so only what the
  assessor meant is compared; agreement compares each grade with the other assessors'
  current grades of the same document for the same query.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.campaign.database import Database
from workbench.campaign.settings import DEFAULT_IDLE_CAP
from workbench.metrics.drift import GradeDrift, agreement_with_others, grade_drift, rolling_mean
from workbench.metrics.pace import Pace, capped_seconds, pace, rolling_median

# Seconds on one document above this are idle time (a screen left open), not judging:
# the default of the campaign's setting (`campaign --idle-cap`), which callers pass as `idle_cap`.
IDLE_CAP_SECONDS = float(DEFAULT_IDLE_CAP)
WINDOW = 20  # grades in each point of the plotted trends
DRIFT_ALPHA = 0.05  # p below this marks a drift on the Pace screen


@dataclass(frozen=True)
class AssessorWatch:
    """One assessor's numbers and the series the Pace screen plots. Positions are 1-based
    numbers of the assessor's grades in the order given (every grade event), so the seconds
    and the agreement curves share their x axis."""

    name: str
    grades: int  # grade events, undone ones included
    pace: Pace
    drift: GradeDrift
    seconds_at: np.ndarray  # position of each timed grade
    seconds: np.ndarray  # its seconds, capped
    seconds_trend: np.ndarray  # rolling median over WINDOW timed grades
    agreement_at: np.ndarray  # position of each grade that others graded too
    agreement_trend: np.ndarray  # rolling mean over WINDOW such grades of the share of equal grades
    agreement: float  # over all of them: equal grades / others' grades compared (NaN: none)

    @property
    def drifting(self) -> bool:
        p = self.drift.test.p_value
        return not math.isnan(p) and p < DRIFT_ALPHA

    def shares(self, which: str) -> dict[int, float]:
        """Grade -> share of the grades in the `which` ("first" or "last") quarter; empty
        without quarters (fewer than four grades)."""
        if not self.drift.quarter:
            return {}
        return dict(zip(self.drift.levels.tolist(), self.drift.shares(which).tolist()))


@dataclass(frozen=True)
class Watch:
    idle_cap: float
    window: int
    levels: np.ndarray  # the scale's grades and any other grade given
    assessors: list[AssessorWatch]

    def of(self, name: str) -> AssessorWatch:
        return next(a for a in self.assessors if a.name == name)

    def watched(self, name: str) -> bool:
        """False for a machine assessor (pace and drift are about people)."""
        return any(a.name == name for a in self.assessors)


def watch_assessors(db: Database, *, idle_cap: float = IDLE_CAP_SECONDS, window: int = WINDOW) -> Watch:
    """Every assessor's pace and drift (assessors without a grade included, with NaNs)."""
    with db.read() as s:
        return read_watch(s, idle_cap=idle_cap, window=window)


def read_watch(session, *, idle_cap: float = IDLE_CAP_SECONDS, window: int = WINDOW) -> Watch:
    """watch_assessors inside an open read session (one snapshot with the caller's counts)."""
    from workbench.store.grade_history import grade_history
    from workbench.store.judgment_arrays import current_judgments, lead_only_ids
    from workbench.store.machine import machine_assessor_ids
    from workbench.store.scale_levels import scale_grades

    history = grade_history(session)
    current = current_judgments(session)
    scale = scale_grades(session)
    return compute_watch(history, current, scale, idle_cap=idle_cap, window=window,
                         machines=machine_assessor_ids(session), leads=lead_only_ids(session))


def compute_watch(history, current, scale, *, idle_cap: float, window: int,
                  machines: np.ndarray | None = None, leads: set[int] = frozenset()) -> Watch:
    """The Watch from loaded arrays: `history` a store GradeHistory, `current` the current
    Judgments (query_id, document_id, assessor_id, grade), `scale` the scale's grades.

    Pace and drift are about people: the assessors in `machines` (ids) are left out, both
    as assessors watched and as the "others" a person's agreement is measured against; the
    `leads` (ids of leads who only adjudicated) are not assessors and are left out too."""
    machines = np.asarray(machines if machines is not None else [], dtype=np.int64)
    people = ~np.isin(current.assessor_id, machines)
    if not idle_cap > 0:
        raise ValueError(f"the idle cap must be positive seconds, not {idle_cap}")
    levels = np.union1d(np.asarray(scale, dtype=np.int64), history.grade)
    span = int(max(history.document_id.max(initial=0), current.document_id.max(initial=0))) + 1
    item = history.query_id * span + history.document_id
    current_item = current.query_id * span + current.document_id
    out = []
    for i, name in enumerate(history.assessors):
        if history.assessor_ids[i] in machines or int(history.assessor_ids[i]) in leads:
            continue
        mine = np.flatnonzero(history.assessor == i)
        position = np.arange(1, mine.size + 1)
        secs = history.seconds[mine]
        timed = secs > 0
        capped, _ = capped_seconds(secs[timed], idle_cap)
        kept = ~history.reverted[mine]
        drift = grade_drift(history.grade[mine][kept], levels)
        others = people & (current.assessor_id != history.assessor_ids[i])
        n, same = agreement_with_others(item[mine][kept], history.grade[mine][kept],
                                        current_item[others], current.grade[others])
        compared = n > 0
        out.append(AssessorWatch(
            name, int(mine.size), pace(secs, idle_cap), drift,
            position[timed], capped, rolling_median(capped, window),
            position[kept][compared], rolling_mean(same[compared] / n[compared], window),
            float(same.sum() / n.sum()) if n.sum() else float("nan"),
        ))
    return Watch(float(idle_cap), window, levels, out)


# The pace and drift columns of `workbench list assessors` (docs/json-outputs.md).
LIST_COLUMNS = ("docs_per_hour", "median_seconds", "capped", "grades_first_quarter",
                "grades_last_quarter", "drift_chi2", "drift_df", "drift_p")


def shares_text(shares: dict[int, float]) -> str:
    """{grade: share} as `0:80% 1:20%` (the table and CSV form; JSON keeps the object)."""
    return " ".join(f"{grade}:{share:.0%}" for grade, share in shares.items())


# A machine assessor's LIST_COLUMNS: no pace, no drift.
NOT_WATCHED = (float("nan"), float("nan"), 0, {}, {}, float("nan"), 0, float("nan"))


def list_values(a: AssessorWatch) -> tuple:
    """`a`'s values for LIST_COLUMNS: grade shares as {grade: share}, NaN where undefined."""
    t = a.drift.test
    return (a.pace.per_hour, a.pace.median_seconds, a.pace.capped, a.shares("first"),
            a.shares("last"), t.statistic, t.df, t.p_value)
