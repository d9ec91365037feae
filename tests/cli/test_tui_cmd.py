"""`workbench demo` / `judge` plumbing: the sample is copied, never opened in place."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import stat
from pathlib import Path

import pytest

from workbench.cli import main, tui_cmd
from workbench.errors import DatabaseError


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_demo_copies_the_sample_and_leaves_it_untouched(tmp_path, monkeypatch):
    source = tmp_path / "pkg" / "sample.sqlite"
    source.parent.mkdir()
    from workbench.campaign.database import Database

    Database.open(str(source)).close()
    for extra in ("-wal", "-shm"):
        Path(f"{source}{extra}").unlink(missing_ok=True)
    before = _digest(source)
    monkeypatch.setattr(tui_cmd, "sample_path", lambda: source)
    opened = []
    monkeypatch.setattr(tui_cmd, "open_tui", lambda db, assessor=None, **kw: opened.append((db, assessor)))
    assert main(["demo", "--dir", str(tmp_path / "copy"), "--assessor", "me"]) == 0
    copy = tmp_path / "copy" / "sample.sqlite"
    assert opened == [(str(copy), "me")]
    assert copy.is_file() and _digest(copy) == before
    assert _digest(source) == before


def test_demo_says_clearly_when_the_sample_is_empty(tmp_path, monkeypatch, capsys):
    empty = tmp_path / "sample.sqlite"
    empty.write_bytes(b"")
    monkeypatch.setattr(tui_cmd, "sample_path", lambda: empty)
    monkeypatch.setattr(tui_cmd, "open_tui", lambda *a, **k: pytest.fail("must not open"))
    assert main(["demo", "--dir", str(tmp_path / "copy")]) == 1
    err = capsys.readouterr().err
    assert "sample database" in err and "empty" in err and "make sample" in err


def test_sample_path_finds_the_repository_copy():
    path = tui_cmd.sample_path()
    assert path.name == "sample.sqlite" and path.parent.name in ("sample_db", "_sample")


def test_judge_passes_db_and_assessor_and_leaves_out_lead_screens(tmp_path, monkeypatch):
    from workbench.campaign.assessors.visibility import lead_screens

    opened = []
    monkeypatch.setattr(tui_cmd, "open_tui",
                        lambda db, assessor=None, lead=True, audience=None: opened.append(
                            (db, assessor, lead if audience is None else lead_screens(audience))))
    db = str(tmp_path / "x.sqlite")
    assert main(["init", "--db", db]) == 0
    assert main(["judge", "--db", db, "--assessor", "ann"]) == 0
    assert main(["--db", db, "judge", "--assessor", "bob"]) == 0
    assert opened == [(db, "ann", False), (db, "bob", False)]
    assert main(["judge"]) == 2  # --assessor is required


def test_judge_and_demo_refuse_a_name_that_could_not_be_stored(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tui_cmd, "open_tui", lambda *a, **k: pytest.fail("must not open"))
    db = tmp_path / "x.sqlite"
    assert main(["judge", "--db", str(db), "--assessor", "ann\nbob"]) == 1
    assert main(["demo", "--dir", str(tmp_path / "copy"), "--assessor", " "]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "workbench: assessor name 'ann\\nbob' contains '\\n'; only spaces may separate the words of a name",
        "workbench: assessor name must not be empty",
    ]
    assert not db.exists() and not (tmp_path / "copy").exists()


def test_bare_workbench_opens_the_tui(tmp_path, monkeypatch):
    opened = []
    monkeypatch.setattr(tui_cmd, "open_tui", lambda db, assessor=None, **kw: opened.append(db))
    assert main(["init", "--db", str(tmp_path / "y.sqlite")]) == 0
    assert main(["--db", str(tmp_path / "y.sqlite")]) == 0
    assert opened == [str(tmp_path / "y.sqlite")]


class Terminal(io.StringIO):
    """Typed answers on a terminal."""

    def isatty(self) -> bool:
        return True


def refuse_to_open(*_args, **_kwargs):
    pytest.fail("the TUI must not open")


@pytest.mark.parametrize("argv", [["--db", "{typo}"], ["judge", "--db", "{typo}", "--assessor", "ann"]])
def test_a_missing_database_is_not_created_without_a_terminal(tmp_path, monkeypatch, capsys, argv):
    typo = tmp_path / "campain.sqlite"
    monkeypatch.setattr(tui_cmd, "open_tui", refuse_to_open)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main([a.format(typo=typo) for a in argv]) == 1
    assert capsys.readouterr().err == (
        f"workbench: no such database file: {typo} (create it with `workbench init --db {typo}`)\n")
    assert os.listdir(tmp_path) == []


def test_a_missing_database_is_created_only_when_the_user_says_yes(tmp_path, monkeypatch, capsys):
    typo = tmp_path / "campain.sqlite"
    monkeypatch.setattr(tui_cmd, "open_tui", refuse_to_open)
    monkeypatch.setattr("sys.stdin", Terminal("n\n"))
    assert main(["--db", str(typo)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{typo} does not exist. Create a new campaign database there? [y/N]: ")
    assert err.endswith("aborted\n")
    assert os.listdir(tmp_path) == []

    opened = []
    monkeypatch.setattr(tui_cmd, "open_tui", lambda db, assessor=None, **kw: opened.append(db))
    monkeypatch.setattr("sys.stdin", Terminal("y\n"))
    assert main(["--db", str(typo)]) == 0
    assert opened == [str(typo)]


def sample_source(tmp_path) -> Path:
    source = tmp_path / "pkg" / "sample.sqlite"
    source.parent.mkdir()
    from workbench.campaign.database import Database

    Database.open(str(source)).close()
    return source


def test_demo_never_overwrites_a_database(tmp_path, monkeypatch, capsys):
    """`demo --dir DIR` with a DIR/sample.sqlite that holds grades, and `demo --dir` on the
    sample's own folder (it gave a SameFileError traceback): one line, exit 1, bytes kept."""
    from workbench.campaign.database import Database
    from workbench.campaign.judging.grades import record_grade
    from workbench.store.models import Document, Query

    source = sample_source(tmp_path)
    monkeypatch.setattr(tui_cmd, "sample_path", lambda: source)
    monkeypatch.setattr(tui_cmd, "open_tui", refuse_to_open)
    mine = tmp_path / "mine" / "sample.sqlite"
    mine.parent.mkdir()
    db = Database.open(str(mine))
    with db.write.begin() as s:
        s.add_all([Query(ext_id="q1"), Document(ext_id="d1")])
    record_grade(db, "ann", "q1", "d1", 3)
    db.close()
    for target in (mine, source):
        before = _digest(target)
        assert main(["demo", "--dir", str(target.parent)]) == 1
        assert capsys.readouterr().err == (
            f"workbench: {target} already exists; the demo never overwrites a database: open it "
            f"with `workbench --db {target}`, or give another --dir\n")
        assert _digest(target) == before


