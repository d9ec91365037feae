"""`workbench init`: creates or upgrades; one line and exit 1 for databases it must not touch."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from workbench.cli import main
from workbench.store.schema import head_revision


def sha(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def test_init_creates_then_reports_current(tmp_path, capsys):
    path = tmp_path / "new.sqlite"
    assert main(["init", "--db", str(path)]) == 0
    out = capsys.readouterr()
    assert out.out == f"sqlite:///{path}: created at revision {head_revision()} (head)\n"
    assert path.is_file()
    assert main(["init", "--db", str(path)]) == 0
    assert capsys.readouterr().out == f"sqlite:///{path}: already at revision {head_revision()} (head)\n"


def test_init_takes_the_group_option_and_environment(tmp_path, capsys, monkeypatch):
    assert main(["--db", str(tmp_path / "a.sqlite"), "init"]) == 0
    assert "a.sqlite: created at revision" in capsys.readouterr().out
    monkeypatch.setenv("WORKBENCH_DB", str(tmp_path / "b.sqlite"))
    assert main(["init"]) == 0
    assert "b.sqlite: created at revision" in capsys.readouterr().out


def test_init_refuses_a_foreign_database_in_one_line(tmp_path, capsys):
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    before = sha(path)
    assert main(["init", "--db", str(path)]) == 1
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (
        f"workbench: sqlite:///{path} is not a workbench database (it has tables but no "
        "workbench schema version); refusing to touch it\n"
    )
    assert sha(path) == before


def test_init_refuses_a_newer_database(tmp_path, capsys):
    path = tmp_path / "future.sqlite"
    assert main(["init", "--db", str(path)]) == 0
    conn = sqlite3.connect(path)
    conn.execute("UPDATE alembic_version SET version_num = 'abc123'")
    conn.commit()
    conn.close()
    capsys.readouterr()
    before = sha(path)
    assert main(["init", "--db", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "has schema revision abc123, newer than this workbench knows" in err
    assert sha(path) == before


def test_init_on_random_bytes(tmp_path, capsys):
    path = tmp_path / "noise.bin"
    path.write_bytes(b"\x00\x01garbage" * 500)
    assert main(["init", "--db", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"workbench: cannot open database sqlite:///{path}: ")
    assert err.count("\n") == 1
    assert path.read_bytes() == b"\x00\x01garbage" * 500


def test_init_on_every_backend(db_url, capsys):
    assert main(["init", "--db", db_url]) == 0
    assert capsys.readouterr().out.endswith(f": created at revision {head_revision()} (head)\n")
    assert main(["init", "--db", db_url]) == 0
    assert capsys.readouterr().out.endswith(f": already at revision {head_revision()} (head)\n")


def test_init_upgrades_an_older_database_keeping_its_data(tmp_path, capsys, monkeypatch):
    """With a newer code head (a test revision that rebuilds `query` in batch mode), an
    existing database is refused by other commands and upgraded by `init`, data intact."""
    import shutil

    import workbench.store.schema as schema
    from workbench.campaign.database import Database
    from workbench.campaign.judging.grades import record_grade
    from workbench.errors import DatabaseError
    from workbench.store.models import Document, Query

    path = str(tmp_path / "old.sqlite")
    assert main(["init", "--db", path]) == 0
    old_head = head_revision()
    db = Database.open(path)
    with db.write.begin() as s:
        s.add_all([Query(ext_id="q1"), Document(ext_id="d1")])
    record_grade(db, "ann", "q1", "d1", 3)
    db.close()

    scripts = tmp_path / "migrations"
    shutil.copytree(schema.migrations_dir(), scripts, ignore=shutil.ignore_patterns("__pycache__"))
    (scripts / "versions" / "9002_rebuild.py").write_text(
        "from alembic import op\nimport sqlalchemy as sa\n"
        f"revision = '9002'\ndown_revision = '{old_head}'\nbranch_labels = None\ndepends_on = None\n"
        "def upgrade():\n"
        "    with op.batch_alter_table('query', recreate='always') as b:\n"
        "        b.add_column(sa.Column('extra', sa.Text(), nullable=True))\n"
        "def downgrade():\n"
        "    with op.batch_alter_table('query', recreate='always') as b:\n"
        "        b.drop_column('extra')\n"
    )
    monkeypatch.setattr(schema, "migrations_dir", lambda: scripts)
    capsys.readouterr()
    with pytest.raises(DatabaseError) as info:
        Database.open(path)
    assert str(info.value) == (f"sqlite:///{path} has an older schema (revision {old_head}); "
                               "run `workbench init` to upgrade it")
    assert main(["init", "--db", path]) == 0
    assert capsys.readouterr().out == (
        f"sqlite:///{path}: upgraded from revision {old_head} to revision 9002 (head)\n")
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT grade FROM judgment").fetchall() == [(3,)]
        assert conn.execute("SELECT count(*) FROM judgment_event").fetchone() == (1,)
    finally:
        conn.close()


def test_init_marks_a_database_of_the_previous_version(tmp_path, capsys):
    """Made before the mark (application_id 0, revision 0001, the workbench's tables): opened
    as it is by every command, and `init` marks it without another change of schema."""
    from workbench.campaign.database import Database
    from workbench.store.schema import APPLICATION_ID

    path = tmp_path / "old.sqlite"
    Database.open(str(path)).close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id = 0")
    conn.commit()
    conn.close()
    assert main(["score", "--db", str(path)]) == 0
    assert main(["init", "--db", str(path)]) == 0
    assert capsys.readouterr().out.endswith(
        f"sqlite:///{path}: already at revision {head_revision()} (head)\n")
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone() == (APPLICATION_ID,)
    conn.close()


def test_init_refuses_the_look_alike_of_the_issue(tmp_path, capsys):
    """A version table that says 0001 beside an unrelated `users` table: init exited 0 and
    every command then failed with "no such table"."""
    path = tmp_path / "users.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY)")
    conn.execute("INSERT INTO alembic_version VALUES ('0001')")
    conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY)")
    conn.commit()
    conn.close()
    before = sha(path)
    assert main(["init", "--db", str(path)]) == 1
    assert capsys.readouterr().err == (
        f"workbench: sqlite:///{path} is not a workbench database (it has tables the workbench "
        "does not make: users); refusing to touch it\n")
    assert sha(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["users.sqlite"]
