"""Read-only places: a database in a read-only folder said "attempt to write
a readonly database" even for `list`, with no word of the folder; a read while the file was
0444 left 0444 -wal/-shm files behind that broke every later write. Reading commands now
work on a read-only file or folder without leaving anything behind, and writes name the
cause and the fix. Root ignores permissions, so as root the commands run as `nobody`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.reliability.test_unusable_databases import cli

ROOT = os.geteuid() == 0
NOBODY = 65534
pytestmark = pytest.mark.skipif(ROOT and shutil.which("setpriv") is None,
                                reason="as root the test needs setpriv to drop to nobody")
REPO = str(Path(__file__).resolve().parents[2])


def as_user(*argv: str) -> subprocess.CompletedProcess:
    """`workbench ARGV` as a user whom permissions apply to."""
    cmd = [sys.executable, "-m", "workbench", *argv]
    if ROOT:
        cmd = ["setpriv", "--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups", *cmd]
    env = {**os.environ, "PYTHONPATH": REPO}
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd="/", timeout=120)


@pytest.fixture
def place():
    """A folder anyone may enter, with a small campaign in it owned by the test user."""
    folder = Path(tempfile.mkdtemp(prefix="wb_ro_", dir="/tmp"))
    folder.chmod(0o755)
    db = folder / "c.sqlite"
    (folder / "q.tsv").write_text("q1\tone\n")
    assert cli(["import", "queries", str(folder / "q.tsv"), "--db", str(db)])[0] == 0
    if ROOT:
        os.chown(folder, NOBODY, NOBODY)
        os.chown(db, NOBODY, NOBODY)
    yield folder, db
    folder.chmod(0o755)
    shutil.rmtree(folder)


def test_a_read_only_folder_reads_and_names_the_folder_on_write(place):
    folder, db = place
    folder.chmod(0o555)
    listed = as_user("list", "queries", "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    assert "q1" in listed.stdout
    assert as_user("score", "--db", str(db)).returncode == 0
    wrote = as_user("grade", "-a", "ann", "q1", "d1", "1", "--db", str(db))
    assert wrote.returncode == 1
    assert f"the folder {folder} is read-only" in wrote.stderr and "copy the database" in wrote.stderr
    assert "readonly database" not in wrote.stderr
    assert sorted(os.listdir(folder)) == ["c.sqlite", "q.tsv"]


def test_a_read_of_a_0444_file_leaves_nothing_that_breaks_later_writes(place):
    folder, db = place
    db.chmod(0o444)
    listed = as_user("list", "queries", "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    wrote = as_user("grade", "-a", "ann", "--anywhere", "q1", "d1", "1", "--db", str(db))
    assert wrote.returncode == 1 and f"chmod u+w {db}" in wrote.stderr
    assert sorted(os.listdir(folder)) == ["c.sqlite", "q.tsv"]  # no 0444 -wal / -shm
    db.chmod(0o644)
    (folder / "d.tsv").write_text("d1\tdoc\n")
    os.chmod(folder / "d.tsv", 0o644)
    imported = as_user("import", "docs", str(folder / "d.tsv"), "--db", str(db))
    assert imported.returncode == 0, imported.stderr
    graded = as_user("grade", "-a", "ann", "q1", "d1", "1", "--db", str(db))
    assert graded.returncode == 0, graded.stderr
