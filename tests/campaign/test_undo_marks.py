"""`u` (campaign.judging.grades.undo_last) steps back through grades and can't-judge marks, one
action at a time, on each backend: undoing a mark never reverts an earlier grade of
another document."""

from __future__ import annotations

from tests.tui.factory import build_campaign
from tests.tui.helpers import events, judgments
from workbench.campaign.judging.marks import clear_cant_judge, list_cant_judge, mark_cant_judge
from workbench.campaign.judging.grades import record_grade, undo_last


def _marks(db):
    return [(m.document, m.reason) for m in list_cant_judge(db, "alice")]


def test_undo_after_a_mark_removes_the_mark_not_an_earlier_grade(db):
    camp = build_campaign(db, n_queries=1, n_systems=1, depth=3)
    d1, d2 = camp.queues["q1"]["alice"][:2]
    record_grade(db, "alice", "q1", d1, 2)
    mark_cant_judge(db, "alice", "q1", d2, reason="blank page")
    record = undo_last(db, "alice", "q1")
    assert (record.document, record.new_grade, record.cant_judge) == (d2, None, False)
    assert _marks(db) == [] and judgments(db, "alice") == {("q1", d1): 2}
    # the next undo is the grade before it; then nothing is left
    assert undo_last(db, "alice", "q1").document == d1
    assert judgments(db, "alice") == {}
    assert undo_last(db, "alice", "q1") is None


def test_undo_of_a_mark_on_a_graded_document_brings_the_grade_back_in_one_step(db):
    camp = build_campaign(db, n_queries=1, n_systems=1, depth=3)
    d1 = camp.queues["q1"]["alice"][0]
    record_grade(db, "alice", "q1", d1, 3)
    mark_cant_judge(db, "alice", "q1", d1)
    assert judgments(db, "alice") == {}
    record = undo_last(db, "alice")
    assert (record.new_grade, record.cant_judge) == (3, False)
    assert judgments(db, "alice") == {("q1", d1): 3} and _marks(db) == []
    # the mark's `clear` is undone with it: the next step is the grade 3 itself
    assert undo_last(db, "alice").new_grade is None and judgments(db, "alice") == {}
    assert undo_last(db, "alice") is None


def test_undo_after_removing_a_mark_puts_it_back_with_its_reason(db):
    camp = build_campaign(db, n_queries=1, n_systems=1, depth=3)
    d1 = camp.queues["q1"]["alice"][0]
    mark_cant_judge(db, "alice", "q1", d1, reason="wrong language")
    clear_cant_judge(db, "alice", "q1", d1)
    record = undo_last(db, "alice")
    assert record.cant_judge is True and _marks(db) == [(d1, "wrong language")]
    # and undoing again removes it (the mark itself), then nothing is left
    assert undo_last(db, "alice").cant_judge is False and _marks(db) == []
    assert undo_last(db, "alice") is None


def test_a_grade_that_removed_a_mark_is_undone_in_two_steps(db):
    camp = build_campaign(db, n_queries=1, n_systems=1, depth=3)
    d1 = camp.queues["q1"]["alice"][0]
    mark_cant_judge(db, "alice", "q1", d1, reason="broken")
    record_grade(db, "alice", "q1", d1, 1)  # a grade removes the mark
    assert _marks(db) == [] and judgments(db, "alice") == {("q1", d1): 1}
    assert undo_last(db, "alice").new_grade is None and judgments(db, "alice") == {}
    assert undo_last(db, "alice").cant_judge is True and _marks(db) == [(d1, "broken")]
    assert [e[0] for e in events(db, "alice")] == [
        "cant_judge", "cant_judge_clear", "set", "undo", "cant_judge"]
