"""Opening a database we cannot use gives one clear DatabaseError and changes nothing."""

from __future__ import annotations

import hashlib
import os
import sqlite3

import pytest
from sqlalchemy import create_engine, inspect, text

from workbench.campaign.database import Database, initialise
from workbench.errors import DatabaseError
from workbench.store.schema import (
    APPLICATION_ID,
    PG_MARK,
    check_database,
    current_revision,
    head_revision,
    workbench_tables,
)
from workbench.store.engine import make_engine


def fingerprint(path) -> tuple[str, int, list[str]]:
    """Bytes, modification time and sibling files (-wal/-shm) of a SQLite file."""
    data = open(path, "rb").read()
    folder = os.path.dirname(path)
    return hashlib.sha256(data).hexdigest(), os.stat(path).st_mtime_ns, sorted(os.listdir(folder))


def foreign_sqlite(tmp_path):
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO customers (name) VALUES ('x')")
    conn.commit()
    conn.close()
    return str(path)


def test_unrelated_sqlite_database_is_refused_untouched(tmp_path):
    path = foreign_sqlite(tmp_path)
    before = fingerprint(path)
    for attempt in (lambda: Database.open(path), lambda: initialise(path)):
        with pytest.raises(DatabaseError) as info:
            attempt()
        assert "is not a workbench database" in str(info.value)
        assert "\n" not in str(info.value)
        assert fingerprint(path) == before
    # Still a rollback-journal database: the WAL pragma never ran on it.
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


def stamp(db_url: str, revision: str) -> None:
    engine = create_engine(db_url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = :r"), {"r": revision})
    engine.dispose()


def test_newer_revision_is_refused_untouched(tmp_path):
    path = str(tmp_path / "future.sqlite")
    Database.open(path).close()
    stamp(f"sqlite:///{path}", "ffff9999")
    before = fingerprint(path)
    for attempt in (lambda: Database.open(path), lambda: initialise(path)):
        with pytest.raises(DatabaseError) as info:
            attempt()
        assert str(info.value) == (
            f"sqlite:///{path} has schema revision ffff9999, newer than this workbench knows "
            f"(head {head_revision()}); upgrade workbench to open it"
        )
        assert fingerprint(path) == before


def test_random_bytes_are_not_a_database(tmp_path):
    path = tmp_path / "noise.sqlite"
    path.write_bytes(bytes(range(256)) * 64)
    before = fingerprint(str(path))
    with pytest.raises(DatabaseError) as info:
        Database.open(str(path))
    assert str(info.value).startswith(f"cannot open database sqlite:///{path}: ")
    assert "file is not a database" in str(info.value)
    assert fingerprint(str(path)) == before


def test_new_path_is_created_at_head(tmp_path):
    path = tmp_path / "sub" / "new.sqlite"
    path.parent.mkdir()
    result = initialise(str(path))  # `workbench init`
    assert (result.state, result.revision) == ("new", head_revision())
    assert path.is_file()
    engine = make_engine(str(path))
    assert check_database(engine) == "current"
    engine.dispose()


def test_empty_file_counts_as_new(tmp_path):
    path = tmp_path / "empty.sqlite"
    path.touch()
    db = Database.open(str(path))
    assert current_revision(db.engine) == head_revision()
    db.close()


def test_guard_on_every_backend(db_url):
    """Unrelated tables, then a newer revision: refused on SQLite and PostgreSQL alike."""
    engine = create_engine(db_url)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE customers (id INTEGER PRIMARY KEY)"))
    with pytest.raises(DatabaseError, match="is not a workbench database"):
        Database.open(db_url)
    with engine.connect() as conn:
        assert inspect(conn).get_table_names() == ["customers"]
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE customers"))
    engine.dispose()
    Database.open(db_url).close()
    stamp(db_url, "ffff9999")
    with pytest.raises(DatabaseError, match="newer than this workbench knows"):
        Database.open(db_url)
    probe = create_engine(db_url)
    with probe.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "ffff9999"
    probe.dispose()


# --- the workbench mark ------------------------------------------------------
def sqlite_made_of(tmp_path, name: str, *statements: str) -> str:
    """A SQLite file made by another program, in the default rollback-journal mode."""
    path = tmp_path / name
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return str(path)


def workbench_file(tmp_path, name: str = "ours.sqlite") -> str:
    """A workbench database, closed, without -wal/-shm files: as a user leaves one."""
    path = str(tmp_path / name)
    Database.open(path).close()
    return path


FOREIGN_SQLITE = {
    # the file: a version table that says 0001, and someone else's table
    "alembic_0001_and_users": (
        "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY)",
        "INSERT INTO alembic_version VALUES ('0001')",
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)",
        "INSERT INTO users (name) VALUES ('x')",
    ),
    "view_only": ("CREATE VIEW answer AS SELECT 42 AS value",),
    "another_programs_mark": ("PRAGMA application_id = 1234",),
    "version_table_alone": (
        "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY)",
        "INSERT INTO alembic_version VALUES ('0001')",
    ),
}
FOREIGN_REASONS = {
    "alembic_0001_and_users": "(it has tables the workbench does not make: users)",
    "view_only": "(it holds view answer and no workbench tables)",
    "another_programs_mark": "(it belongs to another program: application_id 0x4d2)",
    "version_table_alone": "(it lacks tables of the workbench)",
}


