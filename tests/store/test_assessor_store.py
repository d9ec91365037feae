"""The assessor path's SQL (store/external_ids, scale_levels, judgment_writes, queues,
change_probe): real values on both backends, checked against what the use cases wrote."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from tests.tui.factory import build_campaign
from workbench.campaign.judging.assessing import record_repeat, set_note
from workbench.campaign.judging.grades import record_grade, undo_last
from workbench.errors import WriteConflict
from workbench.store.change_probe import queries_with_events_after, row_counts
from workbench.store.external_ids import (
    add_assessor,
    assessor_id,
    document_ext_id,
    document_id,
    query_ext_id,
    query_id,
)
from workbench.store.judgment_writes import (
    append_event,
    current_judgment,
    delete_judgment,
    insert_judgment,
    last_undoable_event,
    set_judgment_note,
    update_judgment,
)
from workbench.store.queues import (
    assessors_with_work,
    assignment_count,
    current_grades,
    pool_size,
    progress_counts,
    progress_page,
    progress_totals,
    query_text,
    queue_rows,
    repeat_grades,
)
from workbench.store.scale_levels import scale_grades, scale_levels

AT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
UNDOABLE = ("set", "change", "clear")


def test_external_ids_both_ways_and_get_or_create(db):
    build_campaign(db, n_queries=2, n_systems=1, depth=3, assessors=("alice",))
    with db.write.begin() as s:
        qid, did = query_id(s, "q2"), document_id(s, "d003")
        assert (query_ext_id(s, qid), document_ext_id(s, did)) == ("q2", "d003")
        assert query_id(s, "nope") is None and document_id(s, "nope") is None
        assert assessor_id(s, "bob") is None
        alice = assessor_id(s, "alice")
        assert add_assessor(s, "alice") == alice  # an existing name: its row, no new one
        bob = add_assessor(s, "bob")
        assert bob != alice and assessor_id(s, "bob") == bob
        assert query_ext_id(s, 10_000) is None


def test_scale_as_arrays(db):
    with db.read() as s:
        grades = scale_grades(s)
        levels = scale_levels(s)
    assert grades.dtype == np.int64 and grades.tolist() == [0, 1, 2, 3]
    assert levels.grades.tolist() == [0, 1, 2, 3]
    assert levels.labels == ("Not relevant", "Marginally relevant", "Relevant", "Highly relevant")
    assert len(levels.descriptions) == 4


def test_judgment_row_writes(db):
    build_campaign(db, n_queries=1, n_systems=1, depth=3, assessors=("alice",))
    with db.write.begin() as s:
        q, d, a = query_id(s, "q1"), document_id(s, "d001"), assessor_id(s, "alice")
        assert current_judgment(s, q, d, a) is None
        insert_judgment(s, q, d, a, grade=2, note="intro", seconds=1.5, at=AT)
        row = current_judgment(s, q, d, a)
        assert (row.grade, row.note, row.seconds) == (2, "intro", 1.5)
        update_judgment(s, row.id, grade=3, note=None, seconds=4.0, at=AT)  # note kept
        assert current_judgment(s, q, d, a) == type(row)(row.id, 3, "intro", 4.0)
        set_judgment_note(s, row.id, "all of it", AT)
        assert current_judgment(s, q, d, a).note == "all of it"
        delete_judgment(s, row.id)
        assert current_judgment(s, q, d, a) is None


def test_second_insert_of_one_judgment_is_a_write_conflict(db):
    build_campaign(db, n_queries=1, n_systems=1, depth=3, assessors=("alice",))
    with db.write.begin() as s:
        ids = query_id(s, "q1"), document_id(s, "d001"), assessor_id(s, "alice")
        insert_judgment(s, *ids, grade=1, note="", seconds=0.0, at=AT)
    with pytest.raises(WriteConflict, match="^database error: "):
        with db.write.begin() as s:
            insert_judgment(s, *ids, grade=2, note="", seconds=0.0, at=AT)
    with db.read() as s:
        assert current_judgment(s, *ids).grade == 1


def test_events_and_the_undo_target(db):
    camp = build_campaign(db, n_queries=2, n_systems=1, depth=3, assessors=("alice",))
    d1 = camp.queues["q1"]["alice"][0]
    d2 = camp.queues["q2"]["alice"][0]
    first = record_grade(db, "alice", "q1", d1, 1)
    second = record_grade(db, "alice", "q1", d1, 3)
    other_query = record_grade(db, "alice", "q2", d2, 2)
    set_note(db, "alice", "q2", d2, "a note is not undoable")
    with db.read() as s:
        a, q1, doc1 = assessor_id(s, "alice"), query_id(s, "q1"), document_id(s, d1)
        latest = last_undoable_event(s, a, UNDOABLE)
        in_q1 = last_undoable_event(s, a, UNDOABLE, "q1")
        assert (latest.event_id, latest.old_grade) == (other_query.event_id, None)
        assert (in_q1.event_id, in_q1.query_id, in_q1.document_id, in_q1.old_grade) == (
            second.event_id, q1, doc1, 1)
        assert last_undoable_event(s, a, ("set",), "q1").event_id == first.event_id
        assert last_undoable_event(s, a, UNDOABLE, "q3") is None
    undo_last(db, "alice", "q1")  # reverts `second`: the target moves back to `first`
    with db.write.begin() as s:
        assert last_undoable_event(s, a, UNDOABLE, "q1").event_id == first.event_id
        e1 = append_event(s, q1, doc1, a, kind="note", old_grade=1, new_grade=1, at=AT)
        e2 = append_event(s, q1, doc1, a, kind="note", old_grade=1, new_grade=1, at=AT)
        assert e2 > e1 > other_query.event_id


def test_queue_rows_grades_and_repeats(db):
    camp = build_campaign(db, n_queries=2, n_systems=2, depth=4, assessors=("alice", "bob"),
                          repeat_last=True)
    order = camp.queues["q1"]["alice"]
    record_grade(db, "alice", "q1", order[0], 2, note="first look")
    record_grade(db, "alice", "q1", order[1], 0)
    record_grade(db, "bob", "q1", order[2], 3)  # another assessor's grade: never in alice's
    record_repeat(db, "alice", "q1", order[0], 1)
    record_repeat(db, "alice", "q1", order[0], 3)  # the latest repeat wins
    with db.read() as s:
        a, q = assessor_id(s, "alice"), query_id(s, "q1")
        ids = {d: document_id(s, d) for d in order}
        rows = queue_rows(s, a, q)
        grades = current_grades(s, a, q)
        repeats = repeat_grades(s, a, q)
        text = query_text(s, "q1")
    n = len(order)
    assert rows.positions.tolist() == list(range(n + 1))
    assert rows.repeat.tolist() == [False] * n + [True]
    assert rows.documents == (*order, order[0])
    assert rows.document_ids.tolist() == [ids[d] for d in (*order, order[0])]
    assert rows.titles[0] == f"Document {order[0]}"
    assert rows.texts[1] == f"Body of {order[1]}. " * 20
    got = sorted(zip(grades.document_ids.tolist(), grades.grades.tolist(), grades.notes))
    assert got == sorted([(ids[order[0]], 2, "first look"), (ids[order[1]], 0, "")])
    assert grades.graded.all()
    assert (repeats.document_ids.tolist(), repeats.grades.tolist()) == ([ids[order[0]]], [3])
    assert repeats.graded.tolist() == [True] and repeats.notes == ("",)
    assert (text.ext_id, text.title, text.narrative) == ("q1", "Title of q1", "Narrative of q1")


def test_progress_counts_assignments_pool_and_who_has_work(db):
    camp = build_campaign(db, n_queries=3, n_systems=2, depth=4, assessors=("alice", "bob"),
                          repeat_last=True)
    q1, q2 = camp.queues["q1"]["alice"], camp.queues["q2"]["alice"]
    for d in q1:
        record_grade(db, "alice", "q1", d, 1)
    record_grade(db, "alice", "q2", q2[0], 0)  # q2's repeat item is not done by this grade
    record_repeat(db, "alice", "q1", q1[0], 2)  # q1's repeat is
    record_grade(db, "carol", "q3", camp.queues["q3"]["alice"][0], 1)  # grades, no queue
    with db.write.begin() as s:
        add_assessor(s, "dave")  # neither queue nor grades
    sizes = [len(camp.queues[q]["alice"]) for q in ("q1", "q2", "q3")]
    with db.read() as s:
        counts = progress_counts(s, assessor_id(s, "alice"))
        assert counts.queries == ("q1", "q2", "q3")
        assert counts.titles == ("Title of q1", "Title of q2", "Title of q3")
        assert counts.judged.tolist() == [sizes[0] + 1, 1, 0]
        assert counts.pooled.tolist() == [n + 1 for n in sizes]
        assert assignment_count(s, assessor_id(s, "bob")) == sum(sizes) + 3
        assert assignment_count(s, None) == 0
        assert pool_size(s) == sum(sizes)
        assert assessors_with_work(s) == ("alice", "bob", "carol")


def test_progress_pages_equal_the_whole_list_with_totals_and_first_open(db):
    """The query list reads its rows a page at a time; the pages put
    together are progress_counts and the totals are its sums."""
    camp = build_campaign(db, n_queries=7, n_systems=2, depth=4, assessors=("alice",),
                          repeat_last=True)
    for q in ("q1", "q2"):
        for d in camp.queues[q]["alice"]:
            record_grade(db, "alice", q, d, 1)
    record_repeat(db, "alice", "q1", camp.queues["q1"]["alice"][0], 2)  # q1 done, q2 not
    record_grade(db, "alice", "q5", camp.queues["q5"]["alice"][0], 0)
    with db.read() as s:
        aid = assessor_id(s, "alice")
        whole = progress_counts(s, aid)
        for size in (1, 3, 7, 50):
            queries, judged, pooled, after = [], [], [], 0
            while after is not None:
                page = progress_page(s, aid, after, size)
                assert len(page.counts.queries) <= size
                queries += page.counts.queries
                judged += page.counts.judged.tolist()
                pooled += page.counts.pooled.tolist()
                after = page.after
            assert (tuple(queries), judged, pooled) == (
                whole.queries, whole.judged.tolist(), whole.pooled.tolist())
        done = int((whole.judged >= whole.pooled).sum())
        assert done == 1
        assert progress_totals(s, aid) == (7, int(whole.judged.sum()), int(whole.pooled.sum()), 1)
        assert progress_totals(s, 0) == (0, 0, 0, 0)


def test_row_counts_and_queries_with_events(db):
    camp = build_campaign(db, n_queries=3, n_systems=2, depth=3, assessors=("alice",))
    with db.read() as s:
        before = row_counts(s)
    assert (before.last_event, before.judgments, before.adjudications) == (0, 0, 0)
    assert (before.assessors, before.systems, before.queries) == (1, 2, 3)
    assert before.documents == len(camp.docs)
    record_grade(db, "alice", "q3", camp.queues["q3"]["alice"][0], 1)
    event = record_grade(db, "alice", "q1", camp.queues["q1"]["alice"][0], 2).event_id
    with db.read() as s:
        after = row_counts(s)
        assert (after.last_event, after.judgments) == (event, 2)
        assert sorted(queries_with_events_after(s, 0)) == ["q1", "q3"]
        assert queries_with_events_after(s, event - 1) == ("q1",)
        assert queries_with_events_after(s, event) == ()
