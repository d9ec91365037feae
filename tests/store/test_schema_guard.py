"""Opening a database we cannot use gives one clear DatabaseError and changes nothing."""

from __future__ import annotations

import hashlib
import os
import sqlite3

import pytest
from sqlalchemy import create_engine, inspect, text

from workbench.campaign.database import Database
from workbench.errors import DatabaseError
from workbench.store.schema import check_database, current_revision, head_revision, init_database
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
    for attempt in (lambda: Database.open(path), lambda: init_database(path)):
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
    for attempt in (lambda: Database.open(path), lambda: init_database(path)):
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
    engine = init_database(str(path))
    assert current_revision(engine) == head_revision()
    engine.dispose()
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
