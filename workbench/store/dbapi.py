"""Reading through the driver itself: SQL text on a plain DB-API connection (sqlite3, or
psycopg for PostgreSQL), without SQLAlchemy.

A reading command (`list runs`, `score`, ...) spends most of its start-up importing
SQLAlchemy and its ORM (about 0.3 s of a 0.4 s process). The store's read queries that
such commands need are therefore written once, as SQL text with `:name` parameters, and
run through a `Reader`: either a plain driver connection opened here (`open_reader`), or
the connection of an SQLAlchemy session or connection (`as_reader`), so that the TUI, which
has an engine anyway, runs the same text. One statement, one home.

`:name` is sqlite3's own named style; for psycopg it becomes `%(name)s` (and `%` doubles).
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from urllib.parse import parse_qsl, quote

BUSY_TIMEOUT_MS = 10_000
_NAME = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")


def pyformat(sql: str) -> str:
    """`:name` parameters as psycopg's `%(name)s` (a literal `%` doubled; `::type` casts kept)."""
    return _NAME.sub(r"%(\1)s", sql.replace("%", "%%"))


def in_list(name: str, values: Sequence) -> tuple[str, dict]:
    """`(:name0, :name1, ...)` and its parameters, for `column IN ...`; an empty list matches
    nothing (`(NULL)`)."""
    values = list(values)
    if not values:
        return "(NULL)", {}
    keys = [f"{name}{i}" for i in range(len(values))]
    return "(" + ", ".join(":" + k for k in keys) + ")", dict(zip(keys, values))


class Reader:
    """Runs read statements (SQL text, `:name` parameters) and gives plain tuples."""

    dialect: str  # 'sqlite' or 'postgresql'

    def _cursor(self, sql: str, params: dict):  # pragma: no cover - abstract
        raise NotImplementedError

    def rows(self, sql: str, params: dict | None = None) -> list[tuple]:
        cursor = self._cursor(sql, params or {})
        try:
            return cursor.fetchall()
        finally:
            cursor.close()

    def each(self, sql: str, params: dict | None = None) -> Iterator[tuple]:
        """The rows one at a time (a large row, such as a run's blobs, can go before the next)."""
        cursor = self._cursor(sql, params or {})
        try:
            while (row := cursor.fetchone()) is not None:
                yield row
        finally:
            cursor.close()

    def first(self, sql: str, params: dict | None = None) -> tuple | None:
        cursor = self._cursor(sql, params or {})
        try:
            return cursor.fetchone()
        finally:
            cursor.close()

    def scalar(self, sql: str, params: dict | None = None):
        row = self.first(sql, params)
        return None if row is None else row[0]

    def rollback(self) -> None:
        """Roll back after a failed statement (PostgreSQL refuses any more until then)."""

    # --- writing, in the caller's transaction (store modules only: one home per statement)
    def run(self, sql: str, params: dict | None = None) -> None:
        """Run a statement whose rows, if any, are not wanted."""
        cursor = self._cursor(sql, params or {})
        if cursor is not None:  # SQLAlchemy closes a result without rows itself
            cursor.close()

    def driver(self):
        """The DB-API connection underneath (sqlite3 or psycopg), in this transaction."""
        raise NotImplementedError  # pragma: no cover - abstract

    def insert_rows(self, table: str, columns: Sequence[str], rows: list[tuple], *,
                    binary: bool = False) -> None:
        """Insert plain tuples in the given column order, the fastest way each backend has:
        COPY on PostgreSQL, executemany on SQLite (SQLAlchemy's per-row parameter
        processing cost more than SQLite's own inserts: 3.4 s of 8.5 s for a 1 M-line run).
        `binary`: PostgreSQL's binary COPY, typed by the table's own columns (a quarter of
        the text COPY's client time: 1.0 s against 4.0 s for 300 000 rows of 8 columns);
        the caller gives each value in its column's Python type (int, float, str,
        datetime, None), never a number as text."""
        if not rows:
            return
        names = ", ".join(f'"{c}"' for c in columns)
        cursor = self.driver().cursor()
        try:
            if self.dialect == "postgresql":
                types = None
                if binary:
                    cursor.execute("SELECT attname, atttypid FROM pg_attribute WHERE attrelid = "
                                   "%s::regclass AND attnum > 0 AND NOT attisdropped", (f'"{table}"',))
                    oid = {name: int(t) for name, t in cursor.fetchall()}
                    types = [oid[c] for c in columns]
                form = " (FORMAT BINARY)" if types else ""
                with cursor.copy(f'COPY "{table}" ({names}) FROM STDIN{form}') as copy:
                    if types:
                        copy.set_types(types)
                    for row in rows:
                        copy.write_row(row)
            else:
                cursor.executemany(
                    f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(columns))})', rows)
        finally:
            cursor.close()


class _DriverReader(Reader):
    def __init__(self, connection, dialect: str) -> None:
        self.connection = connection
        self.dialect = dialect

    def _cursor(self, sql, params):
        cursor = self.connection.cursor()
        if self.dialect == "postgresql":
            cursor.execute(pyformat(sql), params)
        else:
            cursor.execute(sql, params)
        return cursor

    def rollback(self) -> None:
        self.connection.rollback()

    def driver(self):
        return self.connection


class _AlchemyReader(Reader):
    """The same statements on an SQLAlchemy connection, in its transaction."""

    def __init__(self, conn) -> None:
        self.conn = conn
        self.dialect = conn.dialect.name

    def _cursor(self, sql, params):
        if self.dialect == "postgresql":
            sql = pyformat(sql)
        return self.conn.exec_driver_sql(sql, params).cursor

    def rollback(self) -> None:
        self.conn.rollback()

    def driver(self):
        return self.conn.connection.driver_connection


