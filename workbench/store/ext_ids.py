"""Queries and documents by external id, for imports: id maps read once per import, stub
rows for ids a run or qrels file names first, and the upserts of topic and document files.

`kind` is "query" or "document" throughout."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlalchemy import Table, bindparam, func, insert, select, update
from sqlalchemy.orm import Session

from workbench.store.bulk import big_cache, bulk_insert, ext_id_map, plain_rows
from workbench.store.models import Document, Query

BATCH = 10_000

_TABLES: dict[str, Table] = {"query": Query.__table__, "document": Document.__table__}  # type: ignore[dict-item]
# What a stub row holds besides its external id: empty text, to be filled by a later import.
_STUB = {
    "query": (("ext_id", "title", "description", "narrative"), ("", "", "")),
    "document": (("ext_id", "title", "text", "url"), ("", "", None)),
}


def id_map(session: Session, kind: str) -> dict[str, int]:
    """external id -> database id of every query or document. Also gives the connection
    the big page cache an import wants (store.bulk.big_cache)."""
    conn = session.connection()
    big_cache(conn)
    return ext_id_map(conn, _TABLES[kind])


def id_arrays(session: Session, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Every query's or document's external id (an `S` array, UTF-8) and database id
    (int64, aligned). Also gives the connection the big page cache an import wants."""
    conn = session.connection()
    big_cache(conn)
    table = _TABLES[kind]
    rows = plain_rows(conn, select(table.c.ext_id, table.c.id))
    if not rows:
        return np.empty(0, dtype="S1"), np.empty(0, dtype=np.int64)
    names = np.array([name.encode("utf-8") for name, _ in rows], dtype="S")
    return names, np.fromiter((i for _, i in rows), dtype=np.int64, count=len(rows))


def create_stubs(session: Session, kind: str, names: Sequence[str]) -> np.ndarray:
    """Create stub rows for `names` (external ids the campaign does not have yet, in key
    order: the unique index then fills page after page); their database ids, aligned."""
    table = _TABLES[kind]
    conn = session.connection()
    if not names:
        return np.zeros(0, dtype=np.int64)
    before = conn.execute(select(func.coalesce(func.max(table.c.id), 0))).scalar_one()
    columns, extra = _STUB[kind]
    for start in range(0, len(names), BATCH):
        bulk_insert(conn, table, columns, [(x, *extra) for x in names[start:start + BATCH]])
    last, above = conn.execute(
        select(func.max(table.c.id), func.count()).where(table.c.id > before)
    ).one()
    if conn.dialect.name == "sqlite" and above == len(names) and last == before + len(names):
        # SQLite gives a new INTEGER PRIMARY KEY max(id) + 1, and we hold the write lock:
        # the stubs got before+1 ... before+k in insertion order.
        return np.arange(before + 1, last + 1, dtype=np.int64)
    # Ids come from a sequence: everything above the old maximum is new (ours or another
    # committed writer's).
    new = dict(conn.execute(select(table.c.ext_id, table.c.id).where(table.c.id > before)).all())
    return np.array([new[x] for x in names], dtype=np.int64)


def insert_texts(session: Session, kind: str, rows: list[dict]) -> None:
    """New queries or documents: dicts of their columns (ext_id, title, ...)."""
    if rows:
        session.connection().execute(insert(_TABLES[kind]), rows)


def update_texts(session: Session, kind: str, rows: list[dict]) -> None:
    """Overwrite known queries or documents: dicts of their columns, the row's id as `b_id`."""
    if not rows:
        return
    table = _TABLES[kind]
    cols = [k for k in rows[0] if k != "b_id"]
    stmt = update(table).where(table.c.id == bindparam("b_id")).values({c: bindparam(c) for c in cols})
    session.connection().execute(stmt, rows)


__all__ = ["create_stubs", "id_arrays", "id_map", "insert_texts", "update_texts"]
