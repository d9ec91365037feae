"""`workbench demo` / `judge` plumbing: the sample is copied, never opened in place."""

from __future__ import annotations

import hashlib
import shutil
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
    opened = []
    monkeypatch.setattr(tui_cmd, "open_tui",
                        lambda db, assessor=None, lead=True: opened.append((db, assessor, lead)))
    db = str(tmp_path / "x.sqlite")
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
    assert main(["--db", str(tmp_path / "y.sqlite")]) == 0
    assert opened == [str(tmp_path / "y.sqlite")]
