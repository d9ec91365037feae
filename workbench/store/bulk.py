"""Bulk writes and reads: rows straight to and from the driver, the fastest way each
backend has.

COPY on PostgreSQL (psycopg), executemany through the raw DBAPI connection on SQLite
(store.dbapi.Reader.insert_rows). Rows are plain tuples in the given column order.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

from typing import TYPE_CHECKING

import numpy as np

from workbench.store.dbapi import Reader, as_reader

if TYPE_CHECKING:  # imported on use: int_arrays serves plain driver reads too
    from sqlalchemy import Connection, Table


def bulk_insert(conn, table, columns: Sequence[str], rows: list[tuple]) -> None:
    """Insert `rows` in the transaction of `conn` (a Connection or a store.dbapi Reader;
    `table` a Table or its name): Reader.insert_rows on sqlite3 and psycopg, SQLAlchemy's
    executemany on any other driver."""
    if not rows:
        return
    if isinstance(conn, Reader) or conn.dialect.driver in ("pysqlite", "psycopg"):
        as_reader(conn).insert_rows(getattr(table, "name", table), columns, rows)
        return
    from sqlalchemy import insert

    conn.execute(insert(table), [dict(zip(columns, row)) for row in rows])


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
