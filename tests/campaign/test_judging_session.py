"""JudgingSession on both backends: the queue and its "later" rule, what is current, undo
of a hidden repeat, one session per assessor (takeover), a removed assessor: the
judging rules, out of the screen, so that every front end keeps them."""

from __future__ import annotations

import pytest

from tests.tui.factory import build_campaign
from tests.tui.helpers import events, judgments
from workbench.campaign.catalog.listing import remove
from workbench.campaign.assessors import roster
from workbench.campaign.judging import assessing
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.assessors.visibility import pair_blind as hide_repeat_pairs
from workbench.campaign.judging.session import JudgingSession, SessionEnded


@pytest.fixture
def camp(db):
    return db, build_campaign(db, n_queries=2, n_systems=2, depth=4, assessors=("alice", "bob"),
                              markup_doc=False)


@pytest.fixture
def repeat_camp(db):
    return db, build_campaign(db, n_queries=1, n_systems=2, depth=4, repeat_last=True,
                              markup_doc=False)


def opened(db, assessor="alice", query=None) -> JudgingSession:
    session = JudgingSession(db, assessor)
    opening = session.read(query)
    assert opening is not None
    session.show(opening)
    return session


def grade_current(session: JudgingSession, grade: int):
    index, item = session.cursor, session.current
    saved = session.save_grade(session.query, item, grade, seconds=1.0,
                               note=session.first_note(item))
    return session.graded(index, saved)


def test_commands_return_the_new_current_item(camp):
    db, c = camp
    order = c.queues["q1"]["alice"]
    s = opened(db)
    assert (s.query, s.cursor, s.current.document) == ("q1", 0, order[0])
    assert grade_current(s, 2).document == order[1]  # on to the next unjudged
    assert s.move(1).document == order[2] and s.move(-5).document == order[0]
    assert s.select(99).document == order[-1]  # stops at the end
    assert [it.grade for it in s.items] == [2] + [None] * (len(order) - 1)
    assert s.counts()[:3] == (1, len(order), "query 1/2")
    assert judgments(db, "alice") == {("q1", order[0]): 2}
    assert s.read(step=1).queue.query.query == "q2"
    assert s.read(step=-1).queue.query.query == "q2"
    assert s.read(step=1).place == (2, 2)


def test_later_moves_the_item_to_the_end_for_this_session_only(camp):
    db, c = camp
    order = c.queues["q1"]["alice"]
    s = opened(db)
    assert s.later().document == order[1]  # the next unjudged from the same place
    assert [it.document for it in s.items] == order[1:] + order[:1]
    assert s.cursor == 0
    s.select(1)
    assert s.later().document == order[3]
    put_off = [order[1], *order[3:], order[0], order[2]]
    assert [it.document for it in s.items] == put_off
    # read again (e.g. back from another query): still put off, in the order put off
    s.show(s.read("q1"))
    assert [it.document for it in s.items] == put_off
    # another session shows the stored order: nothing of `l` is stored
    assert [it.document for it in opened(db).items] == order


def test_later_with_one_item_does_nothing(db):
    build_campaign(db, n_queries=1, n_systems=1, depth=1, markup_doc=False)
    s = opened(db)
    assert len(s.items) == 1 and s.later() is None and s.cursor == 0


