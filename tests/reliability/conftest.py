"""Helpers for the reliability tests: seeded campaigns, `workbench` subprocesses, table counts.

Campaign rows are inserted without explicit ids so that PostgreSQL's sequences stay right
(the TUI factory sets ids by hand, fine on SQLite only).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, insert, select, text

from workbench.campaign.database import Database
from workbench.store.models import Document, Judgment, JudgmentEvent, Query

REPO = Path(__file__).resolve().parents[2]
TABLES = (
    "query", "document", "system", "result", "assessor", "judgment", "judgment_event",
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
    """Row count of every campaign table (the 'nothing written' oracle)."""
    db = db_or_url if isinstance(db_or_url, Database) else Database.open(str(db_or_url), create=False)
    try:
        with db.read() as s:
            return {t: s.execute(text(f'SELECT count(*) FROM "{t}"')).scalar_one() for t in TABLES}
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
