"""store/adjudications.py (what the lead reads, the final-grade write) and
store/export_rows.py (streamed export rows): real values, on both backends."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from sqlalchemy import event, insert, select

from workbench.store.adjudications import (
    ConcurrentAdjudication,
    FinalGrade,
    ItemText,
    final_grade,
    item_grades,
    item_text,
    scale_grades,
    write_adjudication,
)
from workbench.store.export_rows import current_judgment_rows, judgment_event_rows
from workbench.store.models import (
    Adjudication,
    Assessor,
    Document,
    Judgment,
    JudgmentEvent,
    Query,
)

T1 = datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc)
T2 = datetime(2024, 5, 2, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def item(db):
    """q1 (title, description, narrative) and d1 (title, text, url), graded by bob (1, a
    note) and alice (3, no note); d2 graded by alice only; one event each."""
    with db.write.begin() as s:
        s.execute(insert(Query), [{"ext_id": "q1", "title": "Cats", "description": "About cats",
                                   "narrative": "Pets only"}])
        s.execute(insert(Document), [
            {"ext_id": "d1", "title": "Tabby", "text": "A tabby cat.", "url": "http://x/1"},
            {"ext_id": "d2", "title": "", "text": "", "url": None},
        ])
        s.execute(insert(Assessor), [{"name": "bob"}, {"name": "alice"}, {"name": "lead"}])
        q = s.scalar(select(Query.id))
        d = dict(s.execute(select(Document.ext_id, Document.id)).all())
        a = dict(s.execute(select(Assessor.name, Assessor.id)).all())
        s.execute(insert(Judgment), [
            {"query_id": q, "document_id": d["d1"], "assessor_id": a["bob"], "grade": 1,
             "note": "mentions cats", "seconds": 2.5, "updated_at": T1},
            {"query_id": q, "document_id": d["d1"], "assessor_id": a["alice"], "grade": 3,
             "note": "", "seconds": 0.0, "updated_at": T2},
            {"query_id": q, "document_id": d["d2"], "assessor_id": a["alice"], "grade": 0,
             "note": "", "seconds": 1.0, "updated_at": T1},
        ])
        s.execute(insert(JudgmentEvent), [
            {"query_id": q, "document_id": d["d1"], "assessor_id": a["alice"], "kind": "set",
             "old_grade": None, "new_grade": 3, "note": "", "seconds": 4.0, "created_at": T2},
            {"query_id": q, "document_id": d["d1"], "assessor_id": a["bob"], "kind": "clear",
             "old_grade": 2, "new_grade": None, "note": "oops", "seconds": 0.0, "created_at": T1},
        ])
    return db, q, d, a


def test_what_the_lead_reads(item):
    db, q, d, a = item
    with db.read() as s:
        assert item_text(s, q, d["d1"]) == ItemText(
            "q1", "Cats", "About cats", "Pets only", "d1", "Tabby", "A tabby cat.", "http://x/1")
        assert item_text(s, q, d["d2"]).url is None
        assert item_grades(s, q, d["d1"]) == (("alice", 3, ""), ("bob", 1, "mentions cats"))
        assert item_grades(s, q, d["d2"]) == (("alice", 0, ""),)
        assert final_grade(s, q, d["d1"]) is None
        assert scale_grades(s) == [0, 1, 2, 3]


def test_write_adjudication_sets_changes_and_removes_with_events(item):
    db, q, d, a = item
    with db.write.begin() as s:
        first = write_adjudication(s, q, d["d1"], a["lead"], 2, "bob is right", "adjudicate")
    assert first.old_grade is None
    with db.write.begin() as s:
        second = write_adjudication(s, q, d["d1"], a["alice"], 3, "", "adjudicate")
    with db.read() as s:
        assert final_grade(s, q, d["d1"]) == FinalGrade(3, "", "alice")
    with db.write.begin() as s:
        third = write_adjudication(s, q, d["d1"], a["lead"], None, "undecided", "adjudicate")
    assert (second.old_grade, third.old_grade) == (2, 3)
    assert first.event_id < second.event_id < third.event_id
    with db.read() as s:
        assert final_grade(s, q, d["d1"]) is None
        assert s.scalar(select(Adjudication.grade)) is None
        events = s.execute(
            select(JudgmentEvent.assessor_id, JudgmentEvent.kind, JudgmentEvent.old_grade,
                   JudgmentEvent.new_grade, JudgmentEvent.note)
            .where(JudgmentEvent.kind == "adjudicate").order_by(JudgmentEvent.id)
        ).all()
    assert [tuple(e) for e in events] == [
        (a["lead"], "adjudicate", None, 2, "bob is right"),
        (a["alice"], "adjudicate", 2, 3, ""),
        (a["lead"], "adjudicate", 3, None, "undecided"),
    ]


def test_a_first_grade_written_meanwhile_is_a_concurrent_adjudication(item):
    """Another writer's row appears between the locking read and the insert (what two
    leads on PostgreSQL do): our error, nothing written, the other row kept."""
    db, q, d, a = item
    s = db.write()
    s.begin()

    @event.listens_for(s, "before_flush")
    def other_writer(session, *_):
        session.connection().execute(insert(Adjudication).values(
            query_id=q, document_id=d["d1"], grade=1, adjudicator_id=a["bob"], note=""))

    with pytest.raises(ConcurrentAdjudication, match="(?i)unique|duplicate"):
        write_adjudication(s, q, d["d1"], a["lead"], 2, "", "adjudicate")
    s.rollback()
    s.close()
    with db.read() as r:
        assert r.scalar(select(Adjudication.grade)) is None
        assert r.scalar(select(JudgmentEvent.id).where(JudgmentEvent.kind == "adjudicate")) is None


def _plain(value):
    """Datetimes compared as naive UTC (SQLite gives them back without a zone)."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(timezone.utc).replace(tzinfo=None)
    return value


def test_current_judgment_rows_sorted_and_filtered(item):
    db, q, d, a = item
    with db.read() as s:
        rows = [tuple(map(_plain, r)) for r in current_judgment_rows(s)]
        bob = list(current_judgment_rows(s, a["bob"]))
    t1, t2 = _plain(T1), _plain(T2)
    assert rows == [
        ("q1", "d1", "alice", 3, "", 0.0, t2),
        ("q1", "d1", "bob", 1, "mentions cats", 2.5, t1),
        ("q1", "d2", "alice", 0, "", 1.0, t1),
    ]
    assert [r[:4] for r in bob] == [("q1", "d1", "bob", 1)]


def test_judgment_event_rows_in_the_order_they_happened(item):
    db, q, d, a = item
    with db.read() as s:
        rows = [tuple(map(_plain, r)) for r in judgment_event_rows(s)]
        alice = list(judgment_event_rows(s, a["alice"]))
    assert rows == [  # by event id, not by time
        ("q1", "d1", "alice", 3, "", 4.0, _plain(T2), "set"),
        ("q1", "d1", "bob", None, "oops", 0.0, _plain(T1), "clear"),
    ]
    assert [r[7] for r in alice] == ["set"]
