"""The SQL behind waiting for other writers, on both backends.

SQLite has one write lock per database file: a write transaction starts with BEGIN
IMMEDIATE (engine.py), so writers queue and a read-modify-write is never raced. PostgreSQL
lets writers run side by side; where a use case reads, decides and then writes (an import
creating stub ids, pooling, assigning), `serialize` takes a transaction-level advisory lock
named after the use case, which makes such writers queue as they do on SQLite. Measured
without it: two `import run` creating the same stub queries failed on uq_query_ext_id (3 of
3 tries), two `pool` on pk_pool_entry.

The lock key includes the current schema, so campaigns in different schemas of one server
(the test suite's) do not wait for each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.store.dbapi import as_reader

if TYPE_CHECKING:  # SQLAlchemy is imported on use: `import run` writes through the driver alone
    from sqlalchemy import Connection, Table

# SQLite's message for SQLITE_BUSY from BEGIN IMMEDIATE; PostgreSQL's SQLSTATE
# lock_not_available (lock_timeout ran out).
_SQLITE_BUSY = ("database is locked", "database is busy")
_PG_LOCK_NOT_AVAILABLE = "55P03"
# The advisory lock's 64-bit key: hashtextextended(current_schema() || ':' || name, 0).
_TRY_LOCK = "SELECT pg_try_advisory_xact_lock(hashtextextended(current_schema() || ':' || :name, 0))"
_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || ':' || :name, 0))"


def _driver_error(exc: BaseException):
    """The driver's exception behind `exc` (SQLAlchemy's DBAPIError wraps it as .orig; a
    plain driver connection raises it as it is), or None for anything else."""
    module = type(exc).__module__.split(".")[0]
    if module == "sqlalchemy":
        return getattr(exc, "orig", None)
    return exc if module in ("sqlite3", "psycopg") else None


def is_lock_busy(exc: BaseException) -> bool:
    """True when `exc` says another writer held a lock longer than we waited."""
    orig = _driver_error(exc)
    if orig is None:
        return False
    if getattr(orig, "sqlstate", None) == _PG_LOCK_NOT_AVAILABLE:
        return True
    return any(m in str(orig) for m in _SQLITE_BUSY)


# SQLSTATEs of a server that went away: class 08 (connection exception), and 57P01-57P03
# (terminated by an administrator, crash shutdown, cannot connect now: a restart).
_PG_GONE = ("57P01", "57P02", "57P03")


def is_connection_lost(exc: BaseException) -> bool:
    """True when `exc` says the PostgreSQL server could not be reached or dropped the
    connection (a restart, a network cut), as opposed to a refusal of what was sent.
    SQLite has no server: never true there."""
    orig = _driver_error(exc)
    if orig is None:
        return False
    if getattr(exc, "connection_invalidated", False):
        return True
    if type(orig).__module__.split(".")[0] != "psycopg":
        return False
    state = getattr(orig, "sqlstate", None)
    if state is None:  # no answer from a server at all: connecting failed, or the socket broke
        import psycopg

        return isinstance(orig, psycopg.OperationalError)
    return state.startswith("08") or state in _PG_GONE


def bound_lock_waits(conn, seconds: float) -> None:
    """PostgreSQL: any lock wait in this transaction gives up after `seconds` (SQLite waits
    at BEGIN IMMEDIATE only, bounded by its busy timeout). `conn`: a Connection or a
    store.dbapi Reader."""
    conn = as_reader(conn)
    if conn.dialect == "postgresql":
        ms = max(1, int(seconds * 1000))
        conn.scalar("SELECT set_config('lock_timeout', :ms, true)", {"ms": f"{ms}ms"})


def try_serialize(conn, name: str) -> bool:
    """Take the transaction lock `name` if it is free; False when another transaction
    holds it. Always True on SQLite, whose write transaction already excludes writers."""
    conn = as_reader(conn)
    if conn.dialect != "postgresql":
        return True
    return bool(conn.scalar(_TRY_LOCK, {"name": name}))


def serialize(conn, name: str) -> None:
    """Wait for the transaction lock `name` (released at commit or rollback); the wait is
    bounded by `bound_lock_waits`."""
    conn = as_reader(conn)
    if conn.dialect == "postgresql":
        conn.scalar(_LOCK, {"name": name})


def insert_ignoring_duplicates(conn: Connection, table: Table):
    """INSERT ... ON CONFLICT DO NOTHING for this connection's dialect: a row another
    transaction has just inserted is left as it is (read it back afterwards)."""
    # imported here: the PostgreSQL dialect costs read-only commands ~40 ms at start-up
    from sqlalchemy.dialects import postgresql, sqlite

    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    return dialect.insert(table).on_conflict_do_nothing()
