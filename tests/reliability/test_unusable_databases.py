"""Databases the workbench cannot (fully) use: from a newer revision, not ours, not a
database at all, read-only, on a full disk, on an unreachable server. Every command gives
one clear line on stderr, exit code 1, and the file is not changed (byte for byte where
nothing may be written; integrity_check ok and earlier data intact where writes failed)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import sqlite3

import pytest
from sqlalchemy import event

from workbench.campaign.database import Database
from workbench.errors import DatabaseError

from tests.reliability.conftest import counts, integrity_ok, judgment_counts, seed


def cli(argv: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    """Run `workbench ARGV` in this process (so tests can shape the engine); an uncaught
    exception here is the traceback a user would have seen."""
    import sys

    from workbench.cli import main

    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin or "")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        sys.stdin = old_stdin
    return code, out.getvalue(), err.getvalue()


def digest(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def campaign_file(tmp_path, name="c.sqlite") -> str:
    path = str(tmp_path / name)
    db = Database.open(path)
    seed(db, 2, 3)
    db.close()
    return path


def commands(db: str, tmp_path) -> list[list[str]]:
    """A reader and a writer of each kind."""
    (tmp_path / "q.tsv").write_text("q7\tseven\n")
    return [
        ["grade", "--db", db, "--assessor", "ann", "q1", "d0001", "2"],
        ["grade", "--db", db, "--assessor", "ann", "--batch", "-"],
        ["import", "queries", str(tmp_path / "q.tsv"), "--db", db],
        ["score", "--db", db],
        ["export", "judgments", "--db", db],
        ["pool", "--depth", "5", "--db", db],
    ]


def assert_one_line(code: int, err: str, *fragments: str) -> None:
    assert code == 1, err
    assert err.count("\n") == 1 and err.startswith("workbench: "), err
    for fragment in fragments:
        assert fragment in err, err


def test_newer_revision_is_refused_untouched(tmp_path):
    path = campaign_file(tmp_path)
    con = sqlite3.connect(path)
    con.execute("UPDATE alembic_version SET version_num = 'ffff0000beef'")
    con.commit()
    con.close()
    before = digest(path)
    for argv in commands(path, tmp_path):
        code, _, err = cli(argv, stdin="q1 d0001 1\n")
        assert_one_line(code, err, "ffff0000beef", "newer than this workbench knows")
    with pytest.raises(DatabaseError, match="newer"):
        from workbench.tui.app import make_app

        make_app(path)
    assert digest(path) == before
    assert not os.path.exists(path + "-wal")


@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_foreign_sqlite_file_is_refused_untouched(tmp_path, journal):
    path = str(tmp_path / "theirs.sqlite")
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA journal_mode = {journal}")
    con.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)")
    con.execute("INSERT INTO invoices (amount) VALUES (9.5)")
    con.commit()
    con.close()
    before = digest(path)
    for argv in [*commands(path, tmp_path), ["init", "--db", path]]:
        code, _, err = cli(argv, stdin="q1 d0001 1\n")
        assert_one_line(code, err, "not a workbench database")
    assert digest(path) == before
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == journal
    assert con.execute("SELECT amount FROM invoices").fetchall() == [(9.5,)]
    con.close()


@pytest.mark.parametrize("content", [b"hello, I am a text file\n" * 40, os.urandom(8192)],
                         ids=["text", "random-bytes"])  # the same ids in every xdist worker
def test_not_a_database_is_refused_untouched(tmp_path, content):
    path = tmp_path / "notes.sqlite"
    path.write_bytes(content)
    for argv in [*commands(str(path), tmp_path), ["init", "--db", str(path)]]:
        code, _, err = cli(argv, stdin="q1 d0001 1\n")
        assert_one_line(code, err, "cannot open database", "not a database")
    assert path.read_bytes() == content


def test_read_only_database_reads_and_refuses_writes(tmp_path):
    """SQLite's read-only mode (what a 0444 file or a read-only mount gives a normal user;
    as root chmod stops nothing, so the test uses the URI flag): reading commands work, a
    write is refused in one line and the file is unchanged."""
    path = campaign_file(tmp_path)
    code, out, err = cli(["grade", "--db", path, "--assessor", "ann", "q1", "d0001", "2"])
    assert code == 0, err
    before = digest(path)
    ro = f"sqlite:///file:{path}?mode=ro&uri=true"
    code, out, err = cli(["export", "judgments", "--db", ro])
    assert code == 0, err
    assert out.splitlines()[1].startswith("q1,d0001,ann,2,")
    code, out, err = cli(["score", "--db", ro])
    assert code == 0, err
    for argv in commands(ro, tmp_path):
        if argv[0] in ("score", "export"):
            continue
        code, _, err = cli(argv, stdin="q1 d0001 1\n")
        assert code == 1, (argv, err)
        last = err.splitlines()[-1]
        assert last.startswith("workbench: ") and "Traceback" not in err, err
        if argv[0] == "grade" and "--batch" in argv:  # per line, then a summary
            assert err.startswith("<stdin>:1: not saved: attempt to write a readonly database\n")
        else:
            assert err.count("\n") == 1 and "attempt to write a readonly database" in err, err
    assert digest(path) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_chmod_0444_file(tmp_path):  # pragma: no cover - runs for non-root users (CI)
    path = campaign_file(tmp_path)
    os.chmod(path, 0o444)
    before = digest(path)
    code, _, err = cli(["grade", "--db", path, "--assessor", "ann", "q1", "d0001", "2"])
    assert code == 1 and "readonly" in err.replace(" ", "").replace("-", ""), err
    assert digest(path) == before


@pytest.fixture
def fill_disk(monkeypatch):
    """Call it to fill the disk: from then on every SQLite connection the CLI opens may not
    grow its file (PRAGMA max_page_count set to the current size), so writes that need a
    new page fail with SQLITE_FULL, exactly as on a full disk."""
    import workbench.store.schema as schema

    real = schema.make_engine

    def make_engine(db=None, **kwargs):
        engine = real(db, **kwargs)
        if engine.dialect.name == "sqlite":
            @event.listens_for(engine, "connect")
            def _cap(dbapi_connection, _record):
                dbapi_connection.execute("PRAGMA max_page_count = 1")  # = current size
        return engine

    return lambda: monkeypatch.setattr(schema, "make_engine", make_engine)


@pytest.mark.slow
def test_full_disk_loses_nothing_acknowledged(tmp_path, fill_disk):
    path = str(tmp_path / "full.sqlite")
    db = Database.open(path)
    queries, docs = seed(db, 30, 100)
    db.close()
    before = counts(path)
    fill_disk()  # the free space left in the file's pages holds some grades only

    # An import that needs new pages: one line, nothing of it written.
    (tmp_path / "many.tsv").write_text("".join(f"x{i}\t{'word ' * 40}\n" for i in range(3000)))
    code, out, err = cli(["import", "docs", str(tmp_path / "many.tsv"), "--db", path])
    assert_one_line(code, err, "full")
    assert counts(path) == before

    # Grades until the disk is full: each acknowledged one is stored, the rest reported.
    lines = [f"{q} {d} {i % 4}" for i, (q, d) in enumerate((q, d) for q in queries for d in docs)]
    code, out, err = cli(["grade", "--db", path, "--assessor", "ann", "--batch", "-"],
                         stdin="\n".join(lines) + "\n")
    oks = out.splitlines()
    assert code == 1 and 0 < len(oks) < len(lines), (len(oks), err[-300:])
    assert all(e.startswith("<stdin>:") and "full" in e for e in err.splitlines()[:-1]), err[:500]
    assert err.splitlines()[-1].startswith("workbench: ") and "failed" in err.splitlines()[-1]
    db = Database.open(path)
    try:
        assert judgment_counts(db) == (len(oks), len(oks))
    finally:
        db.close()

    # A single grade on the full disk: one line, not a traceback.
    q, d = lines[-1].split()[:2]
    code, out, err = cli(["grade", "--db", path, "--assessor", "ann", q, d, "1"])
    assert_one_line(code, err, "full")
    assert out == ""
    assert integrity_ok(path) == "ok"


def test_unreachable_server_is_one_line():
    code, _, err = cli(["score", "--db", "postgresql+psycopg://nobody@127.0.0.1:9/none?connect_timeout=3"])
    assert_one_line(code, err, "cannot open database")
    assert "nobody@127.0.0.1:9/none" in err


SUPPORTED = "use sqlite:///PATH, a bare PATH, postgresql://... or postgresql+psycopg://..."


@pytest.mark.parametrize("url", [
    "mysql://ann:secret@db.example/campaign",
    "postgresql+psycopg2://ann:secret@127.0.0.1:9/campaign",  # a driver not installed
    "sqlite+pysqlcipher://:secret@/x.sqlite",
])
def test_unsupported_database_url_is_a_malformed_command_line(tmp_path, monkeypatch, url):
    """One line, exit 2, said while parsing: before any file is read or database opened. The
    password in the URL is not repeated."""
    scheme = url.split("://")[0]
    expected = f"workbench: unsupported database URL {scheme}://...: {SUPPORTED}\n"
    (tmp_path / "q.tsv").write_text("q1\tone\n")
    for argv in (["score", "--db", url], ["--db", url, "score"], ["init", "--db", url],
                 ["import", "queries", str(tmp_path / "q.tsv"), "--db", url]):
        assert cli(argv) == (2, "", expected), argv
    monkeypatch.setenv("WORKBENCH_DB", url)
    assert cli(["export", "judgments"]) == (2, "", expected)
    assert sorted(os.listdir(tmp_path)) == ["q.tsv"]


def test_plain_postgresql_url_means_psycopg(monkeypatch):
    """`postgresql://` is SQLAlchemy's spelling for psycopg2, which is not installed: the
    workbench reads it as psycopg 3, the driver it ships with."""
    code, _, err = cli(["score", "--db", "postgresql://nobody@127.0.0.1:9/none?connect_timeout=3"])
    assert_one_line(code, err, "cannot open database postgresql+psycopg://nobody@127.0.0.1:9/none")


FOREIGN = {
    # Each was taken for a workbench database (or for an empty one)
    "alembic_0001_and_users": (
        "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY)",
        "INSERT INTO alembic_version VALUES ('0001')",
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)",
        "INSERT INTO users (name) VALUES ('ann')",
    ),
    "view_only": ("CREATE VIEW answer AS SELECT 42 AS value",),
}


@pytest.mark.parametrize("kind", sorted(FOREIGN))
def test_foreign_look_alikes_are_refused_by_every_command(tmp_path, kind):
    path = str(tmp_path / f"{kind}.sqlite")
    con = sqlite3.connect(path)
    for statement in FOREIGN[kind]:
        con.execute(statement)
    con.commit()
    con.close()
    before = digest(path)
    for argv in [*commands(path, tmp_path), ["init", "--db", path]]:
        code, _, err = cli(argv, stdin="q1 d0001 1\n")
        assert_one_line(code, err, f"sqlite:///{path} is not a workbench database")
        assert digest(path) == before, argv
        assert sorted(os.listdir(tmp_path)) == sorted([os.path.basename(path), "q.tsv"]), argv
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    con.close()


@pytest.mark.parametrize("argv", [
    ["score"], ["agree"], ["compare"], ["export", "judgments"], ["export", "qrels", "--consensus", "majority"],
    ["pool", "--depth", "5"], ["grade", "--assessor", "ann", "q1", "d1", "2"],
])
def test_a_mistyped_path_is_no_such_file_and_is_not_created(tmp_path, argv):
    typo = tmp_path / "campaing.sqlite"
    code, out, err = cli([*argv, "--db", str(typo)])
    assert (code, out, err) == (1, "", f"workbench: no such database file: {typo}\n")
    assert os.listdir(tmp_path) == []
