"""Queries and documents by external id, for imports: id maps read once per import, stub
rows for ids a run or qrels file names first, and the upserts of topic and document files.

`kind` is "query" or "document" throughout."""

from __future__ import annotations

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


def known_ids(conn, kind: str, names: np.ndarray) -> np.ndarray:
    """The database id of each of `names` (an `S` array of UTF-8 ids), -1 where the
    campaign has none; aligned with `names`. Also gives the connection the big page cache
    an import wants. `conn`: a Session, Connection or store.dbapi Reader.

    One statement and one row for all of them: an index lookup per name inside the
    database (a run names 50 000 of a campaign's maybe 500 000 documents: reading them all
    cost an `import run` process 0.3 s), and no Python object per name on the way back
    (IN lists of 30 000 parameters, a row and a dict entry per name, took 65 ms of a 0.25 s
    process; this takes 20 ms)."""
    conn, table = as_reader(conn), _NAMES[kind]
    big_cache(conn)
    if names.size == 0:
        return np.zeros(0, dtype=np.int64)
    if conn.dialect == "postgresql":
        ids = conn.scalar(
            f"SELECT array_agg(coalesce(t.id, -1) ORDER BY u.i) "
            f"FROM unnest(CAST(:names AS text[])) WITH ORDINALITY AS u(name, i) "
            f"LEFT JOIN {table} AS t ON t.ext_id = u.name",
            {"names": [x.decode("utf-8") for x in names.tolist()]})
        return np.array(ids, dtype=np.int64)
    # The names go in as one JSON array (json_each: SQLite 3.38+ has JSON built in); the
    # ids come back as one comma-joined text in the array's order (the ORDER BY subquery
    # is not flattened into the aggregate, so group_concat sees its rows in that order).
    text = conn.scalar(
        f"SELECT group_concat(i) FROM (SELECT coalesce(t.id, -1) AS i FROM json_each(:names) AS j "
        f"LEFT JOIN {table} AS t ON t.ext_id = j.value ORDER BY j.key)",
        {"names": _json_array(names)})
    ids = np.fromstring(text or "", dtype=np.int64, sep=",")
    if ids.size != names.size:  # cannot happen: one row per JSON element
        raise RuntimeError(f"known_ids: {ids.size} ids for {names.size} names")
    return ids


def _json_array(names: np.ndarray) -> str:
    """`names` (UTF-8 bytes) as a JSON array of strings. Ids without a quote, a backslash,
    a control or a non-ASCII byte (nearly all: TREC docnos) are joined as they are, with
    no str per name; the others go through json.dumps."""
    raw = np.ascontiguousarray(names).view(np.uint8)
    if not ((raw == 0x22) | (raw == 0x5C) | ((raw < 0x20) & (raw != 0)) | (raw > 0x7E)).any():
        return (b'["' + b'","'.join(names.tolist()) + b'"]').decode("ascii")
    import json

    return json.dumps([x.decode("utf-8") for x in names.tolist()])


def create_stubs(conn, kind: str, names: np.ndarray) -> np.ndarray:
    """Create stub rows for `names` (an `S` array of UTF-8 external ids the campaign does not
    have yet, in key order: the unique index then fills page after page); their database
    ids, aligned. SQLite inserts them in one statement from a JSON array (50 000 stubs:
    19 ms; executemany's row tuples took 78 ms), PostgreSQL by COPY."""
    conn, table = as_reader(conn), _NAMES[kind]
    if names.size == 0:
        return np.zeros(0, dtype=np.int64)
    before = conn.scalar(f"SELECT coalesce(max(id), 0) FROM {table}")
    insert_stubs(conn, kind, names)
    last, above = conn.first(f"SELECT max(id), count(*) FROM {table} WHERE id > :before",
                             {"before": before})
    if conn.dialect == "sqlite" and above == names.size and last == before + names.size:
        # SQLite gives a new INTEGER PRIMARY KEY max(id) + 1, and we hold the write lock:
        # the stubs got before+1 ... before+k in insertion order.
        return np.arange(before + 1, last + 1, dtype=np.int64)
    # Ids come from a sequence: everything above the old maximum is new (ours or another
    # committed writer's).
    new = dict(conn.rows(f"SELECT ext_id, id FROM {table} WHERE id > :before", {"before": before}))
    return np.array([new[x.decode("utf-8")] for x in names.tolist()], dtype=np.int64)


def insert_stubs(conn, kind: str, names: np.ndarray) -> None:
    """Insert the stub rows of `names` (create_stubs' write, in `names`' order)."""
    conn, table = as_reader(conn), _NAMES[kind]
    columns, extra = _STUB[kind]
    if conn.dialect == "sqlite":
        fill = {f"e{i}": value for i, value in enumerate(extra)}
        conn.run(f"INSERT INTO {table} ({', '.join(columns)}) "
                 f"SELECT value, {', '.join(':' + k for k in fill)} FROM json_each(:names) ORDER BY key",
                 {"names": _json_array(names), **fill})
        return
    decoded = [x.decode("utf-8") for x in names.tolist()]
    for start in range(0, len(decoded), BATCH):
        bulk_insert(conn, table, columns, [(x, *extra) for x in decoded[start:start + BATCH]])


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


__all__ = ["create_stubs", "id_map", "known_ids", "insert_stubs", "insert_texts", "update_texts"]