def test_u_undoes_the_repeats_own_grade(repeat_camp):
    """`u` after grading a hidden repeat undid an older, different grade
    ("undone: d9 ungraded"), which changed the data and gave the repeat away."""
    db, c = repeat_camp
    order = c.queues["q1"]["alice"]
    s = opened(db)
    for g in [3] + [1] * (len(order) - 1):
        grade_current(s, g)
    assert s.current.repeat and s.cursor == len(order)
    grade_current(s, 0)
    assert s.items[-1].grade == 0
    record = s.save_undo("q1")
    assert (record.document, record.repeat, record.new_grade) == (order[0], True, None)
    current = s.undone(record)
    assert current.repeat and current.grade is None and s.cursor == len(order)
    assert [it.grade for it in s.items] == [3] + [1] * (len(order) - 1) + [None]
    assert judgments(db, "alice")[("q1", order[0])] == 3  # the first grade stays
    ev = events(db, "alice")
    assert ev[-2:] == [("repeat", "q1", order[0], 3, 0), ("undo", "q1", order[0], None, None)]
    # stored: the repeat is to judge again, and its progress counts it so
    queue = assessing.load_queue(db, "alice", "q1")
    assert queue.items[-1].grade is None and not queue.items[-1].judged
    assert assessing.query_progress_page(db, "alice")[0][0].judged == len(order)
    # nor does it count as a repeat grade (self-consistency, `list assessors`)
    from workbench.store.catalog import repeat_pairs

    with db.read() as session:
        assert len(repeat_pairs(session).repeat) == 0
    # the next u steps back to the last ordinary grade
    assert s.save_undo("q1").document == order[-1]
    # and the repeat graded again counts once more
    s.show(s.read("q1"))
    assert s.current.document == order[-1]  # (the first unjudged: its grade was undone)
    assert s.select(len(order)).repeat
    grade_current(s, 2)
    assert assessing.load_queue(db, "alice", "q1").items[-1].grade == 2


def test_nothing_in_sight_pairs_a_repeat_with_its_first_showing(repeat_camp):
    db, c = repeat_camp
    order = c.queues["q1"]["alice"]
    s = opened(db)
    grade_current(s, 3)
    first, repeat = s.items[0], s.items[-1]
    assert first.document == repeat.document == order[0]
    # while the repeat waits: judged items are listed without titles and show no grade,
    # the first showing like every other (a grade shown on the others but not on it
    # told the assessor which document would come back)
    assert first.listed_blind and first.grade_hidden
    grade_current(s, 1)
    assert s.items[1].listed_blind and s.items[1].grade_hidden
    assert not any(it.listed_blind for it in s.items if not it.judged)
    for g in [1] * (len(order) - 2) + [2]:  # the last one grades the repeat
        grade_current(s, g)
    assert not any(it.listed_blind or it.grade_hidden for it in s.items)


def test_hide_repeat_pairs_keeps_unchanged_items():
    from workbench.campaign.judging.assessing import QueueItem

    items = [QueueItem(0, "d1", "T1", "", 2), QueueItem(1, "d2", "T2", "", None)]
    assert all(a is b for a, b in zip(hide_repeat_pairs(items), items))


def test_a_second_session_takes_over_and_the_first_stops(camp):
    """A stale screen overwrote the other's grade without a word, and `u`
    in one undid the other's change."""
    db, c = camp
    order = c.queues["q1"]["alice"]
    first = opened(db)
    grade_current(first, 2)
    second = JudgingSession(db, "alice", holder="laptop pid 2")
    opening = second.read()
    assert opening.took_over == first.holder
    second.show(opening)
    assert second.current.document == order[1]
    with pytest.raises(SessionEnded, match="another judging session for alice took over "
                                           r"\(laptop pid 2\)"):
        first.save_grade("q1", first.items[0], 0, seconds=0.0, note=None)
    with pytest.raises(SessionEnded):
        first.save_undo("q1")
    with pytest.raises(SessionEnded):
        first.save_mark("q1", first.items[1], "broken")
    with pytest.raises(SessionEnded):
        first.save_note("q1", order[1], "hello")
    assert "took over" in first.poll().ended
    assert judgments(db, "alice") == {("q1", order[0]): 2}  # nothing of the stale one
    grade_current(second, 3)
    assert second.poll().ended == ""
    assert judgments(db, "alice") == {("q1", order[0]): 2, ("q1", order[1]): 3}
    # the second closes: a third session opens without taking over anything
    second.release()
    assert JudgingSession(db, "alice").read().took_over == ""
    with pytest.raises(SessionEnded):  # the first stays stopped
        first.save_grade("q1", first.items[2], 0, seconds=0.0, note=None)


