"""Schema versioning: create/upgrade through Alembic, and refuse databases we cannot use.

`open_database` is what every command calls: a new, empty database is created at head; an
older workbench database is upgraded only by `workbench init`; a database that is not a
workbench database, or whose revision is newer than this code knows, gives a one-line error
and is not touched.
"""

from __future__ import annotations

import functools
import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, inspect, text
from sqlalchemy.pool import NullPool

from workbench.errors import DatabaseError
from workbench.store.engine import make_engine


def migrations_dir() -> Path:
    """The Alembic scripts: packaged copy in a wheel, else the repository's `migrations/`."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "_migrations", here.parent / "migrations"):
        if (candidate / "env.py").is_file():
            return candidate
    raise DatabaseError("workbench installation is missing its migrations folder")


def alembic_config(connection=None):
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def _revision_graph() -> dict[str, str | None]:
    return _read_revision_graph(migrations_dir())


@functools.lru_cache(maxsize=4)
def _read_revision_graph(scripts: Path) -> dict[str, str | None]:
    """revision -> down_revision, read from the scripts' headers without importing Alembic
    (Alembic's script loader costs 0.15-0.5 s, and every open checks the revision)."""
    graph: dict[str, str | None] = {}
    for path in sorted((scripts / "versions").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        rev = _REVISION.search(source)
        down = _DOWN_REVISION.search(source)
        if rev is None or down is None:
            raise DatabaseError(f"{path}: not an Alembic revision script")
        graph[rev.group(1)] = down.group(2)
    return graph


_REVISION = re.compile(r"""^revision\b[^=\n]*=\s*['"]([^'"]+)['"]""", re.M)
_DOWN_REVISION = re.compile(r"""^down_revision\b[^=\n]*=\s*(None|['"]([^'"]+)['"])""", re.M)


def head_revision() -> str:
    graph = _revision_graph()
    heads = set(graph) - {down for down in graph.values() if down}
    if len(heads) != 1:
        raise DatabaseError(f"migrations have {len(heads)} heads, expected one: {sorted(heads)}")
    return heads.pop()


def known_revisions() -> set[str]:
    return set(_revision_graph())


def _sqlite_file(engine: Engine) -> str | None:
    if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return None
    name = engine.url.database
    if engine.url.query.get("uri") in ("true", "1") and name.startswith("file:"):
        # `sqlite:///file:PATH?mode=ro&uri=true` (a read-only database): the file is PATH
        from urllib.parse import unquote

        name = unquote(name[len("file:"):])
    return os.path.abspath(name)


@contextmanager
def _reader(engine: Engine) -> Iterator[Connection]:
    """A connection that does not change the database. For a SQLite file it is a plain
    driver connection without the engine's connect hook, which switches the file to WAL
    and would so rewrite a file that is not ours before we even know it. (Not mode=ro:
    a read-only connection cannot remove the -wal/-shm files it creates.)"""
    path = _sqlite_file(engine)
    if path is None:
        with engine.execution_options(sqlite_begin="DEFERRED").connect() as conn:
            yield conn
        return
    probe = create_engine(
        "sqlite://", poolclass=NullPool,
        creator=lambda: sqlite3.connect(path, timeout=10, isolation_level=None),
    )
    try:
        with probe.connect() as conn:
            yield conn
    finally:
        probe.dispose()


def current_revision(engine: Engine) -> str | None:
    """The database's Alembic revision, None if it has no version table."""
    with _reader(engine) as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        row = conn.execute(text("SELECT version_num FROM alembic_version")).first()
        return row[0] if row else None


def _table_names(engine: Engine) -> list[str]:
    path = _sqlite_file(engine)
    if path is not None and not os.path.exists(path):
        return []  # a new SQLite file: created on first write
    with _reader(engine) as conn:
        return inspect(conn).get_table_names()


def _describe(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=True)


def upgrade(engine: Engine, revision: str = "head") -> None:
    from alembic import command

    with engine.connect() as conn:
        command.upgrade(alembic_config(conn), revision)
        if conn.in_transaction():
            conn.commit()


def downgrade(engine: Engine, revision: str) -> None:
    from alembic import command

    with engine.connect() as conn:
        command.downgrade(alembic_config(conn), revision)
        if conn.in_transaction():
            conn.commit()


def check_database(engine: Engine, *, allow_older: bool = False) -> str:
    """Raise DatabaseError unless `engine` is a usable workbench database; return 'new',
    'current' or 'older'."""
    try:
        tables = _table_names(engine)
    except Exception as exc:  # not a database file, unreachable server, ...
        raise DatabaseError(f"cannot open database {_describe(engine)}: {_short(exc)}") from None
    if not tables:
        return "new"
    rev = current_revision(engine) if "alembic_version" in tables else None
    if rev is None:
        raise DatabaseError(
            f"{_describe(engine)} is not a workbench database (it has tables but no "
            "workbench schema version); refusing to touch it"
        )
    if rev == head_revision():
        return "current"
    if rev not in known_revisions():
        raise DatabaseError(
            f"{_describe(engine)} has schema revision {rev}, newer than this workbench "
            f"knows (head {head_revision()}); upgrade workbench to open it"
        )
    if not allow_older:
        raise DatabaseError(
            f"{_describe(engine)} has an older schema (revision {rev}); run `workbench init` "
            "to upgrade it"
        )
    return "older"


def open_database(db: str | None = None, *, create: bool = True) -> Engine:
    """Engine for a usable workbench database; creates the schema in a new, empty one."""
    engine = make_engine(db)
    state = check_database(engine)
    if state == "new":
        if not create:
            raise DatabaseError(f"{_describe(engine)} is empty; run `workbench init` first")
        upgrade(engine)
    return engine


def init_database(db: str | None = None) -> Engine:
    """`workbench init`: create or upgrade to head."""
    engine = make_engine(db)
    check_database(engine, allow_older=True)
    upgrade(engine)
    return engine


def _short(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
