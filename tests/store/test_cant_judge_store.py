""""Can't judge" marks on both backends: its own state (not a grade), one per (assessor,
item), history in judgment_event, progress counts it done, a grade removes it."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests.tui.factory import build_campaign
from tests.tui.helpers import events, judgments
from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.judging import assessing
from workbench.campaign.judging.marks import (
    clear_cant_judge,
    list_cant_judge,
    mark_cant_judge,
    mark_repeat_cant_judge,
)
from workbench.campaign.judging.grades import record_grade, undo_last
from workbench.campaign.scoring.qrels import derive_qrels
from workbench.errors import NotFoundError
from workbench.store.models import CantJudge, JudgmentEvent


@pytest.fixture
def camp(db):
    return db, build_campaign(db, n_queries=2, n_systems=2, depth=4, assessors=("alice", "bob"),
                              markup_doc=False)


def _marks(db):
    with db.read() as s:
        return s.execute(select(CantJudge.reason)).scalars().all()


def test_a_mark_is_listed_settles_the_item_and_is_no_grade(camp):
    db, c = camp
    q1 = c.queries[0]
    d = c.queues[q1]["alice"]
    rec = mark_cant_judge(db, "alice", q1, d[1], reason="page is empty")
    assert (rec.marked, rec.cleared_grade, rec.reason) == (True, None, "page is empty")
    rows = list_cant_judge(db)
    assert [(r.query, r.document, r.assessor, r.reason) for r in rows] == [(q1, d[1], "alice", "page is empty")]
    assert list_cant_judge(db, "bob") == [] and list_cant_judge(db, "nobody") == []
    # not a grade: no judgment, nothing in the qrels
    assert judgments(db, "alice") == {}
    assert (q1, d[1]) not in {(q, doc) for q, doc, _ in derive_qrels(db, source=QrelsSource.assessor("alice")).rows()}
    # settled in the queue and counted done
    queue = assessing.load_queue(db, "alice", q1)
    marked = [it for it in queue.items if it.document == d[1]][0]
    assert marked.cant_judge and marked.judged and marked.grade is None
    assert queue.first_unjudged(1) == 2
    progress = {p.query: p.judged for p in assessing.query_progress_page(db, "alice")[0]}
    assert progress[q1] == 1
    assert {p.query: p.judged for p in assessing.query_progress_page(db, "bob")[0]}[q1] == 0
    assert events(db, "alice") == [("cant_judge", q1, d[1], None, None)]


def test_marking_clears_a_grade_and_a_grade_removes_the_mark(camp):
    db, c = camp
    q1 = c.queries[0]
    d = c.queues[q1]["alice"]
    record_grade(db, "alice", q1, d[0], 2)
    rec = mark_cant_judge(db, "alice", q1, d[0], reason="broken")
    assert rec.cleared_grade == 2
    assert judgments(db, "alice") == {} and _marks(db) == ["broken"]
    # marking again replaces the reason: still one mark
    mark_cant_judge(db, "alice", q1, d[0], reason="broken link")
    assert _marks(db) == ["broken link"]
    # undo steps back: first the earlier reason, then the grade comes back and the mark goes
    undone = undo_last(db, "alice", q1)
    assert (undone.new_grade, undone.cant_judge) == (None, True) and _marks(db) == ["broken"]
    undone = undo_last(db, "alice", q1)
    assert (undone.new_grade, undone.cant_judge) == (2, False)
    assert judgments(db, "alice") == {(q1, d[0]): 2} and _marks(db) == []
    mark_cant_judge(db, "alice", q1, d[0])
    record_grade(db, "alice", q1, d[0], 1)  # judged after all
    assert judgments(db, "alice") == {(q1, d[0]): 1} and _marks(db) == []
    assert [e[0] for e in events(db, "alice")] == [
        "set", "clear", "cant_judge", "cant_judge", "cant_judge", "cant_judge_clear", "undo",
        "clear", "cant_judge", "cant_judge_clear", "set"]


def test_clear_and_unknown_ids(camp):
    db, c = camp
    q1 = c.queries[0]
    d = c.queues[q1]["alice"]
    mark_cant_judge(db, "alice", q1, d[2])
    rec = clear_cant_judge(db, "alice", q1, d[2])
    assert rec.marked is False and _marks(db) == []
    assert [e[0] for e in events(db, "alice")] == ["cant_judge", "cant_judge_clear"]
    with pytest.raises(NotFoundError):
        mark_cant_judge(db, "alice", q1, "no-such-doc")
    assert _marks(db) == []


def test_a_repeat_marked_keeps_the_first_grade(camp):
    db, c = camp
    q1 = c.queries[0]
    d = c.queues[q1]["alice"]
    record_grade(db, "alice", q1, d[0], 3)
    mark_repeat_cant_judge(db, "alice", q1, d[0], reason="cannot read it now")
    assert judgments(db, "alice") == {(q1, d[0]): 3} and _marks(db) == []
    with db.read() as s:
        ev = s.execute(select(JudgmentEvent.kind, JudgmentEvent.old_grade, JudgmentEvent.new_grade,
                              JudgmentEvent.note).order_by(JudgmentEvent.id.desc())).first()
    assert tuple(ev) == ("repeat", 3, None, "can't judge: cannot read it now")


def test_removing_an_assessor_takes_the_marks_and_archives_their_history(camp):
    from workbench.campaign.catalog.listing import remove

    db, c = camp
    q1 = c.queries[0]
    mark_cant_judge(db, "bob", q1, c.queues[q1]["bob"][0], reason="x")
    assert "1 history event archived" in remove(db, "assessor", "bob")
    assert _marks(db) == []


def test_an_imported_grade_clears_the_mark_like_any_grade(camp, tmp_path):
    """`grade --cant-judge q d`, then `import qrels` with `q 0 d 2` for
    the same assessor, left both the grade and the mark. A grade clears a mark, whoever
    writes it: the import goes through the judging rule (its clear event comes first)."""
    from workbench.campaign.catalog.importing import import_qrels

    db, c = camp
    q1 = c.queries[0]
    d = c.queues[q1]["alice"]
    mark_cant_judge(db, "alice", q1, d[0], reason="broken")
    mark_cant_judge(db, "bob", q1, d[0], reason="bob's own")  # another assessor's stays
    mark_cant_judge(db, "alice", q1, d[2], reason="not in the file")  # stays too
    qrels = tmp_path / "alice.qrels"
    qrels.write_text(f"{q1} 0 {d[0]} 2\n{q1} 0 {d[1]} 1\n")
    import_qrels(db, qrels, assessor="alice")
    assert judgments(db, "alice") == {(q1, d[0]): 2, (q1, d[1]): 1}
    assert sorted((r.document, r.assessor) for r in list_cant_judge(db)) == sorted(
        [(d[0], "bob"), (d[2], "alice")])
    ev = events(db, "alice")
    assert ev[-3:-2] == [("cant_judge_clear", q1, d[0], None, None)]
    assert sorted(ev[-2:]) == sorted([("set", q1, d[0], None, 2), ("set", q1, d[1], None, 1)])
    queue = assessing.load_queue(db, "alice", q1)
    first = [it for it in queue.items if it.document == d[0]][0]
    assert (first.grade, first.cant_judge) == (2, False)
