"""Queries and documents by external id, for imports: id maps read once per import, stub
rows for ids a run or qrels file names first, and the upserts of topic and document files.

`kind` is "query" or "document" throughout."""

from __future__ import annotations

from collections.abc import Sequence

from typing import TYPE_CHECKING

import numpy as np

from workbench.store.bulk import big_cache, bulk_insert
from workbench.store.dbapi import as_reader

if TYPE_CHECKING:  # SQLAlchemy on use: known_ids and create_stubs are SQL text (`import run`)
    from sqlalchemy.orm import Session

BATCH = 10_000
_NAMES = {"query": "query", "document": "document"}  # the tables' names, for SQL text


def _table(kind: str):
    from workbench.store.models import Document, Query

    return {"query": Query, "document": Document}[kind].__table__
# What a stub row holds besides its external id: empty text, to be filled by a later import.
_STUB = {
    "query": (("ext_id", "title", "description", "narrative"), ("", "", "")),
    "document": (("ext_id", "title", "text", "url"), ("", "", None)),
}


def id_map(session: Session, kind: str) -> dict[str, int]:
    """external id -> database id of every query or document. Also gives the connection
    the big page cache an import wants (store.bulk.big_cache)."""
    from workbench.store.bulk import ext_id_map

    conn = session.connection()
    big_cache(conn)
    return ext_id_map(conn, _table(kind))


# SQLite allows 32 766 parameters per statement
_CHUNK = 30_000


def known_ids(conn, kind: str, names: Sequence[str]) -> dict[str, int]:
    """external id -> database id of those of `names` the campaign has (an index lookup
    each: a run names 50 000 of a campaign's maybe 500 000 documents, and reading them all
    cost an `import run` process 0.3 s). Also gives the connection the big page cache an
    import wants. `conn`: a Session, Connection or store.dbapi Reader."""
    conn, table = as_reader(conn), _NAMES[kind]
    big_cache(conn)
    if conn.dialect == "postgresql":
        return dict(conn.rows(f"SELECT ext_id, id FROM {table} WHERE ext_id = ANY(:names)",
                              {"names": list(names)}))
    found: dict[str, int] = {}
    for start in range(0, len(names), _CHUNK):
        part = tuple(names[start:start + _CHUNK])
        marks = ", ".join("?" * len(part))
        found.update(conn.rows(f"SELECT ext_id, id FROM {table} WHERE ext_id IN ({marks})", part))
    return found


def create_stubs(conn, kind: str, names: Sequence[str]) -> np.ndarray:
    """Create stub rows for `names` (external ids the campaign does not have yet, in key
    order: the unique index then fills page after page); their database ids, aligned."""
    conn, table = as_reader(conn), _NAMES[kind]
    if not names:
        return np.zeros(0, dtype=np.int64)
    before = conn.scalar(f"SELECT coalesce(max(id), 0) FROM {table}")
    columns, extra = _STUB[kind]
    for start in range(0, len(names), BATCH):
        bulk_insert(conn, table, columns, [(x, *extra) for x in names[start:start + BATCH]])
    last, above = conn.first(f"SELECT max(id), count(*) FROM {table} WHERE id > :before",
                             {"before": before})
    if conn.dialect == "sqlite" and above == len(names) and last == before + len(names):
        # SQLite gives a new INTEGER PRIMARY KEY max(id) + 1, and we hold the write lock:
        # the stubs got before+1 ... before+k in insertion order.
        return np.arange(before + 1, last + 1, dtype=np.int64)
    # Ids come from a sequence: everything above the old maximum is new (ours or another
    # committed writer's).
    new = dict(conn.rows(f"SELECT ext_id, id FROM {table} WHERE id > :before", {"before": before}))
    return np.array([new[x] for x in names], dtype=np.int64)


def insert_texts(session: Session, kind: str, rows: list[dict]) -> None:
    """New queries or documents: dicts of their columns (ext_id, title, ...)."""
    from sqlalchemy import insert

    if rows:
        session.connection().execute(insert(_table(kind)), rows)


def update_texts(session: Session, kind: str, rows: list[dict]) -> None:
    """Overwrite known queries or documents: dicts of their columns, the row's id as `b_id`."""
    from sqlalchemy import bindparam, update

    if not rows:
        return
    table = _table(kind)
    cols = [k for k in rows[0] if k != "b_id"]
    stmt = update(table).where(table.c.id == bindparam("b_id")).values({c: bindparam(c) for c in cols})
    session.connection().execute(stmt, rows)


__all__ = ["create_stubs", "id_map", "known_ids", "insert_texts", "update_texts"]
