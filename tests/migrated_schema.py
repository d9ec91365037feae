"""A new database at head in milliseconds: the migrations' SQL, recorded once, replayed.

Every `Database.open` of a new database runs all Alembic migrations, about 0.2 s of CPU
(Alembic loads and runs each script); the suite opens over a thousand. `replaying_upgrade`
stands in for `workbench.store.schema.upgrade` in the test process (tests/conftest.py): the
first time a new, empty database of a dialect is brought to head, the real migrations run
and every statement they send is recorded; later new databases of that dialect get the same
statements replayed, in one transaction. Everything else goes to the real upgrade: a
revision other than head, a database that is not empty, another migrations folder (tests
that add a revision), and the modules in conftest's REAL_MIGRATIONS, which test the
migrations themselves. tests/test_migrated_schema.py checks that a replayed database is the
migrated one.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import Engine, event, inspect, update

# (statement, parameters, executemany) as the driver received them
Recording = list[tuple[str, object, bool]]

_lock = threading.Lock()
_recordings: dict[tuple[str, Path, str], Recording] = {}
# Transaction control is the replay's own: one transaction for all the statements.
_SKIP = ("BEGIN", "COMMIT", "ROLLBACK")


def _is_empty(engine: Engine) -> bool:
    with engine.connect() as conn:
        return not inspect(conn).get_table_names()


@functools.cache
def replaying_upgrade(real_upgrade: Callable[..., None]) -> Callable[..., None]:
    """An `upgrade(engine, revision="head")` that replays a recorded migration to head."""
    from workbench.store import schema

    real_dir = schema.migrations_dir()

    def upgrade(engine: Engine, revision: str = "head") -> None:
        scripts = schema.migrations_dir()
        if revision != "head" or scripts != real_dir or not _is_empty(engine):
            real_upgrade(engine, revision)
            return
        key = (engine.dialect.name, scripts, schema.head_revision())
        with _lock:
            recording = _recordings.get(key)
            if recording is None:
                _recordings[key] = _record(engine, real_upgrade)
                return
        _replay(engine, recording)

    return upgrade


def _record(engine: Engine, real_upgrade: Callable[..., None]) -> Recording:
    statements: Recording = []

    def capture(conn, cursor, statement, parameters, context, executemany) -> None:
        statements.append((statement, parameters, executemany))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        real_upgrade(engine)
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    return [s for s in statements if not s[0].lstrip().upper().startswith(_SKIP)]


def _replay(engine: Engine, recording: Recording) -> None:
    from workbench.store.models import Campaign

    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as conn:
        if sqlite:
            # as migrations/env.py does: a batch rebuild drops a parent table
            conn.connection.driver_connection.execute("PRAGMA foreign_keys = OFF")
        try:
            with conn.begin():
                cursor = conn.connection.driver_connection.cursor()
                try:
                    for statement, parameters, many in _batched(recording, sqlite):
                        if many:
                            cursor.executemany(statement, parameters)
                        elif parameters:
                            cursor.execute(statement, parameters)
                        else:  # no placeholders: psycopg must not read a '%' as one
                            cursor.execute(statement)
                finally:
                    cursor.close()
                # the settings row was made when the recording was: date it now
                conn.execute(update(Campaign).values(created_at=datetime.now(timezone.utc)))
        finally:
            if sqlite:
                conn.connection.driver_connection.execute("PRAGMA foreign_keys = ON")


def _batched(recording: Recording, sqlite: bool) -> Recording:
    """PostgreSQL takes consecutive statements without parameters in one round trip."""
    if sqlite:
        return recording
    out: Recording = []
    for statement, parameters, many in recording:
        if not parameters and out and not out[-1][1]:
            out[-1] = (out[-1][0] + ";\n" + statement, None, False)
        else:
            out.append((statement, parameters, many))
    return out
