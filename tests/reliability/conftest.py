"""Helpers for the reliability tests: seeded campaigns, `workbench` subprocesses, table counts.

Campaign rows are inserted without explicit ids so that PostgreSQL's sequences stay right
(the TUI factory sets ids by hand, fine on SQLite only).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, insert, select, text

from workbench.campaign.database import Database
from workbench.store.models import Document, Judgment, JudgmentEvent, Query

REPO = Path(__file__).resolve().parents[2]
TABLES = (
    "query", "document", "system", "run_arrays", "assessor", "judgment", "judgment_event",
    "pool_entry", "assignment", "adjudication", "scale_level", "campaign",
)


@pytest.fixture(autouse=True)
def private_config(tmp_path, monkeypatch):
    """The TUI's remembered-assessor file goes to a temporary config dir."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def seed(db: Database, n_queries: int, n_docs: int) -> tuple[list[str], list[str]]:
    """Queries q1.. and documents d0001.. (no results, no pool: grading needs only ids)."""
    queries = [f"q{i + 1}" for i in range(n_queries)]
    docs = [f"d{i + 1:04d}" for i in range(n_docs)]
    with db.write.begin() as s:
        s.execute(insert(Query), [{"ext_id": q, "title": f"T {q}"} for q in queries])
        s.execute(insert(Document), [{"ext_id": d, "title": "", "text": f"text {d}"} for d in docs])
    return queries, docs


def workbench_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "workbench", *args]


def env() -> dict[str, str]:
    e = dict(os.environ)
    e.pop("WORKBENCH_DB", None)
    e["PYTHONUNBUFFERED"] = "1"
    return e


def run_wb(*args: str, input: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        workbench_cmd(*args), input=input, capture_output=True, text=True, timeout=timeout,
        cwd=REPO, env=env(),
    )


def counts(db_or_url) -> dict[str, int]:
    """Row count of every campaign table (the 'nothing written' oracle), and under "result"
    the results of every stored run."""
    db = db_or_url if isinstance(db_or_url, Database) else Database.open(str(db_or_url), create=False)
    try:
        with db.read() as s:
            out = {t: s.execute(text(f'SELECT count(*) FROM "{t}"')).scalar_one() for t in TABLES}
            out["result"] = int(s.execute(text("SELECT coalesce(sum(n_rows), 0) FROM run_arrays")).scalar_one())
            return out
    finally:
        if db is not db_or_url:
            db.close()


def judgment_counts(db: Database) -> tuple[int, int]:
    with db.read() as s:
        return (
            s.scalar(select(func.count()).select_from(Judgment)),
            s.scalar(select(func.count()).select_from(JudgmentEvent)),
        )


def integrity_ok(path: str | Path) -> str:
    import sqlite3

    con = sqlite3.connect(str(path))
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


def race(first, second, *, overlap_s: float = 0.5) -> dict[str, object]:
    """Run `first` and `second` (no-argument calls) in two threads so that their write
    transactions overlap: `first` is held just before its commit (a Session "before_commit"
    hook, so any write path can be raced) while `second` starts and runs into it, then
    released after `overlap_s`. Returns {"first": result or exception, "second": ...}.

    This is the interleaving that failed on PostgreSQL: `second` inserting a key that
    `first` inserted but has not committed waits for it, then fails on the unique key."""
    import threading

    from sqlalchemy import event
    from sqlalchemy.orm import Session

    at_commit, release = threading.Event(), threading.Event()

    def hold(session) -> None:
        if threading.current_thread().name == "race-first" and not at_commit.is_set():
            at_commit.set()
            release.wait(30)

    out: dict[str, object] = {}

    def run(name: str, call) -> None:
        try:
            out[name] = call()
        except Exception as exc:  # noqa: BLE001 - reported to the test
            out[name] = exc

    event.listen(Session, "before_commit", hold)
    try:
        a = threading.Thread(target=run, args=("first", first), name="race-first")
        b = threading.Thread(target=run, args=("second", second), name="race-second")
        a.start()
        assert at_commit.wait(30), "the first call never reached its commit"
        b.start()
        time.sleep(overlap_s)  # `second` is now waiting (for a key, a lock or BEGIN)
        release.set()
        a.join(60)
        b.join(60)
    finally:
        release.set()
        event.remove(Session, "before_commit", hold)
    return out
