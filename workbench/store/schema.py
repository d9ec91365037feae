"""Schema versioning: create/upgrade through Alembic, and refuse databases we cannot use.

`open_database` is what every command calls: a new, empty database is created at head; an
older workbench database is upgraded only by `workbench init`; a database that is not a
workbench database, or whose revision is newer than this code knows, gives a one-line error
and is not touched: it is read through a connection that changes nothing (no WAL switch), and
it is judged before anything is written. A workbench database carries a mark (below); one
made before the mark is recognised by its set of tables.
"""

from __future__ import annotations

import functools
import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no folder lock
    fcntl = None

from typing import TYPE_CHECKING

from workbench.errors import DatabaseError
from workbench.store.dbapi import Reader, as_reader, can_read_directly, open_reader

if TYPE_CHECKING:  # SQLAlchemy is imported only where an engine is made: a reading
    # command checks its database through the driver alone (check_directly)
    from sqlalchemy import Connection, Engine


def make_engine(db=None, **kwargs):
    from workbench.store.engine import make_engine

    return make_engine(db, **kwargs)


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


# --- the mark -------------------------------------------------------------------------------
# A workbench database carries a mark, set in code whenever the schema is created or upgraded:
# on SQLite the file header's application_id (the slot SQLite keeps for "which program's file
# is this", https://www.sqlite.org/pragma.html#pragma_application_id), on PostgreSQL a comment
# on the campaign table. Databases made before the mark are recognised by their tables (all
# of revision 0001's, nothing foreign), and `workbench init` marks them.
APPLICATION_ID = 0x5742454E  # "WBEN"
PG_MARK = "workbench campaign database"
LEGACY_TABLES = frozenset({
    "alembic_version", "adjudication", "assessor", "assignment", "campaign", "document",
    "judgment", "judgment_event", "pool_entry", "query", "result", "scale_level", "system",
})
# Tables of the first schema that a later revision dropped: `result` (0005, runs as arrays only).
DROPPED_TABLES = frozenset({"result"})
_ESSENTIAL = frozenset({"alembic_version", "campaign"})
# pg_advisory_lock(class, key): the class keeps our keys apart from other advisory locks,
# the key is the schema, so that campaigns in different schemas do not wait for each other.
_PG_LOCK_CLASS = 0x57424E


# The tables of store.models at head, spelled out so that checking a database does not
# import the models (tests/store/test_schema_tables.py holds it equal to models.Base).
MODEL_TABLES = frozenset({
    "access_link", "adjudication", "answer", "answer_queue", "assessor", "assignment",
    "campaign", "cant_judge", "document", "event_archive", "judging_session", "judgment",
    "judgment_event", "leaderboard", "leaderboard_value", "machine_call", "machine_provenance",
    "nugget", "nugget_assignment", "nugget_bank", "nugget_event", "nugget_event_archive",
    "panel", "panel_member", "pool_entry", "pool_plan", "query", "run_arrays", "scale_level",
    "system", "validation_item",
})


def workbench_tables() -> frozenset[str]:
    """The tables of a workbench database at head (models plus alembic_version)."""
    return MODEL_TABLES | {"alembic_version"}


def sqlite_file(engine: Engine) -> str | None:
    """The file a SQLite engine uses (None for PostgreSQL or an in-memory database)."""
    if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return None
    name = engine.url.database
    if engine.url.query.get("uri") in ("true", "1") and name.startswith("file:"):
        # `sqlite:///file:PATH?mode=ro&uri=true` (a read-only database): the file is PATH
        from urllib.parse import unquote

        name = unquote(name[len("file:"):])
    return os.path.abspath(name)


def missing_sqlite_file(db: str | None) -> str | None:
    """The path of the SQLite file `db` names when no such file exists yet, else None."""
    engine = make_engine(db)  # connects to nothing
    try:
        path = sqlite_file(engine)
    finally:
        engine.dispose()
    return path if path is not None and not os.path.lexists(path) else None


