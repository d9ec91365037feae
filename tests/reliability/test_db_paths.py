"""A database path that exists and is not a regular file is refused before anything is
opened: a block device looked new (size 0) and got a SQLite header written
over its data, /dev/null left /dev/null-journal, a directory said "unable to open database
file" and a FIFO "disk I/O error". The tests use their own FIFO, symlink and directory."""

from __future__ import annotations

import os

import pytest

from tests.reliability.test_unusable_databases import cli
from workbench.campaign.database import Database
from workbench.errors import DatabaseError


@pytest.fixture
def places(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    link = tmp_path / "link"
    link.symlink_to(fifo)
    dir_link = tmp_path / "dir_link"
    dir_link.symlink_to(folder)
    return {"a FIFO": fifo, "a directory": folder, "link": link, "dir_link": dir_link}


@pytest.mark.parametrize("name", ["a FIFO", "a directory", "link", "dir_link"])
@pytest.mark.parametrize("argv", [["init"], ["list", "queries"], ["grade", "-a", "ann", "q", "d", "1"]])
def test_a_path_that_is_not_a_regular_file_is_refused(places, name, argv, tmp_path):
    path = places[name]
    before = sorted(os.listdir(tmp_path))
    code, out, err = cli([*argv, "--db", str(path)])
    assert code == 1, (out, err)
    kind = {"a FIFO": "a FIFO", "link": "a FIFO", "a directory": "a directory",
            "dir_link": "a directory"}[name]
    assert f"is {kind}" in err and "not a database file" in err
    if name in ("link", "dir_link"):
        assert f"through the symlink {path}" in err
    assert sorted(os.listdir(tmp_path)) == before  # no -journal, -wal or new file beside it
    if "folder" in name or "dir" in name:
        assert os.listdir(places["a directory"]) == []


def test_sqlite_urls_and_the_store_refuse_them_too(places):
    with pytest.raises(DatabaseError, match="is a FIFO"):
        Database.open(str(places["a FIFO"]))
    code, _, err = cli(["init", "--db", f"sqlite:///{places['a directory']}"])
    assert code == 1 and "is a directory" in err


def test_an_empty_db_is_a_usage_error_and_creates_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for argv in (["init", "--db", ""], ["--db", "", "init"], ["list", "runs", "--db", " "]):
        code, out, err = cli(argv)
        assert code == 2 and "--db" in err and "empty" in err, (argv, out, err)
    assert os.listdir(tmp_path) == []


def test_a_regular_file_and_a_new_path_still_work(tmp_path):
    path = tmp_path / "new.sqlite"
    assert cli(["init", "--db", str(path)])[0] == 0
    link = tmp_path / "to_file"
    link.symlink_to(path)
    assert cli(["list", "queries", "--db", str(link)])[0] == 0
