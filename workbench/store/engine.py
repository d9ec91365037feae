"""Engine and session factory from a database URL (SQLite by default, PostgreSQL for teams).

SQLite settings follow docs/architecture.md#known-pitfalls: WAL with synchronous=FULL, foreign keys on every
connection, a 10 s busy timeout, and write transactions that start with BEGIN IMMEDIATE so
that concurrent read-then-write transactions queue instead of failing with "database is
locked". Read-only sessions use a deferred BEGIN so they never wait for a writer.
"""

from __future__ import annotations

import os
import sqlite3
import weakref
from urllib.parse import quote

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from workbench.store.urls import resolve_url

BUSY_TIMEOUT_MS = 10_000
# engine -> why its SQLite file cannot be written (absent: it can)
_READ_ONLY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def read_only_reason(engine: Engine) -> str | None:
    """Why the engine's SQLite file cannot be written (its mode, or a read-only folder), or
    None. Such an engine reads through read-only connections; writes refuse at once with
    this reason (campaign.writing.write_transaction)."""
    return _READ_ONLY.get(engine)


def sqlite_write_problem(path: str) -> str | None:
    """Why SQLite could not write the database at `path`: the cause and the fix, or None.
    In WAL mode SQLite writes PATH-wal and PATH-shm beside the file, so a read-only folder
    breaks writes even to a writable file; and a file without write permission makes SQLite
    create -wal/-shm files with the same mode (0444), which broke every later write after a
    mere read (issue 27 #17)."""
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


def _read_only_creator(path: str):
    """Connections that never write, lock or create a file: mode=ro, and immutable=1 when
    there is no write-ahead log to read (no -shm is needed then, and none is left behind)."""
    wal = path + "-wal"
    immutable = not (os.path.exists(wal) and os.path.getsize(wal) > 0)
    uri = f"file:{quote(path)}?mode=ro" + ("&immutable=1" if immutable else "")

    def connect():
        return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                               check_same_thread=False, isolation_level=None)

    return connect


def _install_sqlite_events(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # pragma: no cover - trivial
        # Take BEGIN away from the driver (Python 3.11's sqlite3 has no `autocommit`).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        if engine.url.database not in (None, "", ":memory:") and read_only_reason(engine) is None:
            cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:
        mode = conn.get_execution_options().get("sqlite_begin", "IMMEDIATE")
        conn.exec_driver_sql(f"BEGIN {mode}")


def make_engine(db: str | None = None, **kwargs) -> Engine:
    """Create an engine for `db` (URL or path); SQLite gets the pragmas above."""
    url = resolve_url(db)
    if url.startswith("sqlite"):
        path = _plain_sqlite_path(url)
        problem = sqlite_write_problem(path) if path is not None and os.path.exists(path) else None
        if problem is not None:
            kwargs["creator"] = _read_only_creator(path)
        else:
            kwargs.setdefault("connect_args", {"timeout": BUSY_TIMEOUT_MS / 1000})
        engine = create_engine(url, **kwargs)
        if problem is not None:
            _READ_ONLY[engine] = problem
        _install_sqlite_events(engine)
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    return create_engine(url, **kwargs)


def _plain_sqlite_path(url: str) -> str | None:
    """The file of a plain `sqlite:///PATH` URL (None for memory and `file:` URIs)."""
    rest = url.split(":///", 1)[1] if ":///" in url else ""
    if not rest or rest == ":memory:" or rest.startswith("file:") or "?" in rest:
        return None
    return rest


def write_sessions(engine: Engine) -> sessionmaker[Session]:
    """Sessions for use cases that write: `with factory.begin() as session: ...`."""
    return sessionmaker(engine, expire_on_commit=False)


def read_sessions(engine: Engine) -> sessionmaker[Session]:
    """Sessions for reading only, each one consistent snapshot: a deferred BEGIN on SQLite
    (never waits for writers; WAL readers see one state), REPEATABLE READ on PostgreSQL
    (whose default, READ COMMITTED, lets each statement see a newer state: the runs' row
    counts from one moment and their arrays from another). A read-only transaction at
    REPEATABLE READ never fails to serialize."""
    if engine.dialect.name == "sqlite":
        return sessionmaker(engine.execution_options(sqlite_begin="DEFERRED"), expire_on_commit=False)
    return sessionmaker(engine.execution_options(isolation_level="REPEATABLE READ"),
                        expire_on_commit=False)