def test_demo_copy_follows_the_umask(tmp_path, monkeypatch):
    source = sample_source(tmp_path)
    monkeypatch.setattr(tui_cmd, "sample_path", lambda: source)
    monkeypatch.setattr(tui_cmd, "open_tui", lambda *a, **k: None)
    old = os.umask(0o002)
    try:
        assert main(["demo", "--dir", str(tmp_path / "copy")]) == 0
    finally:
        os.umask(old)
    copy = tmp_path / "copy" / "sample.sqlite"
    assert stat.S_IMODE(copy.stat().st_mode) == 0o664
    assert _digest(copy) == _digest(source)


def test_a_temporary_demo_copy_is_removed_at_exit(tmp_path, monkeypatch, capsys):
    """`make demo` runs `workbench demo` without --dir: its copy goes at exit, even when
    the TUI fails, so copies do not pile up in the temporary folder; --dir keeps one."""
    monkeypatch.setattr(tui_cmd.tempfile, "tempdir", str(tmp_path))
    seen = []

    def fake_tui(db, assessor=None, **kw):
        seen.append(Path(db))
        assert Path(db).is_file()  # there while the TUI runs

    monkeypatch.setattr(tui_cmd, "open_tui", fake_tui)
    assert main(["demo"]) == 0
    assert seen and seen[0].parent.name.startswith("workbench-demo-")
    assert not seen[0].parent.exists()
    assert "removed at exit" in capsys.readouterr().err

    def failing_tui(db, assessor=None, **kw):
        seen.append(Path(db))
        raise KeyboardInterrupt

    monkeypatch.setattr(tui_cmd, "open_tui", failing_tui)
    assert main(["demo"]) == 1  # click turns Ctrl-C into "aborted"
    assert not seen[-1].parent.exists()
    assert list(tmp_path.glob("workbench-demo-*")) == []


@pytest.mark.parametrize("stdin_tty", [False, True])
def test_judge_refuses_without_a_terminal_instead_of_spinning(tmp_path, stdin_tty):
    """`echo | workbench judge --assessor ann` spun at 100 % CPU forever;
    stdout to a pipe too. It must exit 2 at once, saying what a terminal is needed for."""
    import subprocess
    import sys

    db = str(tmp_path / "x.sqlite")
    assert main(["init", "--db", db]) == 0
    master = slave = None
    if stdin_tty:
        master, slave = os.openpty()
        stdin = slave
    else:
        stdin = None
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "workbench", "judge", "--db", db, "--assessor", "ann"],
            **({"stdin": stdin} if stdin_tty else {"input": b"\n"}),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30, env=env,
        )
    finally:
        for fd in (master, slave):
            if fd is not None:
                os.close(fd)
    assert proc.returncode == 2, proc.stderr
    which = "stdout" if stdin_tty else "stdin"
    assert f"need a terminal, but {which} is not one" in proc.stderr.decode()


async def test_the_demo_says_on_its_screens_that_its_grades_go_at_exit(tmp_path, monkeypatch):
    """`make demo` said that its grades go only after quitting. The temporary demo's app is
    given the notice; the start screen shows it under the database line, and a message says
    it when the app starts (`--dir` keeps the copy: no notice)."""
    from tests.tui.helpers import screen_text, settle
    from workbench.tui.app import make_app

    source = sample_source(tmp_path)
    monkeypatch.setattr(tui_cmd, "sample_path", lambda: source)
    given = []
    monkeypatch.setattr(tui_cmd, "open_tui", lambda db, **kw: given.append(kw.get("notice", "")))
    assert main(["demo"]) == 0
    assert main(["demo", "--dir", str(tmp_path / "kept")]) == 0
    assert given == [tui_cmd.DEMO_NOTICE, ""]
    assert "thrown away when you quit" in tui_cmd.DEMO_NOTICE

    app = make_app(str(tmp_path / "kept" / "sample.sqlite"), lead=True, notice=tui_cmd.DEMO_NOTICE)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        shown = screen_text(app)
        assert "Demo: a temporary copy" in shown and "are thrown away when you quit" in shown
        assert [n.message for n in app._notifications] == [tui_cmd.DEMO_NOTICE]
