"""The one rule for every write: one transaction that waits up to LOCK_WAIT_S for other
writers, says so while it waits, and gives up with one line instead of a driver message.

Why 120 s: on SQLite an all-or-nothing import holds the write lock for its whole
transaction (a 3 M-line run: ~25 s), longer than the 10 s busy timeout; a grade, a note, an
assignment or another import keeps waiting this long instead of failing "database is
locked". On PostgreSQL the same deadline bounds every lock wait of the transaction
(lock_timeout), including the advisory locks that make imports and pooling queue
(store/locking.py).

Retrying is safe: SQLite reports "locked" at BEGIN IMMEDIATE, before anything was read or
written, and only that step is retried; a wait that runs out later rolls the whole
transaction back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, TypeVar

from workbench.campaign.database import Database
from workbench.errors import DatabaseError
from workbench.store.locking import (
    bound_lock_waits,
    is_connection_lost,
    is_lock_busy,
    serialize,
    try_serialize,
)

if TYPE_CHECKING:  # annotations only: sessions come from the store's factories
    from workbench.store.database import Session

LOCK_WAIT_S = 120.0
# How long a write is tried again while the PostgreSQL server cannot be reached.
OUTAGE_RETRY_S = 30.0
_OUTAGE_PAUSE_S = 0.25
# A UI says "waiting" once taking the locks has lasted this long.
NOTICE_AFTER_S = 0.5
# Between two BEGIN attempts (each already waits the busy timeout inside SQLite).
_PAUSE_S = 0.05
WAITING = "waiting for the database (another process is writing)…"
# The queue (`serialize_as`) that imports, removals and re-sorting the runs share: each
# reads the known ids or the stored runs, then writes what follows from them, which two at
# once would both do (store/locking.py).
IMPORTS = "import"
T = TypeVar("T")


def busy_error() -> DatabaseError:
    return DatabaseError(
        f"the database stayed locked by another writer for {LOCK_WAIT_S:g} s; nothing was "
        "written (try again when it has finished)"
    )


class _Notice:
    """Calls `on_wait` once when taking the transaction's locks fails once or lasts
    NOTICE_AFTER_S, whichever comes first: SQLite reports a busy lock only after its busy
    timeout (10 s), far too late for "waiting…". The timer runs only when there is an
    `on_wait` (a grade has none: no thread per grade)."""

    def __init__(self, on_wait: Callable[[], None] | None) -> None:
        self._on_wait = on_wait
        self._given = threading.Lock()
        self._timer: threading.Timer | None = None
        if on_wait is not None:
            self._timer = threading.Timer(NOTICE_AFTER_S, self._from_timer)
            self._timer.daemon = True
            self._timer.start()

    def __call__(self) -> None:
        if self._on_wait is not None and self._given.acquire(blocking=False):
            self._on_wait()

    def _from_timer(self) -> None:
        with suppress(Exception):  # a notice that cannot be shown must not break the write
            self()

    def stop(self) -> None:
        """The locks are taken: no notice from now on (one being shown finishes first, so
        it never lands after what the write shows next)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer.join()


def _begin(db: Database, deadline: float, notice: _Notice, plain: bool):
    """A session (or, `plain`, a store.dbapi.Writer when the database allows one) in its
    write transaction: BEGIN IMMEDIATE on SQLite, tried again until `deadline`."""
    while True:
        session = db.direct_writer() if plain else db.write()
        try:
            session.begin()
            if not plain:
                session.connection()  # SQLite: BEGIN IMMEDIATE, which waits the busy timeout
            return session
        except Exception as exc:
            session.close()
            if not is_lock_busy(exc):
                raise
            if time.monotonic() >= deadline:
                raise busy_error() from None
        notice()
        time.sleep(_PAUSE_S)


@contextmanager
def write_transaction(
    db: Database, *, serialize_as: str | None = None, on_wait: Callable[[], None] | None = None,
    plain: bool = False,
) -> Iterator[Session]:
    """`with write_transaction(db) as session:` - like `db.write.begin()` (commit at the end,
    rollback on any exception), but waits for other writers up to LOCK_WAIT_S.

    `serialize_as` names a use case whose transactions must run one at a time on every
    backend (see store/locking.py). `on_wait` is called once if the transaction has to wait
    (a UI shows WAITING), possibly from another thread. A wait that runs out raises
    DatabaseError, nothing written.

    `plain`: for a use case whose statements are all the store's SQL text on a Reader
    (store.dbapi): while the process has no engine, the transaction runs on a plain driver
    connection and yields it (a store.dbapi.Writer) instead of a session, so that SQLAlchemy
    is never imported (`import run` starts faster without it); the rules are the same.
    """
    plain = plain and db.can_write_directly
    if not plain:
        from workbench.store.engine import read_only_reason

        reason = read_only_reason(db.engine)
        if reason is not None:  # say the cause and the fix, not "attempt to write a readonly database"
            raise DatabaseError(f"cannot write: {reason}")
    deadline = time.monotonic() + LOCK_WAIT_S
    notice = _Notice(on_wait)
    try:
        session = _begin(db, deadline, notice, plain)
    except BaseException:
        notice.stop()
        raise
    try:
        try:
            conn = session if plain else session.connection()
            bound_lock_waits(conn, max(deadline - time.monotonic(), 0.001))
            if serialize_as is not None and not try_serialize(conn, serialize_as):
                notice()
                serialize(conn, serialize_as)
        finally:
            notice.stop()
        yield session
        session.commit()
    except BaseException as exc:
        session.rollback()
        if is_lock_busy(exc):
            raise busy_error() from None
        raise
    finally:
        session.close()


def through_outages(action: Callable[[], T], *, on_retry: Callable[[BaseException], None] | None = None,
                    within: float = OUTAGE_RETRY_S) -> T:
    """`action()`, tried again for up to `within` seconds while the database server cannot
    be reached (store.locking.is_connection_lost); any other error, or the last one, is
    raised. A 2-second PostgreSQL restart during `grade --batch` failed every remaining line
    before. `on_retry(exc)` is called before the first retry (to say "retrying").

    Safe for a grade: its transaction either committed or rolled back. If the connection
    dropped during COMMIT after the server had committed, the retry sets the same grade
    again (a second event with the same value), never a different one."""
    deadline = time.monotonic() + within
    told = False
    while True:
        try:
            return action()
        except Exception as exc:
            if not is_connection_lost(exc) or time.monotonic() >= deadline:
                raise
            if on_retry is not None and not told:
                told = True
                on_retry(exc)
        time.sleep(_OUTAGE_PAUSE_S)
