"""Engine and session factory from a database URL (SQLite by default, PostgreSQL for teams).

SQLite settings follow docs/architecture.md#known-pitfalls: WAL with synchronous=FULL, foreign keys on every
connection, a 10 s busy timeout, and write transactions that start with BEGIN IMMEDIATE so
that concurrent read-then-write transactions queue instead of failing with "database is
locked". Read-only sessions use a deferred BEGIN so they never wait for a writer.
"""

from __future__ import annotations

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from workbench.store.urls import resolve_url

BUSY_TIMEOUT_MS = 10_000


def _install_sqlite_events(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # pragma: no cover - trivial
        # Take BEGIN away from the driver (Python 3.11's sqlite3 has no `autocommit`).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        if engine.url.database not in (None, "", ":memory:"):
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
        kwargs.setdefault("connect_args", {"timeout": BUSY_TIMEOUT_MS / 1000})
        engine = create_engine(url, **kwargs)
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
