"""A grade during a long import: on SQLite an all-or-nothing import holds the write lock
for its whole transaction (a 3 000 000-line run held it ~25 s here, longer than the 10 s
busy timeout), and grades then failed with "database is locked". record_grade now waits
for the lock (up to judging.LOCK_WAIT_S); the busy timeout is shortened here so the test
takes ~2 s instead of minutes."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from sqlalchemy.exc import OperationalError

from workbench.campaign import judging
from workbench.campaign.database import Database
from workbench.campaign.judging import record_grade

from tests.reliability.conftest import judgment_counts, seed

HOLD_S = 1.5


@pytest.fixture
def short_busy_db(tmp_path, monkeypatch):
    import workbench.store.engine as engine

    monkeypatch.setattr(engine, "BUSY_TIMEOUT_MS", 200)  # read when engines connect
    path = tmp_path / "c.sqlite"
    db = Database.open(str(path))
    seed(db, 1, 2)
    yield db, path
    db.close()


def _grade_while_locked(db, path, write=None) -> tuple[dict, float]:
    """Another writer (the import) holds the write lock for HOLD_S; grade meanwhile."""
    holder = sqlite3.connect(str(path), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO system (tag, description) VALUES ('importing', '')")
    out: dict = {}

    def grade() -> None:
        try:
            out["record"] = (write or (lambda: record_grade(db, "ann", "q1", "d0001", 2)))()
        except Exception as exc:  # noqa: BLE001 - reported to the test
            out["error"] = exc

    t0 = time.monotonic()
    worker = threading.Thread(target=grade)
    worker.start()
    time.sleep(HOLD_S)
    holder.execute("COMMIT")
    holder.close()
    worker.join(timeout=60)
    return out, time.monotonic() - t0


def test_grade_waits_for_a_long_import(short_busy_db):
    db, path = short_busy_db
    out, elapsed = _grade_while_locked(db, path)
    assert "error" not in out, out.get("error")
    assert out["record"].new_grade == 2 and elapsed >= HOLD_S
    assert judgment_counts(db) == (1, 1)


def test_without_waiting_the_grade_would_fail(short_busy_db, monkeypatch):
    """The control: with no lock wait the same grade fails 'database is locked' (what
    assessors saw during a big import) and nothing is written."""
    monkeypatch.setattr(judging, "LOCK_WAIT_S", 0.0)
    db, path = short_busy_db
    out, _ = _grade_while_locked(db, path)
    assert isinstance(out.get("error"), OperationalError)
    assert "database is locked" in str(out["error"])
    assert judgment_counts(db) == (0, 0)


@pytest.mark.parametrize("action", ["undo", "note", "repeat"])
def test_undo_note_and_repeat_wait_too(short_busy_db, action):
    """The judging screen's other writes (undo, note, a hidden repeat grade) also wait."""
    from workbench.campaign import assessing
    from workbench.campaign.judging import undo_last

    db, path = short_busy_db
    record_grade(db, "ann", "q1", "d0002", 1)
    write = {
        "undo": lambda: undo_last(db, "ann"),
        "note": lambda: assessing.set_note(db, "ann", "q1", "d0002", "why"),
        "repeat": lambda: assessing.record_repeat(db, "ann", "q1", "d0002", 3),
    }[action]
    out, elapsed = _grade_while_locked(db, path, write)
    assert "error" not in out, out.get("error")
    assert out["record"].kind == action and elapsed >= HOLD_S
