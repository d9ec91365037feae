"""Queries and documents by external id, for imports: id maps read once per import, stub
rows for ids a run or qrels file names first, and the upserts of topic and document files.

`kind` is "query" or "document" throughout."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Table, bindparam, func, insert, select, update
from sqlalchemy.orm import Session

from workbench.store.bulk import big_cache, bulk_insert, ext_id_map
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


def create_stubs(session: Session, kind: str, known: dict[str, int], wanted: Sequence[str]) -> int:
    """Create stub rows for the ids in `wanted` that are not in `known`; add them to
    `known`. Returns how many were created."""
    table = _TABLES[kind]
    conn = session.connection()
    missing = [x for x in wanted if x not in known]
    if not missing:
        return 0
    before = conn.execute(select(func.coalesce(func.max(table.c.id), 0))).scalar_one()
    columns, extra = _STUB[kind]
    missing.sort()  # in key order: the unique index fills page after page
    for start in range(0, len(missing), BATCH):
        bulk_insert(conn, table, columns, [(x, *extra) for x in missing[start:start + BATCH]])
    last, above = conn.execute(
        select(func.max(table.c.id), func.count()).where(table.c.id > before)
    ).one()
    if conn.dialect.name == "sqlite" and above == len(missing) and last == before + len(missing):
        # SQLite gives a new INTEGER PRIMARY KEY max(id) + 1, and we hold the write lock:
        # the stubs got before+1 ... before+k in insertion order.
        known.update(zip(missing, range(before + 1, last + 1)))
    else:
        # Ids come from a sequence: everything above the old maximum is new (ours or
        # another committed writer's, both correct mappings).
        known.update((ext, id_) for ext, id_ in conn.execute(
            select(table.c.ext_id, table.c.id).where(table.c.id > before)))
    return len(missing)


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


__all__ = ["create_stubs", "id_map", "insert_texts", "update_texts"]