@pytest.mark.parametrize("kind", sorted(FOREIGN_SQLITE))
def test_foreign_sqlite_files_are_refused_untouched(tmp_path, kind):
    path = sqlite_made_of(tmp_path, f"{kind}.sqlite", *FOREIGN_SQLITE[kind])
    before = fingerprint(path)
    attempts = (lambda: Database.open(path), lambda: Database.open(path, create=False),
                lambda: initialise(path))
    for attempt in attempts:
        with pytest.raises(DatabaseError) as info:
            attempt()
        assert str(info.value) == (f"sqlite:///{path} is not a workbench database "
                                   f"{FOREIGN_REASONS[kind]}; refusing to touch it")
        assert fingerprint(path) == before  # bytes, mtime, and no -wal/-shm left behind
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


def test_two_rows_in_alembic_version_are_refused_untouched(tmp_path):
    path = workbench_file(tmp_path)
    two_version_rows(f"sqlite:///{path}")
    before = fingerprint(path)
    for attempt in (lambda: Database.open(path), lambda: initialise(path)):
        with pytest.raises(DatabaseError) as info:
            attempt()
        assert str(info.value) == (f"sqlite:///{path} is not a workbench database (its "
                                   "alembic_version holds 2 rows, not one); refusing to touch it")
        assert fingerprint(path) == before


def test_a_new_database_carries_the_mark(db_url):
    Database.open(db_url).close()
    assert read_mark(db_url) == (APPLICATION_ID if db_url.startswith("sqlite") else PG_MARK)


def read_mark(db_url: str):
    """SQLite's application_id, or PostgreSQL's comment on the campaign table."""
    engine = create_engine(db_url)
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            mark = conn.exec_driver_sql("PRAGMA application_id").scalar()
        else:
            mark = conn.execute(text("SELECT obj_description('campaign'::regclass, 'pg_class')")).scalar()
    engine.dispose()
    return mark


def unmark(db_url: str) -> None:
    """What a database made by the previous version looks like: no mark."""
    engine = create_engine(db_url)
    with engine.begin() as conn:
        if engine.dialect.name == "sqlite":
            conn.exec_driver_sql("PRAGMA application_id = 0")
        else:
            conn.execute(text("COMMENT ON TABLE campaign IS NULL"))
    engine.dispose()


def test_an_unmarked_database_of_the_previous_version_opens_and_init_marks_it(db_url):
    from workbench.campaign.database import initialise

    Database.open(db_url).close()
    unmark(db_url)
    unmarked = 0 if db_url.startswith("sqlite") else None
    assert read_mark(db_url) == unmarked
    for create in (True, False):
        Database.open(db_url, create=create).close()
    assert read_mark(db_url) == unmarked  # reading commands do not write the mark
    result = initialise(db_url)
    assert (result.state, result.revision) == ("current", head_revision())
    assert read_mark(db_url) == (APPLICATION_ID if db_url.startswith("sqlite") else PG_MARK)


