"""The campaign's settings row (Campaign, id 1): read it, change fields of it."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from workbench.store.models import Campaign

SETTING_COLUMNS = ("name", "relevance_threshold", "default_measures", "pool_depth", "blind", "guidelines",
                   "idle_cap_seconds")


def read_settings(read: sessionmaker[Session]) -> dict[str, object] | None:
    """The settings row as {column: value}, None when the row is missing."""
    columns = [getattr(Campaign, name) for name in SETTING_COLUMNS]
    with read() as s:
        row = s.execute(select(*columns).where(Campaign.id == 1)).first()
    return None if row is None else dict(zip(SETTING_COLUMNS, row))


def write_settings(s: Session, **values: object) -> None:
    """Change the named settings inside the caller's write transaction (the row is created
    if missing). The caller owns the transaction, so a settings change waits for other
    writers like every write (campaign/writing.py)."""
    unknown = set(values) - set(SETTING_COLUMNS)
    if unknown:
        raise ValueError(f"unknown campaign settings: {sorted(unknown)}")
    if s.get(Campaign, 1) is None:
        s.add(Campaign(id=1))
        s.flush()
    s.execute(update(Campaign).where(Campaign.id == 1).values(**values))


__all__ = ["SETTING_COLUMNS", "read_settings", "write_settings"]