@contextmanager
def _reader(engine: Engine) -> Iterator[Connection]:
    """A connection that does not change the database. For a SQLite file it is a plain
    driver connection without the engine's connect hook, which switches the file to WAL
    and would so rewrite a file that is not ours before we even know it. (Not mode=ro:
    a read-only connection cannot remove the -wal/-shm files it creates.)"""
    path = sqlite_file(engine)
    if path is None:
        with engine.execution_options(sqlite_begin="DEFERRED").connect() as conn:
            yield conn
        return
    from workbench.store.engine import read_only_reason

    if read_only_reason(engine) is not None:  # its own connections never write
        with engine.connect() as conn:
            yield conn
        return
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    probe = create_engine(
        "sqlite://", poolclass=NullPool,
        creator=lambda: sqlite3.connect(path, timeout=10, isolation_level=None),
    )
    try:
        with probe.connect() as conn:
            yield conn
    finally:
        probe.dispose()


# --- what a database holds --------------------------------------------------------------------
@dataclass(frozen=True)
class _Survey:
    """What is in a database, read without changing it."""

    tables: frozenset[str] = frozenset()  # where the workbench keeps its tables
    others: tuple[str, ...] = ()  # other objects that make the database non-empty
    marked: bool = False  # carries the workbench mark
    foreign_mark: str | None = None  # another program's mark
    revisions: tuple[str, ...] | None = None  # rows of alembic_version, None if unreadable

    @property
    def empty(self) -> bool:
        return not self.tables and not self.others


def _survey(engine: Engine) -> _Survey:
    path = sqlite_file(engine)
    if path is not None and not os.path.exists(path):
        return _Survey()  # a new SQLite file: created on first write
    try:
        with _reader(engine) as conn:
            if engine.dialect.name == "sqlite":
                return _survey_sqlite(as_reader(conn))
            return _survey_postgresql(as_reader(conn), _describe(engine))
    except DatabaseError:
        raise
    except Exception as exc:  # not a database file, unreachable server, ...
        raise DatabaseError(f"cannot open database {_describe(engine)}: {_short(exc)}") from None


def _survey_sqlite(conn: Reader) -> _Survey:
    app_id = conn.scalar("PRAGMA application_id")
    rows = conn.rows(
        "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
    )
    tables = frozenset(name for kind, name in rows if kind == "table")
    return _Survey(
        tables=tables,
        others=tuple(f"{kind} {name}" for kind, name in rows if kind in ("view", "trigger")),
        marked=app_id == APPLICATION_ID,
        foreign_mark=f"application_id {app_id:#x}" if app_id not in (0, APPLICATION_ID) else None,
        revisions=_revisions(conn) if "alembic_version" in tables else None,
    )


# Objects that make a PostgreSQL database non-empty: relations, functions and stand-alone
# types, outside the system schemas and not installed by an extension. Counted in every
# schema on the search_path; when the workbench's schema is `public` (nobody chose one) in
# every schema of the database, so that a database that keeps its data in another schema is
# not mistaken for an empty one. A dedicated schema named first on the search_path
# (`?options=-csearch_path%3Dworkbench`) is judged by its own contents.
_PG_OBJECTS = """
WITH scope AS (
    SELECT oid, nspname FROM pg_namespace
    WHERE nspname <> 'information_schema' AND nspname NOT LIKE 'pg\\_%'
      AND (nspname = ANY (current_schemas(false)) OR current_schema() = 'public')
)
SELECT s.nspname, c.relname, c.relkind::text FROM pg_class c JOIN scope s ON s.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S', 'c')
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                  AND d.objid = c.oid AND d.deptype = 'e')
UNION ALL
SELECT s.nspname, p.proname, 'function' FROM pg_proc p JOIN scope s ON s.oid = p.pronamespace
WHERE NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass
                  AND d.objid = p.oid AND d.deptype = 'e')
UNION ALL
SELECT s.nspname, t.typname, 'type' FROM pg_type t JOIN scope s ON s.oid = t.typnamespace
WHERE t.typtype IN ('e', 'd', 'r', 'm')
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_type'::regclass
                  AND d.objid = t.oid AND d.deptype = 'e')
ORDER BY 1, 2
"""
_PG_KINDS = {"r": "table", "p": "table", "v": "view", "m": "materialized view",
             "f": "foreign table", "S": "sequence", "c": "type"}