def test_an_unmarked_database_with_a_foreign_table_is_not_ours(db_url):
    Database.open(db_url).close()
    unmark(db_url)
    engine = create_engine(db_url)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE users (id INTEGER PRIMARY KEY)"))
    engine.dispose()
    for attempt in (lambda: Database.open(db_url), lambda: initialise(db_url)):
        with pytest.raises(DatabaseError, match=r"is not a workbench database \(it has tables "
                                                r"the workbench does not make: users\)"):
            attempt()
    assert read_mark(db_url) == (0 if db_url.startswith("sqlite") else None)


def test_two_rows_in_alembic_version_are_refused_on_every_backend(db_url):
    Database.open(db_url).close()
    two_version_rows(db_url)
    for attempt in (lambda: Database.open(db_url), lambda: initialise(db_url)):
        with pytest.raises(DatabaseError, match=r"is not a workbench database \(its "
                                                r"alembic_version holds 2 rows, not one\)"):
            attempt()
    engine = create_engine(db_url)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    engine.dispose()
    assert sorted(rows) == sorted([head_revision(), "0000"])


def two_version_rows(db_url: str) -> None:
    engine = create_engine(db_url)
    with engine.begin() as conn:  # a version table without its primary key, two rows
        conn.execute(text("DROP TABLE alembic_version"))
        conn.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
        conn.execute(text("INSERT INTO alembic_version VALUES (:head), ('0000')"),
                     {"head": head_revision()})
    engine.dispose()


@pytest.fixture
def pg_database(request):
    """A new, empty PostgreSQL database of its own (not a schema of the shared one): its
    search_path is the default, so the workbench would work in `public`. DROP DATABASE
    waits for an immediate checkpoint (5-15 s while the suite writes), so the drop runs in a
    thread that the worker joins when the session ends."""
    import threading
    import uuid

    from sqlalchemy.engine import make_url

    base = os.environ.get("WORKBENCH_TEST_PG_URL")
    if not base:
        pytest.skip("PostgreSQL tests need WORKBENCH_TEST_PG_URL")
    name = f"wbtest_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    try:
        yield make_url(base).set(database=name).render_as_string(hide_password=False)
    finally:
        dropping = threading.Thread(target=drop, name=f"drop {name}")
        dropping.start()
        request.config.add_cleanup(dropping.join)


def test_postgresql_data_in_another_schema_is_not_an_empty_database(pg_database):
    """The issue's case: the tables live in a schema off the search_path, `public` is empty.
    Refused, and `public` stays empty. A dedicated empty schema named first on the search_path
    is a deliberate choice, judged by its own contents: the campaign is made there."""
    engine = create_engine(pg_database)
    with engine.begin() as conn:
        conn.execute(text("CREATE SCHEMA crm"))
        conn.execute(text("CREATE TABLE crm.customers (id INTEGER PRIMARY KEY)"))
    for attempt in (lambda: Database.open(pg_database), lambda: initialise(pg_database)):
        with pytest.raises(DatabaseError) as info:
            attempt()
        assert str(info.value) == (
            f"{pg_database} is not a workbench database (it holds table crm.customers and no "
            "workbench tables); refusing to touch it")
    with engine.begin() as conn:
        assert inspect(conn).get_table_names(schema="public") == []
        conn.execute(text("CREATE SCHEMA wb"))
    dedicated = f"{pg_database}?options=-csearch_path%3Dwb"
    Database.open(dedicated).close()
    assert read_mark(dedicated) == PG_MARK
    with engine.connect() as conn:
        assert set(inspect(conn).get_table_names(schema="wb")) == workbench_tables()
        assert inspect(conn).get_table_names(schema="public") == []
    engine.dispose()
