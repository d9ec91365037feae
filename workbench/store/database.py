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
    def concurrent_writers(self) -> bool:
        """Whether several transactions can write at once (PostgreSQL; SQLite has one
        write lock)."""
        return self.engine.dialect.name != "sqlite"

    @property
    def url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    def close(self) -> None:
        self.engine.dispose()
