"""The campaign's settings row (Campaign, id 1): read it, change fields of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.store.dbapi import Reader, as_reader

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

SETTING_COLUMNS = ("name", "relevance_threshold", "default_measures", "pool_depth", "blind", "guidelines",
                   "idle_cap_seconds", "score_compat")


_READ = f"SELECT {', '.join(SETTING_COLUMNS)} FROM campaign WHERE id = 1"


def read_settings(conn: Reader) -> dict[str, object] | None:
    """The settings row as {column: value}, None when the row is missing (`blind` as
    stored: 0/1 on SQLite, a bool on PostgreSQL)."""
    row = conn.first(_READ)
    return None if row is None else dict(zip(SETTING_COLUMNS, row))


def write_settings(s: Session, **values: object) -> None:
    """Change the named settings inside the caller's write transaction (the row is created
    if missing). The caller owns the transaction, so a settings change waits for other
    writers like every write (campaign/writing.py)."""
    unknown = set(values) - set(SETTING_COLUMNS)
    if unknown:
        raise ValueError(f"unknown campaign settings: {sorted(unknown)}")
    from sqlalchemy import update

    from workbench.store.models import Campaign

    if s.get(Campaign, 1) is None:
        s.add(Campaign(id=1))
        s.flush()
    s.execute(update(Campaign).where(Campaign.id == 1).values(**values))


def score_compat(conn) -> int:
    """The campaign's score order (trec_eval 10 or 9), read in the caller's transaction
    (`conn`: a Session, Connection or Reader)."""
    value = as_reader(conn).scalar("SELECT score_compat FROM campaign WHERE id = 1")
    return 10 if value is None else int(value)


__all__ = ["SETTING_COLUMNS", "read_settings", "score_compat", "write_settings"]
