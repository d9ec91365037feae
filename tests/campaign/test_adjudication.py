"""Adjudication use case: disagreements, reading an item, the final grade, the
"adjudicated" qrels source and the scores built on it (both backends)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests.tui.factory import build_campaign
from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.agreement import adjudication as adj
from workbench.campaign.assessors import roster
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.scoring.qrels import derive_qrels
from workbench.campaign.scoring.scores import score_campaign
from workbench.errors import InputError, NotFoundError, UsageError
from workbench.names import InvalidName
from workbench.store.models import Adjudication, Assessor, JudgmentEvent


@pytest.fixture
def graded(db):
    camp = build_campaign(db, n_queries=2, n_systems=2, depth=4,
                          assessors=("alice", "bob", "carol"), markup_doc=False)
    q1, q2 = camp.queries
    d = camp.queues[q1]["alice"]
    # q1: d0 agreed, d1 spread 1, d2 spread 3, d3 only one assessor
    for who, g in (("alice", 2), ("bob", 2), ("carol", 2)):
        record_grade(db, who, q1, d[0], g)
    for who, g in (("alice", 1), ("bob", 2), ("carol", 1)):
        record_grade(db, who, q1, d[1], g)
    for who, g in (("alice", 0), ("bob", 3)):
        record_grade(db, who, q1, d[2], g)
    record_grade(db, "alice", q1, d[3], 3)
    e = camp.queues[q2]["alice"]
    record_grade(db, "alice", q2, e[0], 0)
    record_grade(db, "carol", q2, e[0], 1)
    return db, camp, d, e


def test_lists_only_items_graded_differently(graded):
    db, camp, d, e = graded
    q1, q2 = camp.queries
    items = adj.list_disagreements(db)
    keys = [(i.query, i.document) for i in items]
    assert sorted(keys[:2]) == sorted([(q1, d[1]), (q1, d[2])])
    assert keys[2] == (q2, e[0])
    assert len(items) == 3
    by_key = {(i.query, i.document): i for i in items}
    one = by_key[(q1, d[1])]
    assert one.grades == (("alice", 1), ("bob", 2), ("carol", 1))
    assert one.spread == 1 and one.majority == 1 and one.final is None
    assert by_key[(q1, d[2])].spread == 3
    assert by_key[(q1, d[2])].majority == 0  # tie 0/3 goes to the lower grade
    assert [(i.query, i.document) for i in adj.list_disagreements(db, min_spread=2)] == [(q1, d[2])]
    assert [i.query for i in adj.list_disagreements(db, query=q2)] == [q2]


def test_adjudicate_writes_row_and_event_and_changes_adjudicated_qrels(graded):
    db, camp, d, e = graded
    q1 = camp.queries[0]
    before = dict(((q, doc), g) for q, doc, g in derive_qrels(db, QrelsSource.consensus("adjudicated")).rows())
    assert before[(q1, d[2])] == 0  # the majority until a lead decides
    rec = adj.adjudicate(db, "lead", q1, d[2], 2, note="partly on topic")
    assert (rec.old_grade, rec.new_grade, rec.adjudicator) == (None, 2, "lead")
    after = dict(((q, doc), g) for q, doc, g in derive_qrels(db, QrelsSource.consensus("adjudicated")).rows())
    assert after[(q1, d[2])] == 2
    assert {k: v for k, v in after.items() if k != (q1, d[2])} == {
        k: v for k, v in before.items() if k != (q1, d[2])}
    majority = dict(((q, doc), g) for q, doc, g in derive_qrels(db, QrelsSource.consensus("majority")).rows())
    assert majority[(q1, d[2])] == 0  # other sources untouched
    # change, then remove: each an `adjudicate` event with old -> new
    adj.adjudicate(db, "lead", q1, d[2], 3)
    adj.adjudicate(db, "lead", q1, d[2], None)
    with db.read() as s:
        events = s.execute(
            select(JudgmentEvent.kind, JudgmentEvent.old_grade, JudgmentEvent.new_grade,
                   JudgmentEvent.note, Assessor.name)
            .join(Assessor, Assessor.id == JudgmentEvent.assessor_id)
            .where(JudgmentEvent.kind == "adjudicate").order_by(JudgmentEvent.id)
        ).all()
        assert s.scalar(select(Adjudication.grade)) is None
    assert [tuple(r) for r in events] == [
        ("adjudicate", None, 2, "partly on topic", "lead"),
        ("adjudicate", 2, 3, "", "lead"),
        ("adjudicate", 3, None, "", "lead"),
    ]
    final = dict(((q, doc), g) for q, doc, g in derive_qrels(db, QrelsSource.consensus("adjudicated")).rows())
    assert final == before


def test_adjudicated_scores_follow_the_final_grade(graded):
    db, camp, d, e = graded
    q1 = camp.queries[0]
    adj.adjudicate(db, "lead", q1, d[1], 0)
    adj.adjudicate(db, "lead", q1, d[2], 0)
    adj.adjudicate(db, "lead", q1, d[0], 0)
    # every q1 item but d3 (alice 3) is now non-relevant; scores computed by the CLI's path
    table = score_campaign(db, ["num_rel", "P@10"], QrelsSource.consensus("adjudicated"))
    values = [table.value(system, q1, "num_rel") for system in table.systems]
    assert [v for v in values if v is not None] and all(v in (None, 1) for v in values)
    maj = score_campaign(db, ["num_rel"], QrelsSource.consensus("majority"))
    some = next(v for v in (maj.value(s, q1, "num_rel") for s in maj.systems) if v is not None)
    assert some == 3  # d0 (2), d1 (1), d3 (3); d2's majority is 0


def test_read_item_shows_every_grade_and_the_final(graded):
    db, camp, d, e = graded
    q1 = camp.queries[0]
    record_grade(db, "bob", q1, d[2], 3, note="[b]see[/b] the intro")
    adj.adjudicate(db, "boss", q1, d[2], 1, note="decided")
    item = adj.read_item(db, q1, d[2])
    assert item.grades == (("alice", 0, ""), ("bob", 3, "[b]see[/b] the intro"))
    assert (item.final, item.final_note, item.adjudicator) == (1, "decided", "boss")
    assert item.query_title == f"Title of {q1}" and item.text.startswith(f"Body of {d[2]}")


def test_bad_input_writes_nothing(graded):
    db, camp, d, e = graded
    q1 = camp.queries[0]
    with pytest.raises(InputError):
        adj.adjudicate(db, "lead", q1, d[1], 9)
    with pytest.raises(NotFoundError):
        adj.adjudicate(db, "lead", q1, "nope", 1)
    with pytest.raises(NotFoundError):
        adj.adjudicate(db, "lead", "nope", d[1], 1)
    with pytest.raises(UsageError, match="give the lead's own name"):
        adj.adjudicate(db, "  ", q1, d[1], 1)
    with pytest.raises(InvalidName, match=r"contains '\\t'"):
        adj.adjudicate(db, "le\tad", q1, d[1], 1)
    with db.read() as s:
        assert s.scalar(select(Adjudication.grade)) is None
        assert s.scalar(select(JudgmentEvent.id).where(JudgmentEvent.kind == "adjudicate")) is None
        assert "lead" not in s.scalars(select(Assessor.name)).all()


def test_lead_is_not_a_judging_assessor(graded):
    db, camp, d, e = graded
    adj.adjudicate(db, "lead", camp.queries[0], d[1], 1)
    assert roster.grading(db) == ["alice", "bob", "carol"]


def test_a_lead_who_only_adjudicated_is_not_an_assessor_for_agreement(sqlite_db):
    from workbench.campaign.agreement.adjudication import adjudicate
    from workbench.campaign.assessors.roster import people as assessor_names
    from workbench.campaign.agreement.report import agreement_from_db
    from workbench.campaign.assessors.roster import with_work as list_assessors
    from workbench.campaign.judging.grades import record_grade
    from workbench.store.models import Document, Query

    with sqlite_db.write.begin() as s:
        s.add_all([Query(ext_id="q1"), Document(ext_id="d1"), Document(ext_id="d2")])
    for who, grades in (("ann", (1, 0)), ("bob", (1, 2))):
        for doc, grade in zip(("d1", "d2"), grades):
            record_grade(sqlite_db, who, "q1", doc, grade)
    adjudicate(sqlite_db, "boss", "q1", "d2", 2)
    assert assessor_names(sqlite_db) == ["ann", "bob"]
    assert list_assessors(sqlite_db) == ["ann", "bob"]
    assert tuple(agreement_from_db(sqlite_db).assessors) == ("ann", "bob")


def test_a_lead_named_as_an_assessor_who_graded_the_item_is_refused(graded):
    """The adjudicator is the lead's own name: one that an assessor who graded the item
    also has is refused (nothing written) unless the caller says it is the same person."""
    db, camp, d, e = graded
    q1 = camp.queries[0]
    with pytest.raises(adj.LeadIsAssessor) as refused:
        adj.adjudicate(db, "bob", q1, d[2], 1)
    assert str(refused.value) == (
        f"lead name 'bob' is an assessor who graded {q1} {d[2]} (grade 3): adjudicate under "
        "your own name (--lead NAME), or pass --same-person if you are bob and mean to decide "
        "on your own grade")
    with db.read() as s:
        assert s.scalar(select(Adjudication.grade)) is None
    # carol did not grade d2: her name is no collision on this item
    assert adj.adjudicate(db, "carol", q1, d[2], 1).adjudicator == "carol"
    rec = adj.adjudicate(db, "bob", q1, d[2], 2, same_person=True)
    assert (rec.adjudicator, rec.old_grade, rec.new_grade) == ("bob", 1, 2)
    assert adj.read_item(db, q1, d[2]).adjudicator == "bob"
    # a lead called "lead" is just a name: nothing special about it
    assert adj.adjudicate(db, " lead ", q1, d[1], 1).adjudicator == "lead"