def test_other_assessors_sessions_are_independent(camp):
    db, c = camp
    alice, bob = opened(db, "alice"), opened(db, "bob")
    grade_current(alice, 1)
    grade_current(bob, 2)
    assert alice.poll().ended == "" and bob.poll().ended == ""


def test_a_removed_assessor_is_said_and_never_recreated(camp):
    """`remove assessor ann --force` while her screen was open; her next
    key said "saved" and silently re-created her, outside any assignment."""
    db, c = camp
    s = opened(db)
    grade_current(s, 2)
    remove(db, "assessor", "alice", force=True)
    assert s.poll().ended == ("alice was removed from this campaign: judging stops here "
                              "(nothing more is saved)")
    with pytest.raises(SessionEnded, match="alice was removed"):
        s.save_grade("q1", s.current, 1, seconds=0.0, note=None)
    with pytest.raises(SessionEnded, match="alice was removed"):
        s.save_undo("q1")
    assert roster.with_work(db) == ["bob"]
    assert judgments(db, "alice") == {}


def test_poll_reads_counts_written_elsewhere(camp):
    db, c = camp
    s = opened(db)
    q2 = c.queues["q2"]["alice"]
    record_grade(db, "alice", "q2", q2[0], 1)  # e.g. `workbench grade` in another terminal
    total = len(c.queues["q1"]["alice"]) + len(q2)
    assert s.counts()[3:] == (0, total)  # a small campaign is counted with the first queue
    poll = s.poll()
    assert poll.ended == "" and poll.overall == (1, len(c.queues["q1"]["alice"]) + len(q2))
    s.refreshed(poll)
    assert s.counts()[3:] == poll.overall
    grade_current(s, 2)  # this session's own grade counts at once
    assert s.counts()[3] == 2
    s.show(s.read(step=1))  # another query: the overall counts carry over
    assert s.query == "q2" and s.counts()[:2] == (1, len(q2)) and s.counts()[3] == 2


def test_a_big_campaign_is_counted_by_the_poll_not_with_the_queue(camp, monkeypatch):
    from workbench.campaign.judging import session as session_module

    db, c = camp
    monkeypatch.setattr(session_module, "COUNT_AT_ONCE", 3)
    s = opened(db)
    assert s.counts()[3:] == (None, None)
    s.refreshed(s.poll())
    assert s.counts()[3:] == (0, len(c.queues["q1"]["alice"]) + len(c.queues["q2"]["alice"]))


def test_the_first_and_next_queries_come_from_sql(camp):
    db, c = camp
    for d in c.queues["q1"]["alice"]:
        record_grade(db, "alice", "q1", d, 1)
    s = opened(db)
    assert s.query == "q2" and s.place == (2, 2)  # q1 is done
    assert s.read(step=1) is None and s.read(step=-1) is None  # no other query has work
    for d in c.queues["q2"]["alice"]:
        record_grade(db, "alice", "q2", d, 1)
    assert JudgingSession(db, "alice").read().queue.query.query == "q1"  # all done: the first


def test_a_poll_read_before_the_sessions_own_change_is_not_applied(camp):
    db, c = camp
    order = c.queues["q1"]["alice"]
    s = opened(db)
    record_grade(db, "alice", "q1", order[3], 1)  # elsewhere
    stale = s.poll()  # sees it...
    s.select(0)
    grade_current(s, 2)  # ...but the session changed its items since
    s.refreshed(stale)
    assert s.items[3].grade is None  # the stale read is not applied
    fresh = s.poll()
    s.refreshed(fresh)
    assert [it.grade for it in s.items[:4]] == [2, None, None, 1]


def test_a_grade_off_the_scale_is_refused_with_the_one_message(camp):
    db, _ = camp
    s = opened(db)
    assert s.off_scale(3) is None and s.off_scale(0) is None
    assert s.off_scale(7) == "grade 7 is not on the campaign scale (0, 1, 2, 3)"
