"""`workbench judge` starting while another process holds SQLite's write lock.

Before: the judging screen's start-up writes (create the assessor, assign the pool) ran
outside the 120 s lock wait that grades have, failed after the 10 s busy timeout and showed
"OperationalError: (sqlite3.OperationalError) database is locked [SQL: ...] (Background on
this error at: https://...)"; the assessor then had no queue. Now they wait like every
write, with "waiting for the database…" on the status line.

The busy timeout is shortened (0.2 s) and the lock held for 1 s, so the hold is five busy
timeouts long, like a 50 s import against the real 10 s.
"""

from __future__ import annotations

import sqlite3
import time

import pytest
from sqlalchemy.exc import OperationalError

from tests.tui.factory import build_campaign
from tests.tui.helpers import screen_text, settle_until
from workbench.campaign import writing
from workbench.campaign.judging import assessing
from workbench.campaign.database import Database
from workbench.tui.app import make_app
from workbench.tui.screens.judge import JudgeScreen, describe

HOLD_S = 1.0
SIZE = (220, 44)  # wide enough for the whole status line and its message
RAW = ("OperationalError", "Background on this error", "[SQL", "sqlalche.me")


@pytest.fixture
def locked_campaign(tmp_path, monkeypatch):
    """A campaign with a pool, an assessor `zoe` who has no queue yet, and a second
    connection ready to hold the write lock."""
    import workbench.store.dbapi as engine  # BUSY_TIMEOUT_MS: read when connections are made

    monkeypatch.setattr(engine, "BUSY_TIMEOUT_MS", 200)  # read when engines connect
    path = tmp_path / "c.sqlite"
    db = Database.open(str(path))
    build_campaign(db, n_queries=2, n_systems=2, depth=4)
    holder = sqlite3.connect(str(path), isolation_level=None)
    yield db, holder
    holder.close()
    db.close()


async def _until(pilot, ready, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while not ready() and time.monotonic() < end:
        await pilot.pause(0.02)
    return ready()


def _status(app) -> str:
    return str(app.screen.query_one("#status").render())


async def test_judge_waits_for_the_write_lock_then_shows_the_first_document(locked_campaign):
    db, holder = locked_campaign
    holder.execute("BEGIN IMMEDIATE")
    held_at = time.monotonic()
    app = make_app(db, assessor="zoe", lead=False)
    async with app.run_test(size=SIZE) as pilot:
        assert await _until(pilot, lambda: isinstance(app.screen, JudgeScreen)
                            and writing.WAITING in _status(app)), _status(app)
        await pilot.pause(max(0.0, HOLD_S - (time.monotonic() - held_at)))
        holder.execute("COMMIT")
        judge = app.screen
        await settle_until(app, pilot, lambda: judge.loaded and bool(judge.items))
        first = assessing.load_queue(db, "zoe", "q1").items[0]
        assert (judge.query_ext, judge.cursor, judge.items[0].document) == ("q1", 0, first.document)
        text = screen_text(app)
        assert f"1/{len(judge.items)}  {first.title}  {first.document}" in text
        assert writing.WAITING not in text and not any(raw in text for raw in RAW)
    assert [p.pooled for p in assessing.query_progress_page(db, "zoe")[0]] == [
        len(assessing.load_queue(db, "zoe", q).items) for q in ("q1", "q2")]


async def test_a_lock_held_past_the_wait_is_one_line_not_a_driver_message(locked_campaign, monkeypatch):
    monkeypatch.setattr(writing, "LOCK_WAIT_S", 0.3)
    db, holder = locked_campaign
    holder.execute("BEGIN IMMEDIATE")
    app = make_app(db, assessor="zoe", lead=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            assert await _until(pilot, lambda: isinstance(app.screen, JudgeScreen)
                                and "load failed" in _status(app)), _status(app)
            text = screen_text(app)
            assert ("load failed: the database stayed locked by another writer for 0.3 s; "
                    "nothing was written") in text
            assert not any(raw in text for raw in RAW)
    finally:
        holder.execute("COMMIT")


def test_describe_gives_a_driver_error_as_one_line():
    exc = OperationalError("INSERT INTO judgment ...", {}, sqlite3.OperationalError("disk I/O error"))
    assert "Background on this error" in str(exc)  # what the screen used to show
    assert describe(exc) == "database error: disk I/O error"
