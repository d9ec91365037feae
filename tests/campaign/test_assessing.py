"""Assessor read models and actions: queue order, blind grades, resume, notes, repeats."""

from __future__ import annotations

from sqlalchemy import delete, select

from tests.tui.factory import build_campaign
from workbench.campaign.judging import assessing as A
from workbench.campaign.judging.grades import record_grade
from workbench.store.models import Assignment, Judgment, JudgmentEvent


def test_queue_in_assignment_order_with_only_this_assessors_grades(db):
    camp = build_campaign(db, n_queries=2, assessors=("alice", "bob"))
    order = camp.queues["q1"]["alice"]
    record_grade(db, "bob", "q1", order[0], 3)  # another assessor: must not show
    record_grade(db, "alice", "q1", order[1], 2)
    queue = A.load_queue(db, "alice", "q1")
    assert [i.document for i in queue.items] == order
    assert queue.items[0].grade is None
    assert queue.items[1].grade == 2
    assert queue.query.title == "Title of q1" and queue.query.narrative == "Narrative of q1"
    assert queue.first_unjudged() == 0
    # blind: the record has no field that could carry a system, rank or score (cant_judge is
    # this assessor's own mark, a bool; listed_blind and grade_hidden hide more, bools too)
    assert set(vars(queue.items[0])) == {"position", "document", "title", "text", "grade", "repeat", "note",
                                         "cant_judge", "listed_blind", "grade_hidden"}


def test_progress_and_resume(db):
    camp = build_campaign(db, n_queries=3)
    q1 = camp.queues["q1"]["alice"]
    for d in q1:
        record_grade(db, "alice", "q1", d, 1)
    q2 = camp.queues["q2"]["alice"]
    record_grade(db, "alice", "q2", q2[0], 0)
    record_grade(db, "alice", "q2", q2[1], 0)
    progress, after = A.query_progress_page(db, "alice")
    assert after is None  # one page
    assert [(p.query, p.judged, p.pooled) for p in progress] == [
        ("q1", len(q1), len(q1)), ("q2", 2, len(q2)), ("q3", 0, len(camp.queues["q3"]["alice"])),
    ]
    totals, first = A.progress_summary(db, "alice")
    assert first == "q2"
    assert (totals.queries, totals.judged, totals.done) == (3, len(q1) + 2, 1)
    assert A.load_queue(db, "alice", "q2").first_unjudged() == 2
    # the judging session's next and previous query with work left (wrapping, never itself)
    from workbench.store.external_ids import assessor_id
    from workbench.store.queue_counts import open_query_after

    with db.read() as s:
        aid = assessor_id(s, "alice")
        assert open_query_after(s, aid, "q2", 1) == "q3"
        assert open_query_after(s, aid, "q3", 1) == "q2"
        assert open_query_after(s, aid, "q2", -1) == "q3"
        assert open_query_after(s, aid, "q1", -1) == "q3"


def test_scale_from_campaign(db):
    levels = A.scale(db)
    assert [(s.grade, s.label) for s in levels] == [
        (0, "Not relevant"), (1, "Marginally relevant"), (2, "Relevant"), (3, "Highly relevant"),
    ]


def test_note_on_judged_and_unjudged(db):
    camp = build_campaign(db, n_queries=1)
    d0, d1 = camp.queues["q1"]["alice"][:2]
    record_grade(db, "alice", "q1", d0, 2)
    A.set_note(db, "alice", "q1", d0, "only the intro is on topic")
    A.set_note(db, "alice", "q1", d1, "come back to this")
    with db.read() as s:
        notes = s.execute(select(JudgmentEvent.kind, JudgmentEvent.note, JudgmentEvent.new_grade)
                          .where(JudgmentEvent.kind == "note").order_by(JudgmentEvent.id)).all()
        assert [tuple(n) for n in notes] == [
            ("note", "only the intro is on topic", 2), ("note", "come back to this", None)]
        assert s.scalar(select(Judgment.note)) == "only the intro is on topic"
        assert s.scalar(select(Judgment.grade)) == 2
    assert A.load_queue(db, "alice", "q1").items[0].note == "only the intro is on topic"


