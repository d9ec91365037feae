"""A grade during a long import: on SQLite an all-or-nothing import holds the write lock
for its whole transaction (a 3 000 000-line run held it ~25 s here, longer than the 10 s
busy timeout), and grades then failed with "database is locked". record_grade now waits
for the lock (up to writing.LOCK_WAIT_S, the one rule of every write); the busy timeout is shortened here so the test
takes ~2 s instead of minutes."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from workbench.campaign import writing
from workbench.campaign.assessors import roster
from workbench.campaign.database import Database
from workbench.campaign.judging.grades import record_grade
from workbench.errors import DatabaseError

from tests.reliability.conftest import judgment_counts, seed

HOLD_S = 1.5


@pytest.fixture
def short_busy_db(tmp_path, monkeypatch):
    import workbench.store.dbapi as engine  # BUSY_TIMEOUT_MS: read when connections are made

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
    """The control: with no lock wait the same grade fails (what assessors saw during a big
    import), with one line of our own instead of the driver's "database is locked" and its
    SQL dump, and nothing is written."""
    monkeypatch.setattr(writing, "LOCK_WAIT_S", 0.0)
    db, path = short_busy_db
    out, _ = _grade_while_locked(db, path)
    assert isinstance(out.get("error"), DatabaseError)
    assert str(out["error"]) == (
        "the database stayed locked by another writer for 0 s; nothing was written "
        "(try again when it has finished)"
    )
    assert judgment_counts(db) == (0, 0)


@pytest.mark.parametrize("action", ["undo", "note", "repeat"])
def test_undo_note_and_repeat_wait_too(short_busy_db, action):
    """The judging screen's other writes (undo, note, a hidden repeat grade) also wait."""
    from workbench.campaign.judging import assessing
    from workbench.campaign.judging.grades import undo_last

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


@pytest.mark.parametrize("action", ["assessor", "assign", "pool", "import", "adjudicate"])
def test_every_other_write_waits_too(short_busy_db, tmp_path, action):
    """Creating an assessor and assigning (the judging screen's start-up), pooling, an
    import and an adjudication wait for the lock like a grade (they failed after the busy
    timeout before)."""
    from sqlalchemy import func, select

    from workbench.campaign.judging import assessing

    from workbench.campaign.pooling import assign as pooling
    from workbench.campaign.agreement.adjudication import adjudicate
    from workbench.campaign.catalog.importing import import_run
    from workbench.store.models import Assessor, RunArrays

    db, path = short_busy_db
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d0001 1 2.0 r1\nq1 Q0 d0002 2 1.0 r1\n", encoding="utf-8")
    write = {
        "assessor": lambda: roster.create_assessor(db, "zoe"),
        "assign": lambda: pooling.assign(db, ["zoe"]),
        "pool": lambda: pooling.build_pool(db, 5),
        "import": lambda: import_run(db, run),
        "adjudicate": lambda: adjudicate(db, "lead", "q1", "d0001", 1),
    }[action]
    out, elapsed = _grade_while_locked(db, path, write)
    assert "error" not in out, out.get("error")
    assert elapsed >= HOLD_S
    with db.read() as s:
        if action in ("assessor", "assign"):
            assert s.scalar(select(func.count()).where(Assessor.name == "zoe")) == 1
        if action == "import":
            assert s.scalar(select(RunArrays.n_rows)) == 2


@pytest.mark.parametrize("setting", ["blind", "name", "idle_cap", "guidelines"])
def test_settings_changes_wait_too(short_busy_db, setting):
    """`campaign --not-blind` (and every other settings change) waits for another writer
    like a grade: the settings used to open their own transaction, and failed with
    "database is locked" after the busy timeout."""
    from workbench.campaign import settings

    db, path = short_busy_db
    write = {
        "blind": lambda: settings.set_blind(db, False),
        "name": lambda: settings.rename_campaign(db, "tuning"),
        "idle_cap": lambda: settings.set_idle_cap(db, 90),
        "guidelines": lambda: settings.set_guidelines(db, "judge the topic, not the words"),
    }[setting]
    out, elapsed = _grade_while_locked(db, path, write)
    assert "error" not in out, out.get("error")
    assert elapsed >= HOLD_S
    now = settings.campaign_settings(db)
    assert (now.blind, now.name, now.idle_cap_seconds, now.guidelines) == {
        "blind": (False, "campaign", 300, ""),
        "name": (True, "tuning", 300, ""),
        "idle_cap": (True, "campaign", 90, ""),
        "guidelines": (True, "campaign", 300, "judge the topic, not the words"),
    }[setting]
