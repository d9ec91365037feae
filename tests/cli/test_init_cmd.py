"""`workbench init`: creates or upgrades; one line and exit 1 for databases it must not touch."""

from __future__ import annotations

import hashlib
import sqlite3

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
