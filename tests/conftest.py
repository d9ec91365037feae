"""Shared fixtures. Store tests run on SQLite always and on PostgreSQL when
WORKBENCH_TEST_PG_URL is set (CI sets it); an unreachable server then fails the tests.

Each PostgreSQL test gets its own schema (search_path), so that concurrent test runs
against one server do not see each other.
"""

from __future__ import annotations

import os
import uuid
from urllib.parse import quote

import pytest

PG_ENV = "WORKBENCH_TEST_PG_URL"


def _backends() -> list[str]:
    return ["sqlite", "postgresql"] if os.environ.get(PG_ENV) else ["sqlite"]


def _pg_schema_url(base: str, schema: str) -> str:
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options={quote(f'-csearch_path={schema}')}"


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (make test): two pytest-xdist workers per usable core, at most 8 more than
    the cores. Many tests mostly wait (Textual's pilot polls for idleness every 20 ms, CLI
    subprocesses, lock and server waits): with one worker per core the 2-core machine's
    workers were busy 58 % of the suite's wall time (403 s of CPU in 346 s on 2 cores).
    PYTEST_XDIST_AUTO_NUM_WORKERS still sets the count (pytest-xdist's own hook reads it)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    from workbench.cores import usable_cpus

    cores = usable_cpus()
    return min(2 * cores, cores + 8)


# The system catalogs the tests' schemas churn (each PostgreSQL test creates and drops some
# 20 tables with their indexes, types and dependencies).
_CATALOGS = ("pg_class", "pg_attribute", "pg_attrdef", "pg_depend", "pg_type", "pg_index",
             "pg_constraint", "pg_sequence", "pg_description", "pg_namespace", "pg_statistic")


def pytest_sessionstart(session):
    """Vacuum the system catalogs of the test server before the tests (once, not in each
    pytest-xdist worker). A server without autovacuum (the development and CI servers run
    with it off) keeps every dropped test table's catalog rows: after a few runs pg_class
    was 7 000 pages for 500 rows, and a workbench database took 53 ms of server CPU to
    open instead of 10 (its survey reads pg_class and pg_depend)."""
    base = os.environ.get(PG_ENV)
    if not base or hasattr(session.config, "workerinput"):
        return
    from sqlalchemy import create_engine
    from sqlalchemy.exc import OperationalError

    engine = create_engine(base)
    try:
        _vacuum_catalogs(engine)
    except OperationalError:
        pass  # no server: every PostgreSQL test fails on its own, naming the reason
    finally:
        engine.dispose()


def pytest_collection_finish(session):
    """Once the tests are collected, every module, class and test item this process holds
    is moved out of the collector's sight (gc.freeze), and the young generation collects
    less often: a full collection otherwise walks SQLAlchemy's, Textual's and the test
    modules' objects again and again while the TUI tests allocate (tests/tui, campaign and
    cli on 4 workers: 138-152 s of CPU without this, 112-124 s with it). What is garbage
    is still collected, and pytest's own collections at the end of the session still run."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


@pytest.fixture(params=_backends())
def db_url(request, tmp_path):
    """A URL for an empty database on each backend under test."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.sqlite'}"
        return
    from sqlalchemy import text

    base = os.environ[PG_ENV]
    schema = f"wbtest_{uuid.uuid4().hex[:12]}"
    admin = _admin_engine(base)
    try:
        with admin.begin() as conn:  # fails (does not skip) when the server is not there
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        yield _pg_schema_url(base, schema)
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        _DROPPED[0] += 1
        if _DROPPED[0] % _VACUUM_EVERY == 0:
            _vacuum_catalogs(admin)


_ADMIN: dict[str, object] = {}
_DROPPED = [0]
# Each worker vacuums the catalogs after this many of its schemas are dropped (one run
# left pg_class at 1 165 pages and pg_attribute at 4 963 without it); SKIP_LOCKED: a
# worker does not wait for another's vacuum of the same catalog.
_VACUUM_EVERY = 25


def _vacuum_catalogs(engine) -> None:
    from sqlalchemy import text

    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM (SKIP_LOCKED) " + ", ".join(f"pg_catalog.{t}" for t in _CATALOGS)))


def _admin_engine(base: str):
    """One engine per worker for creating and dropping the tests' schemas: a new engine per
    test started a new server process per test."""
    from sqlalchemy import create_engine

    if base not in _ADMIN:
        _ADMIN[base] = create_engine(base, pool_size=1, pool_pre_ping=True)
    return _ADMIN[base]


@pytest.fixture
def db(db_url):
    """An open, migrated, empty campaign database on each backend."""
    from workbench.campaign.database import Database

    if db_url.startswith("postgresql"):
        _fill_from_template(db_url)
    database = Database.open(db_url)
    # as after a migration: the database has its engine (writes take SQLAlchemy's way, as
    # on SQLite, where the fixture's open migrates a new file)
    database.engine
    yield database
    database.close()


@pytest.fixture
def sqlite_db(tmp_path):
    """An open, migrated, empty SQLite campaign database (for tests that need only one)."""
    from workbench.campaign.database import Database

    database = Database.open(str(tmp_path / "campaign.sqlite"))
    yield database
    database.close()


# Modules that test schema creation and the migrations themselves: they run the real
# Alembic upgrade to head. Every other test gets a new database from the recorded
# migration (tests/migrated_schema.py).
REAL_MIGRATIONS = frozenset({
    "test_migrations.py", "test_schema_lock.py", "test_schema_guard.py", "test_init_cmd.py",
    "test_campaign_settings.py", "test_migrated_schema.py",
})


@pytest.fixture(autouse=True)
def _migrated_schema(request, monkeypatch):
    """New databases come at head from the recorded migration, except in REAL_MIGRATIONS."""
    if request.path.name in REAL_MIGRATIONS:
        return
    from tests.migrated_schema import replaying_upgrade
    from workbench.store import schema

    monkeypatch.setattr(schema, "upgrade", replaying_upgrade(schema.upgrade))


# The `db` fixture on PostgreSQL: each worker migrates one schema once (Alembic, every
# revision: 0.25-0.6 s a test under load, 222 s of the suite's 1 280 test-seconds), dumps it
# with pg_dump, and fills each test's empty schema from that script (about 0.05 s). The
# migrations themselves are still tested, from empty schemas (db_url, tests/store).
_TEMPLATE: dict[str, str | None] = {}


def _template_script(base: str) -> str | None:
    """The SQL that makes a migrated, empty campaign in the schema named TEMPLATE_SCHEMA
    (None: pg_dump is missing or failed; the fixture then migrates as before)."""
    if base in _TEMPLATE:
        return _TEMPLATE[base]
    import shutil
    import subprocess

    from sqlalchemy import text
    from sqlalchemy.engine import make_url

    from workbench.campaign.database import Database

    script = None
    schema = f"wbtpl_{uuid.uuid4().hex[:12]}"
    admin = _admin_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        Database.open(_pg_schema_url(base, schema)).close()
        url = make_url(base)
        if shutil.which("pg_dump"):
            done = subprocess.run(
                ["pg_dump", "--schema", schema, "--inserts", "--no-owner", "--no-privileges",
                 "--no-comments", "-d", url.set(drivername="postgresql", query={})
                 .render_as_string(hide_password=False)],
                capture_output=True, text=True, timeout=60)
            if done.returncode == 0:
                lines = [line for line in done.stdout.splitlines()
                         if not line.startswith(("\\", "SET ", "SELECT pg_catalog.set_config",
                                                 "CREATE SCHEMA", "--"))]
                script = "\n".join(lines).replace(f"{schema}.", "TEMPLATE_SCHEMA.")
                assert schema not in script, "the template's name is left in its script"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    _TEMPLATE[base] = script
    return script


def _fill_from_template(db_url: str) -> None:
    from urllib.parse import unquote

    from sqlalchemy import text

    base = os.environ[PG_ENV]
    schema = unquote(db_url).rsplit("search_path=", 1)[1]
    script = _template_script(base)
    if script is None:
        return
    with _admin_engine(base).begin() as conn:
        conn.exec_driver_sql(script.replace("TEMPLATE_SCHEMA.", f'"{schema}".'))
        # the campaign row is the template's: its creation time is this test's
        conn.execute(text(f'UPDATE "{schema}".campaign SET created_at = now()'))
