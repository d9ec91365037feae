"""The handle every use case takes: an engine plus write and read session factories."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from workbench.store.engine import read_sessions, write_sessions
from workbench.store.schema import open_database


@dataclass
class Database:
    engine: Engine
    write: sessionmaker[Session]
    read: sessionmaker[Session]

    @classmethod
    def open(cls, db: str | None = None, *, create: bool = True) -> "Database":
        """Open (and, if new and empty, create) the database at URL or path `db`."""
        engine = open_database(db, create=create)
        return cls.from_engine(engine)

    @classmethod
    def from_engine(cls, engine: Engine) -> "Database":
        return cls(engine, write_sessions(engine), read_sessions(engine))

    @property
    def url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    def close(self) -> None:
        self.engine.dispose()


@dataclass(frozen=True)
class InitResult:
    """What `workbench init` did: `state` was 'new', 'older' or 'current' before."""

    where: str
    state: str
    before: str | None
    revision: str | None


def initialise(db: str | None) -> InitResult:
    """Create or upgrade the schema to head; refuses foreign or newer databases unchanged."""
    from workbench.store.engine import make_engine
    from workbench.store.schema import current_revision, ensure_schema

    engine = make_engine(db)
    try:
        change = ensure_schema(engine, upgrade_older=True)
        if change.state == "older":  # runs imported before revision 0003 get their arrays now
            from workbench.store.engine import write_sessions
            from workbench.store.run_arrays import fill_run_arrays

            with write_sessions(engine).begin() as session:
                fill_run_arrays(session)
        return InitResult(
            engine.url.render_as_string(hide_password=True), change.state, change.before,
            current_revision(engine),
        )
    finally:
        engine.dispose()


def missing_database_file(db: str | None) -> str | None:
    """The path of the SQLite file `db` names when it does not exist yet (None otherwise, and
    for PostgreSQL): the TUI asks before it creates one."""
    from workbench.store.schema import missing_sqlite_file

    return missing_sqlite_file(db)