def _survey_postgresql(conn: Reader, where: str) -> _Survey:
    schema = conn.scalar("SELECT current_schema()")
    if schema is None:
        raise DatabaseError(
            f"{where}: no schema on the search_path exists; create one or fix the search_path"
        )
    tables, others = set(), []
    for nsp, name, kind in conn.rows(_PG_OBJECTS):
        if nsp == schema and kind in ("r", "p"):
            tables.add(name)
        else:
            others.append(f"{_PG_KINDS.get(kind, kind)} {nsp}.{name}")
    marked = "campaign" in tables and conn.scalar(
        "SELECT obj_description(c.oid, 'pg_class') FROM pg_class c JOIN pg_namespace n "
        "ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relname = 'campaign'"
    ) == PG_MARK
    return _Survey(
        tables=frozenset(tables), others=tuple(others), marked=marked,
        revisions=_revisions(conn) if "alembic_version" in tables else None,
    )


_VERSIONS = "SELECT version_num FROM alembic_version"


def _revisions(conn: Reader) -> tuple[str, ...] | None:
    try:
        return tuple(row[0] for row in conn.rows(_VERSIONS))
    except Exception:  # no version_num column, ...: not an Alembic table of ours
        conn.rollback()
        return None


# --- the rules --------------------------------------------------------------------------------
def _classify(survey: _Survey, where: str, *, allow_older: bool) -> str:
    """'new', 'current' or 'older' (only with `allow_older`); DatabaseError for anything
    the workbench must not touch."""

    def not_ours(why: str) -> DatabaseError:
        return DatabaseError(f"{where} is not a workbench database ({why}); refusing to touch it")

    if survey.foreign_mark:
        raise not_ours(f"it belongs to another program: {survey.foreign_mark}")
    if survey.empty:
        return "new"
    tables = survey.tables
    if not tables:
        raise not_ours(f"it holds {_few(survey.others)} and no workbench tables")
    if "alembic_version" not in tables:
        raise not_ours("it has tables but no workbench schema version")
    # Marked: ours. Unmarked (made before the mark): every table of the first schema that
    # no later revision dropped, and none that the workbench does not make.
    foreign = sorted(tables - workbench_tables() - LEGACY_TABLES)
    if survey.marked:
        ours = _ESSENTIAL <= tables
    else:
        ours = LEGACY_TABLES - DROPPED_TABLES <= tables and not foreign
    if not ours:
        raise not_ours(
            f"it has tables the workbench does not make: {_few(foreign)}" if foreign
            else "it lacks tables of the workbench"
        )
    revisions = survey.revisions
    if revisions is None:
        raise not_ours("its alembic_version table cannot be read")
    if len(revisions) != 1:
        raise not_ours(f"its alembic_version holds {len(revisions)} rows, not one")
    rev = revisions[0]
    if rev == head_revision():
        missing = workbench_tables() - tables
        if missing:
            raise DatabaseError(
                f"{where} is a damaged workbench database (tables missing: {_few(sorted(missing))})"
            )
        return "current"
    if rev not in known_revisions():
        raise DatabaseError(
            f"{where} has schema revision {rev}, newer than this workbench "
            f"knows (head {head_revision()}); upgrade workbench to open it"
        )
    if not allow_older:
        raise DatabaseError(
            f"{where} has an older schema (revision {rev}); run `workbench init` to upgrade it"
        )
    return "older"


def _few(names, limit: int = 3) -> str:
    names = list(names)
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def check_directly(url: str) -> bool:
    """Whether the database at `url` is a current workbench database, judged through a
    plain driver connection (store.dbapi) by the same survey and rules as check_database,
    without SQLAlchemy or the models. False when it cannot tell (a URL the driver cannot
    open alone, an error, any other state): the caller then takes the engine's way, which
    says what is wrong in its words."""
    if not can_read_directly(url):
        return False
    try:
        with open_reader(url) as conn:
            survey = _survey_sqlite(conn) if conn.dialect == "sqlite" else _survey_postgresql(conn, url)
        return _classify(survey, url, allow_older=True) == "current"
    except Exception:
        return False


def check_database(engine: Engine, *, allow_older: bool = False) -> str:
    """Raise DatabaseError unless `engine` is a usable workbench database; return 'new',
    'current' or 'older'. Reads only: nothing of the database changes."""
    return _classify(_survey(engine), _describe(engine), allow_older=allow_older)


