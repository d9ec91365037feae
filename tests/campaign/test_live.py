"""The data-version probe moves on every kind of write another process can make."""

from __future__ import annotations

from tests.tui.factory import build_campaign
from workbench.campaign import live
from workbench.campaign.agreement.adjudication import adjudicate
from workbench.campaign.database import Database
from workbench.campaign.judging.grades import record_grade, undo_last


def test_version_moves_on_grades_undo_adjudication_from_another_connection(db_url):
    first = Database.open(db_url)
    other = Database.open(db_url)  # a second engine: another process's connection
    try:
        camp = build_campaign(first, n_queries=1, n_systems=2, depth=3, assessors=("alice",))
        q, doc = camp.queries[0], camp.queues[camp.queries[0]]["alice"][0]
        v0 = live.data_version(first)
        assert (v0.systems, v0.queries, v0.judgments, v0.adjudications) == (2, 1, 0, 0)
        assert live.data_version(first) == v0  # stable while nothing changes
        record_grade(other, "alice", q, doc, 2)
        v1 = live.data_version(first)
        assert v1 != v0 and v1.judgments == 1 and v1.last_event > v0.last_event
        assert not v1.runs_changed(v0) and v1.runs_changed(None)
        record_grade(other, "alice", q, doc, 1)  # same count: the event id tells
        v2 = live.data_version(first)
        assert v2.judgments == 1 and v2 != v1
        undo_last(other, "alice")
        v3 = live.data_version(first)
        assert v3 != v2
        adjudicate(other, "lead", q, doc, 3)
        v4 = live.data_version(first)
        assert v4.adjudications == 1 and v4 != v3
    finally:
        first.close()
        other.close()


def test_queries_changed_since_names_only_the_queries_written(sqlite_db):
    db = sqlite_db
    camp = build_campaign(db, n_queries=3, n_systems=1, depth=3, assessors=("alice",))
    q1, q2, q3 = camp.queries
    start = live.data_version(db).last_event
    assert live.queries_changed_since(db, start) == set()
    record_grade(db, "alice", q2, camp.queues[q2]["alice"][0], 1)
    mid = live.data_version(db).last_event
    adjudicate(db, "lead", q3, camp.queues[q3]["alice"][0], 2)
    assert live.queries_changed_since(db, start) == {q2, q3}
    assert live.queries_changed_since(db, mid) == {q3}