def as_reader(source) -> Reader:
    """A Reader over `source`: a Reader, an SQLAlchemy Connection, or a Session (its
    connection, in its transaction, after flushing what the session holds: as the ORM's
    own autoflush before a query would)."""
    if isinstance(source, Reader):
        return source
    if hasattr(source, "exec_driver_sql"):  # a Connection
        return _AlchemyReader(source)
    if source.autoflush:  # a Session
        source.flush()
    return _AlchemyReader(source.connection())


class Writer(_DriverReader):
    """A plain driver connection for one write transaction at a time (`connect_writer`):
    `begin` (BEGIN IMMEDIATE on SQLite, which waits the busy timeout for other writers;
    PostgreSQL opens the transaction on the first statement, READ COMMITTED as the engine's
    write sessions), then the store's statements, then `commit` or `rollback`."""

    def begin(self) -> None:
        if self.dialect == "sqlite":
            self.connection.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self.connection.commit()

    def close(self) -> None:
        self.connection.close()


def sqlite_setup(connection, *, wal: bool) -> None:
    """What every SQLite connection that may write gets (docs/architecture.md#known-pitfalls):
    BEGIN left to us (Python 3.11's sqlite3 has no `autocommit`), the busy timeout,
    foreign keys, WAL (`wal`: a file that can be written) with synchronous=FULL."""
    connection.isolation_level = None
    cursor = connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys = ON")
    if wal:
        cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = FULL")
    cursor.close()


def connect_writer(url: str) -> Writer:
    """A `Writer` on `url` (can_read_directly, and writable: see sqlite_write_problem)."""
    if url.startswith("sqlite"):
        connection = sqlite3.connect(plain_sqlite_path(url), timeout=BUSY_TIMEOUT_MS / 1000,
                                     isolation_level=None, check_same_thread=False)
        sqlite_setup(connection, wal=True)
        return Writer(connection, "sqlite")
    import psycopg

    return Writer(psycopg.connect("postgresql://" + url.split("://", 1)[1]), "postgresql")


# --- SQLite files ----------------------------------------------------------------------------
def sqlite_write_problem(path: str) -> str | None:
    """Why SQLite could not write the database at `path`: the cause and the fix, or None.
    In WAL mode SQLite writes PATH-wal and PATH-shm beside the file, so a read-only folder
    breaks writes even to a writable file; and a file without write permission makes SQLite
    create -wal/-shm files with the same mode (0444), which broke every later write after a
    mere read."""
    folder = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(path)
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return (f"{path} is read-only (no write permission): reading works; to write, "
                f"`chmod u+w {path}` or work on a copy")
    if not os.access(folder, os.W_OK | os.X_OK):
        return (f"the folder {folder} is read-only: SQLite keeps {name}-wal and {name}-shm "
                "beside the database while writing; make the folder writable or copy the "
                "database to a writable folder (reading works as it is)")
    return None


def read_only_connect(path: str):
    """A function making connections that never write, lock or create a file: mode=ro, and
    immutable=1 when there is no write-ahead log to read (no -shm is needed then, and none
    is left behind)."""
    wal = path + "-wal"
    immutable = not (os.path.exists(wal) and os.path.getsize(wal) > 0)
    uri = f"file:{quote(path)}?mode=ro" + ("&immutable=1" if immutable else "")

    def connect():
        return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                               check_same_thread=False, isolation_level=None)

    return connect


def plain_sqlite_path(url: str) -> str | None:
    """The file of a plain `sqlite:///PATH` URL (None for memory and `file:` URIs)."""
    rest = url.split(":///", 1)[1] if ":///" in url else ""
    if not rest or rest == ":memory:" or rest.startswith("file:") or "?" in rest:
        return None
    return rest


# libpq's own URI parameters that a workbench URL may carry (anything else: SQLAlchemy's)
_LIBPQ = frozenset({"options", "sslmode", "connect_timeout", "application_name", "host", "port",
                    "sslrootcert", "sslcert", "sslkey", "target_session_attrs", "passfile"})


def can_read_directly(url: str) -> bool:
    """Whether `open_reader` can open `url` without SQLAlchemy: an existing plain SQLite
    file, or PostgreSQL through psycopg with only libpq's parameters."""
    if url.startswith("sqlite"):
        path = plain_sqlite_path(url)
        return path is not None and os.path.isfile(path)
    if url.startswith("postgresql+psycopg://"):
        query = url.split("?", 1)[1] if "?" in url else ""
        return all(key in _LIBPQ for key, _ in parse_qsl(query))
    return False


@contextmanager
def open_reader(url: str) -> Iterator[Reader]:
    """A plain driver connection to `url` (can_read_directly), in one read-only snapshot:
    a deferred BEGIN on SQLite (never waits for a writer), REPEATABLE READ READ ONLY on
    PostgreSQL, as the engine's read sessions (store.engine.read_sessions)."""
    if url.startswith("sqlite"):
        path = plain_sqlite_path(url)
        if sqlite_write_problem(path) is not None:
            connection = read_only_connect(path)()
        else:
            connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        try:
            connection.execute("BEGIN DEFERRED")
            yield _DriverReader(connection, "sqlite")
        finally:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            connection.close()
        return
    import psycopg

    connection = psycopg.connect("postgresql://" + url.split("://", 1)[1])
    try:
        connection.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        connection.read_only = True
        yield _DriverReader(connection, "postgresql")
    finally:
        connection.rollback()
        connection.close()


__all__ = ["Reader", "Writer", "as_reader", "can_read_directly", "connect_writer", "in_list", "open_reader",
           "plain_sqlite_path", "pyformat", "read_only_connect", "sqlite_setup", "sqlite_write_problem"]
