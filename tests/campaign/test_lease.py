"""One lease policy for the terminal, the browser and `grade`: the newest
session takes over, and the one taken over stops with a notice (campaign/assessors/lease.py).
Before, `grade` ignored the lease: it graded under an open judging screen, which went on."""

from __future__ import annotations

import pytest

from tests.cli.helpers import run
from tests.tui.factory import build_campaign
from workbench.campaign.assessors.lease import POLICY, CommandLease, SessionEnded
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.judging.session import JudgingSession


@pytest.fixture
def camp(db):
    return db, build_campaign(db, n_queries=1, markup_doc=False)


def _opened(db) -> JudgingSession:
    session = JudgingSession(db, "alice")
    session.show(session.read(None))
    return session


def test_the_policy_is_take_over():
    assert POLICY == "take over"


def test_grade_takes_over_an_open_judging_screen(camp):
    db, c = camp
    order = c.queues["q1"]["alice"]
    screen = _opened(db)
    assert screen.poll().ended == ""
    result = run(db.url, "grade", "-a", "alice", "q1", order[1], "2")
    assert result.exit_code == 0, result.stderr
    assert "took over alice's judging from another session" in result.stderr
    ended = screen.poll().ended
    assert ended.startswith("another judging session for alice took over")  # (its lease is
    # given back at the command's end: the holder is gone with it)
    with pytest.raises(SessionEnded, match="took over"):
        screen.save_grade("q1", screen.current, 3, seconds=1.0, note=None)
    # the command gave the lease back: a new screen opens without taking anything over
    again = JudgingSession(db, "alice")
    assert again.read(None).took_over == ""


def test_a_screen_opened_during_a_grade_batch_stops_the_batch(camp):
    db, c = camp
    order = c.queues["q1"]["alice"]
    notices = []
    with CommandLease(db, "alice", notice=notices.append) as held:
        record_grade(db, "alice", "q1", order[0], 1, guard=held.guard)
        screen = _opened(db)  # the newest session: it takes over
        with pytest.raises(SessionEnded, match="another judging session for alice took over"):
            record_grade(db, "alice", "q1", order[1], 1, guard=held.guard)
    assert notices == []  # nothing was open when the command started
    assert screen.poll().ended == ""  # the command's end leaves the screen's lease alone


def test_two_grade_commands_of_one_assessor_share_the_lease(camp):
    db, c = camp
    order = c.queues["q1"]["alice"]
    with CommandLease(db, "alice") as first:
        with CommandLease(db, "alice") as second:
            record_grade(db, "alice", "q1", order[0], 1, guard=first.guard)
            record_grade(db, "alice", "q1", order[1], 2, guard=second.guard)
        record_grade(db, "alice", "q1", order[2], 0, guard=first.guard)  # after the other ended
        _opened(db)  # a judging screen takes over: the command stops
        with pytest.raises(SessionEnded):
            record_grade(db, "alice", "q1", order[3], 1, guard=first.guard)


def test_two_first_sessions_at_once_both_open(camp):
    """Two first sessions of one assessor at once on PostgreSQL: neither sees a lease row,
    both insert one, and the second insert waits for the first. The second then reads the
    first one's row back and takes it over instead of failing on the key (CI saw four
    `grade` processes of one assessor fail with "duplicate key ... pk_judging_session")."""
    import threading
    import time

    from sqlalchemy import text

    from workbench.campaign.assessors.lease import JudgingLease
    from workbench.store.models import utcnow

    db, _ = camp
    if not db.url.startswith("postgresql"):
        pytest.skip("SQLite's write transactions already run one at a time")
    with db.engine.connect() as conn:
        aid = conn.execute(text("SELECT id FROM assessor WHERE name = 'alice'")).scalar_one()
    first = db.engine.connect()
    first.begin()
    first.execute(text("INSERT INTO judging_session (assessor_id, token, holder, started_at) "
                       "VALUES (:a, 'first', 'the first session', :t)"), {"a": aid, "t": utcnow()})
    second = JudgingLease(db, "alice", holder="the second session")
    outcome: list[object] = []
    claimer = threading.Thread(target=lambda: outcome.append(_claimed(second)))
    claimer.start()
    time.sleep(0.5)  # the second session's insert now waits on the first one's row
    first.commit()
    first.close()
    claimer.join(20)
    assert outcome == ["the first session"]  # it took the lease over from the first one
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT token FROM judging_session WHERE assessor_id = :a"),
                            {"a": aid}).scalar_one() == second.token


def _claimed(lease):
    try:
        return lease.claim()
    except Exception as exc:  # the test reads it: a failure shows as the exception
        return exc