def current_revision(engine: Engine) -> str | None:
    """The database's Alembic revision, None if it has no version table."""
    with _reader(engine) as conn:
        from sqlalchemy import inspect

        if not inspect(conn).has_table("alembic_version"):
            return None
        row = as_reader(conn).first(_VERSIONS)
        return row[0] if row else None


def _describe(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=True)


# --- creating and upgrading -------------------------------------------------------------------
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


# Neither PRAGMA nor COMMENT takes bound parameters: the statements spell the constants
# above out (tests read the mark back and compare it with them).
_SET_MARK = {
    "sqlite": "PRAGMA application_id = 1463960910",
    "postgresql": "COMMENT ON TABLE campaign IS 'workbench campaign database'",
}


def _mark(engine: Engine) -> None:
    with engine.begin() as conn:
        conn.exec_driver_sql(_SET_MARK[engine.dialect.name])


@contextmanager
def _schema_lock(engine: Engine) -> Iterator[None]:
    """One process at a time creates or upgrades a schema; the others wait, then find it
    done. PostgreSQL: a session advisory lock per schema (two `init` at once otherwise fail on
    pg_type_typname_nsp_index). SQLite: flock on the file's folder (the file may not exist yet,
    and a lock on the file itself would be dropped with SQLite's own when we close it)."""
    path = sqlite_file(engine)
    if path is not None:
        with _folder_lock(path):
            yield
        return
    if engine.dialect.name != "postgresql":
        yield
        return
    from sqlalchemy import text

    key = {"cls": _PG_LOCK_CLASS}
    with engine.connect() as conn:
        conn.execute(text(
            "SELECT pg_advisory_lock(:cls, hashtext(coalesce(current_schema(), '')))"), key)
        conn.commit()
        try:
            yield
        finally:
            try:
                conn.execute(text(
                    "SELECT pg_advisory_unlock(:cls, hashtext(coalesce(current_schema(), '')))"),
                    key)
                conn.commit()
            except Exception:
                conn.invalidate()  # closing the session is what releases the lock then


@contextmanager
def _folder_lock(path: str) -> Iterator[None]:
    folder = os.path.dirname(path)
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError as exc:
        raise DatabaseError(f"cannot open database folder {folder}: {exc.strerror}") from None
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the flock


def _create_file(engine: Engine) -> None:
    """Create a new SQLite file with 0666 minus the umask (SQLite's own default is 0644
    whatever the umask; its -wal and -shm files copy the mode of the database file), so that
    a group of assessors can share one when their umask says so."""
    path = sqlite_file(engine)
    if path is None:
        return
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except FileExistsError:
        pass
    except OSError as exc:
        raise DatabaseError(f"cannot create database file {path}: {exc.strerror}") from None


@dataclass(frozen=True)
class SchemaChange:
    """What `ensure_schema` found: `state` 'new', 'older' or 'current', and the revision the
    database had before (for 'older')."""

    state: str
    before: str | None


def ensure_schema(engine: Engine, *, create: bool = True, upgrade_older: bool = False) -> SchemaChange:
    """Under the schema lock, check the database again (another process may have created it
    meanwhile), then create a new schema (if `create`) or upgrade an older one (if
    `upgrade_older`: `workbench init`), and mark it. `init` also marks a current database
    that predates the mark."""
    where = _describe(engine)
    with _schema_lock(engine):
        survey = _survey(engine)
        state = _classify(survey, where, allow_older=upgrade_older)
        if state == "new" and not create:
            raise DatabaseError(f"{where} is empty; run `workbench init` first")
        if state != "current":
            _create_file(engine)
            upgrade(engine)
        if state != "current" or (upgrade_older and not survey.marked):
            _mark(engine)
    return SchemaChange(state, survey.revisions[0] if state == "older" else None)


def open_database(db: str | None = None, *, create: bool = True) -> Engine:
    """Engine for a usable workbench database; creates the schema in a new, empty one
    (unless `create` is False: reading commands never create a database)."""
    engine = make_engine(db)
    try:
        path = sqlite_file(engine)
        if not create and path is not None and not os.path.exists(path):
            raise DatabaseError(f"no such database file: {path}")
        if check_database(engine, allow_older=True) != "current":
            ensure_schema(engine, create=create)
    except BaseException:
        engine.dispose()
        raise
    return engine


def _short(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
