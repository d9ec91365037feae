"""A new SQLite database file, and its -wal and -shm, get 0666 minus the umask:
SQLite alone makes them 0644 whatever the umask, so a group of assessors could not
share one file even with umask 002."""

from __future__ import annotations

import os
import stat
from contextlib import contextmanager

import pytest
from sqlalchemy import text

from workbench.campaign.database import Database


@contextmanager
def umask(mask: int):
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("mask, expected", [(0o002, 0o664), (0o022, 0o644), (0o077, 0o600)])
def test_new_database_files_follow_the_umask(tmp_path, mask, expected):
    path = tmp_path / "shared.sqlite"
    with umask(mask):
        db = Database.open(str(path))
    try:
        with db.write.begin() as s:  # the -wal and -shm files exist while a connection is open
            s.execute(text("INSERT INTO assessor (name, created_at) VALUES ('ann', CURRENT_TIMESTAMP)"))
        files = {p.name: mode(p) for p in tmp_path.iterdir()}
    finally:
        db.close()
    assert files == {"shared.sqlite": expected, "shared.sqlite-wal": expected,
                     "shared.sqlite-shm": expected}


def test_an_existing_file_keeps_its_mode(tmp_path):
    path = tmp_path / "mine.sqlite"
    Database.open(str(path)).close()
    os.chmod(path, 0o640)
    with umask(0o000):
        Database.open(str(path)).close()
    assert mode(path) == 0o640
