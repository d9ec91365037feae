"""Pace and drift of stored assessors (campaign/judging/pace.py on each backend): idle
time capped at the one cap, undone grades out of drift and agreement but their time kept,
agreement with the others' current grades."""

from __future__ import annotations

import math

import pytest

from workbench.campaign.judging.pace import IDLE_CAP_SECONDS, list_values, watch_assessors
from workbench.campaign.judging.grades import record_grade, undo_last

RUN = [f"q1 Q0 d{i} {i} {20 - i} A" for i in range(1, 10)]


@pytest.fixture
def graded(db, tmp_path):
    from workbench.campaign.catalog.importing import import_run

    path = tmp_path / "a.run"
    path.write_text("\n".join(RUN) + "\n")
    import_run(db, str(path))
    # ann: d1..d8 graded 0 0 1 1 1 1 2 2 with 10 20 30 40 600 50 60 0 seconds (600: the
    # screen left open; 0: untimed), then d9 = 3 in 5 s, taken back by an undo
    for i, (grade, secs) in enumerate(zip([0, 0, 1, 1, 1, 1, 2, 2], [10, 20, 30, 40, 600, 50, 60, 0]), 1):
        record_grade(db, "ann", "q1", f"d{i}", grade, seconds=secs)
    record_grade(db, "ann", "q1", "d9", 3, seconds=5)
    undo_last(db, "ann")
    # bob agrees with ann on d1 and d7, not on d2
    for doc, grade in (("d1", 0), ("d2", 1), ("d7", 2)):
        record_grade(db, "bob", "q1", doc, grade)
    return db


def test_pace_drift_and_agreement_of_stored_grades(graded):
    watch = watch_assessors(graded)
    assert watch.idle_cap == IDLE_CAP_SECONDS == 300 and watch.levels.tolist() == [0, 1, 2, 3]
    ann = watch.of("ann")
    # nine grade events; timed: 10 20 30 40 300 50 60 5 (the undone one's time was spent)
    assert ann.grades == 9 and (ann.pace.timed, ann.pace.capped) == (8, 1)
    assert ann.pace.per_hour == pytest.approx(8 * 3600 / 515)
    assert ann.pace.median_seconds == 35.0
    assert ann.seconds_at.tolist() == [1, 2, 3, 4, 5, 6, 7, 9]
    assert ann.seconds.tolist() == [10, 20, 30, 40, 300, 50, 60, 5]
    # drift on the eight kept grades: first quarter 0 0, last 2 2 -> table [[2, 0], [0, 2]]
    # after the empty grades go: statistic 4 on 1 df, p = erfc(sqrt(2)) = 0.0455
    assert ann.shares("first") == {0: 1.0, 1: 0.0, 2: 0.0, 3: 0.0}
    assert ann.shares("last") == {0: 0.0, 1: 0.0, 2: 1.0, 3: 0.0}
    assert (ann.drift.test.statistic, ann.drift.test.df) == (4.0, 1)
    assert ann.drift.test.p_value == pytest.approx(math.erfc(math.sqrt(2)))
    assert ann.drifting
    # agreement with bob's current grades: d1 yes, d2 no, d7 yes
    assert ann.agreement_at.tolist() == [1, 2, 7]
    assert ann.agreement_trend.tolist() == pytest.approx([1.0, 0.5, 2 / 3])
    assert ann.agreement == pytest.approx(2 / 3)
    bob = watch.of("bob")
    assert bob.grades == 3 and bob.pace.timed == 0 and math.isnan(bob.pace.per_hour)
    assert bob.shares("first") == {} and math.isnan(bob.drift.test.p_value) and not bob.drifting
    assert bob.agreement == pytest.approx(2 / 3)
    assert list_values(ann)[:3] == (pytest.approx(55.922, abs=1e-3), 35.0, 1)


def test_the_cap_is_a_parameter(graded):
    loose = watch_assessors(graded, idle_cap=1000).of("ann")
    assert loose.pace.capped == 0 and loose.pace.per_hour == pytest.approx(8 * 3600 / 815)
    tight = watch_assessors(graded, idle_cap=25, window=2).of("ann")
    assert tight.pace.capped == 5 and tight.seconds.max() == 25
    assert tight.seconds_trend.tolist() == [10, 15, 22.5, 25, 25, 25, 25, 15]
    with pytest.raises(ValueError):
        watch_assessors(graded, idle_cap=0)
