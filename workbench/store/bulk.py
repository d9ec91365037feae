"""Bulk writes and reads: rows straight to and from the driver, the fastest way each
backend has.

COPY on PostgreSQL (psycopg), executemany through the raw DBAPI connection on SQLite
(store.dbapi.Reader.insert_rows). Rows are plain tuples in the given column order.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import chain

from typing import TYPE_CHECKING

import numpy as np

from workbench.store.dbapi import Reader, as_reader

if TYPE_CHECKING:  # imported on use: int_arrays serves plain driver reads too
    from sqlalchemy import Connection, Table


def bulk_insert(conn, table, columns: Sequence[str], rows: list[tuple], *, binary: bool = False) -> None:
    """Insert `rows` in the transaction of `conn` (a Connection or a store.dbapi Reader;
    `table` a Table or its name): Reader.insert_rows on sqlite3 and psycopg (`binary`: a
    binary COPY on PostgreSQL, values in their columns' Python types), SQLAlchemy's
    executemany on any other driver."""
    if not rows:
        return
    if isinstance(conn, Reader) or conn.dialect.driver in ("pysqlite", "psycopg"):
        as_reader(conn).insert_rows(getattr(table, "name", table), columns, rows, binary=binary)
        return
    from sqlalchemy import insert

    conn.execute(insert(table), [dict(zip(columns, row)) for row in rows])


@contextmanager
def parents_locked(conn, parents: Mapping[str, Collection[int]]) -> Iterator[bool]:
    """Bulk child rows whose parents are known to exist, written inside this block.

    On PostgreSQL each inserted row fires one foreign-key trigger per constraint (8 per
    nugget label and its `set` event: 16 of the 22 s of a 300 000-label import). Here the
    parents (table -> ids) are locked FOR KEY SHARE in one statement per table, as those
    triggers would lock them (a concurrent delete waits until commit; a parent already gone
    is a DatabaseError and nothing is written), and, where the role may set it (a superuser,
    or `GRANT SET ON PARAMETER session_replication_role`), `session_replication_role =
    replica` skips the per-row triggers until the block ends (SET LOCAL: this transaction
    only). Otherwise the triggers run as always. Yields whether they were skipped. SQLite:
    nothing to do. The caller must hold every parent id its rows refer to in `parents`."""
    reader = as_reader(conn)
    if reader.dialect != "postgresql":
        yield False
        return
    from workbench.errors import DatabaseError

    for table, ids in parents.items():
        wanted = sorted({int(i) for i in ids})
        if not wanted:
            continue
        got = reader.scalar(f'SELECT count(*) FROM (SELECT 1 FROM "{table}" WHERE id = ANY(:ids) '
                            "FOR KEY SHARE) AS locked", {"ids": wanted})
        if int(got) != len(wanted):
            raise DatabaseError(f"{len(wanted) - int(got)} rows of {table} were removed while this "
                                "ran; nothing was written: run it again")
    cursor = reader.driver().cursor()
    try:
        cursor.execute("SAVEPOINT wb_parents_locked")
        try:
            cursor.execute("SET LOCAL session_replication_role = replica")
            skipped = True
        except Exception:  # noqa: BLE001 - not allowed for this role: the triggers run
            cursor.execute("ROLLBACK TO SAVEPOINT wb_parents_locked")
            skipped = False
        cursor.execute("RELEASE SAVEPOINT wb_parents_locked")
    finally:
        cursor.close()
    yield skipped
    if skipped:  # not on an error: the transaction is rolled back, and the setting with it
        reader.run("SET LOCAL session_replication_role = origin")


REBUILD_MIN_ROWS = 50_000


@contextmanager
def indexes_rebuilt(conn, tables: Sequence[str], rows: int) -> Iterator[bool]:
    """A first bulk load on PostgreSQL: when `rows` (the rows about to be written) is at
    least REBUILD_MIN_ROWS and every table in `tables` is empty, their secondary indexes
    and unique constraints (not the primary keys, not the foreign keys) are dropped for the
    block and built again after it, with the same names and definitions: one sort per
    index instead of an insert per row (900 000 nugget labels: 8.5 s of server time
    instead of 14.9 s on a loaded 2-core machine). A unique constraint is checked again
    when it is built (a duplicate fails the transaction: nothing is written). The DDL locks
    the tables ACCESS EXCLUSIVE until commit, so readers of these (empty) tables wait for
    the load; a role that does not own them, or a lock that is not had within the
    transaction's lock_timeout, keeps the indexes (rolled back to a savepoint). Yields
    whether they were dropped. SQLite: nothing to do."""
    reader = as_reader(conn)
    if reader.dialect != "postgresql" or rows < REBUILD_MIN_ROWS or any(
            reader.scalar(f'SELECT EXISTS (SELECT 1 FROM "{t}")') for t in tables):
        yield False
        return
    saved: list[tuple[str, str, str, str]] = []  # (table, constraint | index, name, definition)
    for t in tables:
        for name, definition in reader.rows(
                "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = "
                "CAST(:t AS regclass) AND contype = 'u' ORDER BY conname", {"t": f'"{t}"'}):
            saved.append((t, "constraint", name, definition))
        for name, definition in reader.rows(
                "SELECT c.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON "
                "c.oid = i.indexrelid WHERE i.indrelid = CAST(:t AS regclass) AND NOT i.indisprimary AND "
                "NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) "
                "ORDER BY c.relname", {"t": f'"{t}"'}):
            saved.append((t, "index", name, definition))
    cursor = reader.driver().cursor()
    try:
        cursor.execute("SAVEPOINT wb_indexes_rebuilt")
        try:
            for t, kind, name, _ in saved:
                cursor.execute(f'ALTER TABLE "{t}" DROP CONSTRAINT "{name}"' if kind == "constraint"
                               else f'DROP INDEX "{name}"')
        except Exception:  # noqa: BLE001 - not the owner, or the lock not had: keep them
            cursor.execute("ROLLBACK TO SAVEPOINT wb_indexes_rebuilt")
            saved = []
        cursor.execute("RELEASE SAVEPOINT wb_indexes_rebuilt")
    finally:
        cursor.close()
    yield bool(saved)
    for t, kind, name, definition in saved:  # not on an error: the rollback restores them
        reader.run(f'ALTER TABLE "{t}" ADD CONSTRAINT "{name}" {definition}' if kind == "constraint"
                   else definition)


def big_cache(conn) -> None:
    """SQLite's default 2 MB page cache thrashes on million-row index inserts (`conn`: a
    Connection or a store.dbapi Reader)."""
    conn = as_reader(conn)
    if conn.dialect == "sqlite":
        conn.run("PRAGMA cache_size = -131072")  # 128 MB, this connection only


def plain_rows(conn: Connection, stmt) -> list[tuple]:
    """All rows of `stmt` as the driver's plain tuples: SQLAlchemy Row objects cost ~2 us
    each, 0.4 s per 200 000 ids."""
    result = conn.execute(stmt)
    try:
        return result.cursor.fetchall()
    finally:
        result.close()


def int_columns(conn: Connection, stmt, width: int) -> list[np.ndarray]:
    """`width` int64 columns of `stmt`'s rows, read through the driver's cursor (numpy
    reads plain tuples several times faster than Row objects)."""
    return int_arrays(plain_rows(conn, stmt), width)


def int_arrays(rows: list[tuple], width: int) -> list[np.ndarray]:
    """`width` int64 columns of plain row tuples."""
    flat = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=width * len(rows))
    table = flat.reshape(-1, width)
    return [table[:, c].copy() for c in range(width)]


def ext_id_map(conn: Connection, table: Table) -> dict[str, int]:
    """external id -> database id of every row of `table` (query or document)."""
    from sqlalchemy import select

    return dict(plain_rows(conn, select(table.c.ext_id, table.c.id)))


__all__ = ["big_cache", "bulk_insert", "ext_id_map", "int_arrays", "int_columns", "plain_rows"]