def test_repeat_item_is_blind_and_does_not_change_the_judgment(db):
    camp = build_campaign(db, n_queries=1, repeat_last=True)
    order = camp.queues["q1"]["alice"]
    queue = A.load_queue(db, "alice", "q1")
    assert queue.items[-1].repeat and queue.items[-1].document == order[0]
    A.grade_item(db, "alice", "q1", queue.items[0], 3)
    queue = A.load_queue(db, "alice", "q1")
    # the first grade does not mark the repeat as judged
    assert queue.items[0].grade == 3 and queue.items[-1].grade is None
    A.grade_item(db, "alice", "q1", queue.items[-1], 1, seconds=4.0)
    queue = A.load_queue(db, "alice", "q1")
    assert queue.items[0].grade == 3 and queue.items[-1].grade == 1
    with db.read() as s:
        assert s.scalar(select(Judgment.grade)) == 3
        ev = s.execute(select(JudgmentEvent.kind, JudgmentEvent.old_grade, JudgmentEvent.new_grade)
                       .order_by(JudgmentEvent.id.desc())).first()
        assert tuple(ev) == ("repeat", 3, 1)
    progress, _ = A.query_progress_page(db, "alice")
    assert progress[0].judged == 2 and progress[0].pooled == len(order) + 1


def test_whole_pool_assigned_when_assessor_has_nothing(db):
    camp = build_campaign(db, n_queries=2)
    with db.write.begin() as s:
        s.execute(delete(Assignment))
    assert A.query_progress_page(db, "carol") == ([], None)
    n = A.ensure_assignments(db, "carol")
    pooled = sum(len(camp.queues[q]["alice"]) for q in camp.queues)
    assert n == pooled
    assert A.ensure_assignments(db, "carol") == 0  # already has them
    q1 = A.load_queue(db, "carol", "q1")
    assert sorted(i.document for i in q1.items) == sorted(camp.queues["q1"]["alice"])
    assert [i.position for i in q1.items] == list(range(len(q1.items)))
    # deterministic: a second assessor gets a (generally) different but reproducible order
    A.ensure_assignments(db, "dave")
    again = [i.document for i in A.load_queue(db, "dave", "q1").items]
    assert sorted(again) == sorted(i.document for i in q1.items)


def test_a_note_typed_before_grading_goes_on_a_grade_given_any_way(tmp_path, capsys):
    """A note typed on the judging screen (terminal or browser: assessing.set_note) on a
    document not graded yet went on the judgment only when the screen gave the grade; a
    grade from `workbench grade` left it out of `export judgments`."""
    import io
    import sqlite3
    import shutil
    from pathlib import Path

    from workbench.campaign.catalog.exporting import export_judgments
    from workbench.campaign.database import Database
    from workbench.campaign.judging import assessing
    from workbench.cli import main

    path = tmp_path / "sample.sqlite"
    shutil.copy(Path(__file__).resolve().parents[2] / "sample_db" / "sample.sqlite", path)
    db = Database.open(str(path), create=False)
    try:
        with sqlite3.connect(path) as conn:  # an item of carol's queue not graded yet
            query, document = conn.execute(
                "SELECT q.ext_id, d.ext_id FROM assignment s JOIN assessor a ON a.id = s.assessor_id "
                "JOIN query q ON q.id = s.query_id JOIN document d ON d.id = s.document_id "
                "WHERE a.name = 'carol' AND NOT EXISTS (SELECT 1 FROM judgment j WHERE "
                "j.assessor_id = a.id AND j.query_id = s.query_id AND j.document_id = s.document_id) "
                "ORDER BY s.id LIMIT 1").fetchone()
        assessing.set_note(db, "carol", query, document, "see page 2")
        assessing.set_note(db, "carol", query, document, "see page 3")  # the latest
        assert main(["grade", "--db", str(path), "-a", "carol", query, document, "1"]) == 0
        capsys.readouterr()
        out = io.StringIO()
        export_judgments(db, out)
        rows = [line.split(",") for line in out.getvalue().splitlines()[1:]]
        assert [r[:5] for r in rows if r[1] == document and r[2] == "carol"] == [
            [query, document, "carol", "1", "see page 3"]]
        # a grade given with its own note keeps that one; a change keeps the judgment's
        assert main(["grade", "--db", str(path), "-a", "carol", query, document, "2"]) == 0
        out = io.StringIO()
        export_judgments(db, out)
        rows = [line.split(",") for line in out.getvalue().splitlines()[1:]]
        assert [r[3:5] for r in rows if r[1] == document and r[2] == "carol"] == [["2", "see page 3"]]
    finally:
        db.close()
