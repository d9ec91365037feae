"""The handle every use case takes: an engine plus write and read session factories, and
plain driver reads (`reader`) that need neither.

Opening checks the database through the driver alone when it can (schema.check_directly):
a reading command that only runs the store's SQL text through `reader()` then never
imports SQLAlchemy. The engine and the session factories are made on first use.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from workbench.store.dbapi import (
    Reader,
    Writer,
    as_reader,
    can_read_directly,
    connect_writer,
    open_reader,
    plain_sqlite_path,
    sqlite_write_problem,
)

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlalchemy.orm import Session, sessionmaker


class Database:
    def __init__(self, engine: "Engine | None" = None, *, url: str | None = None) -> None:
        if engine is None and url is None:
            raise ValueError("Database needs an engine or a URL")
        self._engine = engine
        self._url = url  # the resolved URL, for a database opened without an engine
        self._write = None
        self._read = None

    @classmethod
    def open(cls, db: str | None = None, *, create: bool = True) -> "Database":
        """Open (and, if new and empty, create) the database at URL or path `db`."""
        from workbench.store.schema import check_directly
        from workbench.store.urls import resolve_url

        url = resolve_url(db)
        if check_directly(url):  # current: nothing to create or refuse, no engine yet
            return cls(url=url)
        from workbench.store.schema import open_database

        return cls.from_engine(open_database(db, create=create))

    @classmethod
    def from_engine(cls, engine: "Engine") -> "Database":
        return cls(engine)

    @property
    def engine(self) -> "Engine":
        if self._engine is None:
            from workbench.store import schema  # where open_database makes its engines too

            self._engine = schema.make_engine(self._url)
        return self._engine

    @property
    def write(self) -> "sessionmaker[Session]":
        if self._write is None:
            from workbench.store.engine import write_sessions

            self._write = write_sessions(self.engine)
        return self._write

    @property
    def read(self) -> "sessionmaker[Session]":
        if self._read is None:
            from workbench.store.engine import read_sessions

            self._read = read_sessions(self.engine)
        return self._read

    @contextmanager
    def reader(self) -> Iterator[Reader]:
        """One read-only snapshot for the store's SQL text: a plain driver connection while
        no engine exists (a reading command), else a read session's connection."""
        if self._engine is None and can_read_directly(self._url):
            with open_reader(self._url) as conn:
                yield conn
            return
        with self.read() as session:
            yield as_reader(session)

    @property
    def can_write_directly(self) -> bool:
        """Whether `direct_writer` may be used: no engine yet, and a database that can be
        written without one (a read-only SQLite file takes the engine's way, which refuses
        it with the cause and the fix)."""
        if self._engine is not None or not can_read_directly(self._url):
            return False
        return not (self._url.startswith("sqlite")
                    and sqlite_write_problem(plain_sqlite_path(self._url)))

    def direct_writer(self) -> Writer:
        """A plain driver connection for one write transaction (store.dbapi.Writer); only
        where `can_write_directly`."""
        return connect_writer(self._url)

    @property
    def dialect(self) -> str:
        """'sqlite' or 'postgresql'."""
        if self._engine is not None:
            return self._engine.dialect.name
        return "sqlite" if self._url.startswith("sqlite") else "postgresql"

    @property
    def concurrent_writers(self) -> bool:
        """Whether several transactions can write at once (PostgreSQL; SQLite has one
        write lock)."""
        return self.dialect != "sqlite"

    @property
    def url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    def close(self) -> None:
        if self._engine is not None:
            self._engine.dispose()
