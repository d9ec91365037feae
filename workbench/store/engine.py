"""Engine and session factory from a database URL (SQLite by default, PostgreSQL for teams).

SQLite settings follow docs/architecture.md#known-pitfalls: WAL with synchronous=FULL, foreign keys on every
connection, a 10 s busy timeout, and write transactions that start with BEGIN IMMEDIATE so
that concurrent read-then-write transactions queue instead of failing with "database is
locked". Read-only sessions use a deferred BEGIN so they never wait for a writer.
"""

from __future__ import annotations

import os
import weakref

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

# the SQLite rules shared with plain driver connections live in store.dbapi (BUSY_TIMEOUT_MS
# is read there when a connection is made: tests shorten it)
from workbench.store import dbapi
from workbench.store.dbapi import plain_sqlite_path, sqlite_setup, sqlite_write_problem
from workbench.store.dbapi import read_only_connect as _read_only_creator
from workbench.store.urls import resolve_url
# engine -> why its SQLite file cannot be written (absent: it can)
_READ_ONLY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def read_only_reason(engine: Engine) -> str | None:
    """Why the engine's SQLite file cannot be written (its mode, or a read-only folder), or
    None. Such an engine reads through read-only connections; writes refuse at once with
    this reason (campaign.writing.write_transaction)."""
    return _READ_ONLY.get(engine)


def _install_sqlite_events(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # pragma: no cover - trivial
        sqlite_setup(dbapi_connection, wal=engine.url.database not in (None, "", ":memory:")
                     and read_only_reason(engine) is None)

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:
        mode = conn.get_execution_options().get("sqlite_begin", "IMMEDIATE")
        conn.exec_driver_sql(f"BEGIN {mode}")


def make_engine(db: str | None = None, **kwargs) -> Engine:
    """Create an engine for `db` (URL or path); SQLite gets the pragmas above."""
    url = resolve_url(db)
    if url.startswith("sqlite"):
        path = plain_sqlite_path(url)
        problem = sqlite_write_problem(path) if path is not None and os.path.exists(path) else None
        if problem is not None:
            kwargs["creator"] = _read_only_creator(path)
        else:
            kwargs.setdefault("connect_args", {"timeout": dbapi.BUSY_TIMEOUT_MS / 1000})
        engine = create_engine(url, **kwargs)
        if problem is not None:
            _READ_ONLY[engine] = problem
        _install_sqlite_events(engine)
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    return create_engine(url, **kwargs)


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
