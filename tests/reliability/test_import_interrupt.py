"""Ctrl-C during an import reports what happened.

Before: a SIGINT in the last half-second of an import (the commit's fsync) printed
"aborted", exit 1, although the run was committed, and re-importing then said "already
imported". Now: before the commit, Ctrl-C aborts and nothing is written; once the commit
has begun, the import completes and says "(interrupted after commit)", exit 0.

The in-process tests raise a real SIGINT at the exact point (a patched DBAPI commit or
insert of stub rows); the subprocess tests send one from outside while the child waits at that
point, so no timing is involved.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest
from sqlalchemy.engine.default import DefaultDialect

import workbench.store.ext_ids as stubs
from workbench.campaign.database import Database
from workbench.store.dbapi import Writer
from workbench.cli import main

from tests.reliability.conftest import REPO, counts, env

RUN = "q1 Q0 d1 1 2.0 bm25\nq1 Q0 d2 2 1.0 bm25\nq2 Q0 d1 1 0.5 bm25\n"
SUMMARY = ("imported run 'bm25' from run.txt: 3 results for 2 queries "
           "(created 2 stub queries and 2 stub documents)")


@pytest.fixture
def campaign(db_url, tmp_path):
    Database.open(db_url).close()
    run = tmp_path / "run.txt"
    run.write_text(RUN, encoding="utf-8")
    return db_url, str(run)


def _sigint_when(monkeypatch, where: str) -> None:
    """Raise SIGINT in this process right after the import's DBAPI commit ("commit") or
    right after its first insert of stub rows, inside the transaction ("insert").
    `import run` commits on a plain driver connection (store.dbapi.Writer) when the process
    has no engine, through SQLAlchemy otherwise: both commits are watched."""
    wrote = []
    bulk, commit, plain_commit = stubs.insert_stubs, DefaultDialect.do_commit, Writer.commit

    def bulk_then_maybe_sigint(*args, **kwargs):
        bulk(*args, **kwargs)
        wrote.append(True)
        if where == "insert" and len(wrote) == 1:
            signal.raise_signal(signal.SIGINT)

    def commit_then_maybe_sigint(self, dbapi_connection):
        commit(self, dbapi_connection)
        if where == "commit" and wrote:
            wrote.clear()
            signal.raise_signal(signal.SIGINT)

    def plain_commit_then_maybe_sigint(self):
        plain_commit(self)
        if where == "commit" and wrote:
            wrote.clear()
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(stubs, "insert_stubs", bulk_then_maybe_sigint)
    monkeypatch.setattr(DefaultDialect, "do_commit", commit_then_maybe_sigint)
    monkeypatch.setattr(Writer, "commit", plain_commit_then_maybe_sigint)


def test_sigint_right_after_the_commit_reports_the_import(campaign, monkeypatch, capsys):
    url, run = campaign
    _sigint_when(monkeypatch, "commit")
    code = main(["import", "run", run, "--db", url])
    out = capsys.readouterr()
    assert (code, out.out, out.err) == (0, SUMMARY + " (interrupted after commit)\n", "")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # handler restored
    assert (counts(url)["system"], counts(url)["result"]) == (1, 3)


def test_sigint_before_the_commit_writes_nothing_and_says_so(campaign, monkeypatch, capsys):
    url, run = campaign
    before = counts(url)
    _sigint_when(monkeypatch, "insert")
    code = main(["import", "run", run, "--db", url])
    out = capsys.readouterr()
    assert (code, out.out, out.err) == (
        1, "", f"workbench: import of {run} aborted before the commit: nothing was written\n")
    assert counts(url) == before
    monkeypatch.undo()
    assert main(["import", "run", run, "--db", url]) == 0  # and it can simply be run again
    assert capsys.readouterr().out == SUMMARY + "\n"


# --- a real Ctrl-C from outside, the child held at the point in question ------------------

CHILD = textwrap.dedent("""
    import os, sys, time
    from sqlalchemy.engine.default import DefaultDialect
    import workbench.store.ext_ids as stubs
    from workbench.store.dbapi import Writer

    where, go = sys.argv[1], sys.argv[2]
    wrote = []
    bulk, commit, plain_commit = stubs.insert_stubs, DefaultDialect.do_commit, Writer.commit

    def hold():
        sys.stderr.write("READY\\n")
        sys.stderr.flush()
        deadline = time.monotonic() + 20
        while not os.path.exists(go) and time.monotonic() < deadline:
            time.sleep(0.01)  # the parent's SIGINT arrives here

    def bulk_then_hold(*args, **kwargs):
        bulk(*args, **kwargs)
        wrote.append(True)
        if where == "insert" and len(wrote) == 1:
            hold()

    def commit_then_hold(self, dbapi_connection):
        commit(self, dbapi_connection)
        if where == "commit" and wrote:
            wrote.clear()
            hold()

    def plain_commit_then_hold(self):
        plain_commit(self)
        if where == "commit" and wrote:
            wrote.clear()
            hold()

    stubs.insert_stubs = bulk_then_hold
    DefaultDialect.do_commit = commit_then_hold
    Writer.commit = plain_commit_then_hold
    from workbench.cli import main
    sys.exit(main(sys.argv[3:]))
""")


def _interrupt_child(tmp_path, url: str, run: str, where: str) -> tuple[int, str, str]:
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    go = tmp_path / "go"
    child = subprocess.Popen(
        [sys.executable, str(script), where, str(go), "import", "run", run, "--db", url],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=env(),
    )
    try:
        assert child.stderr.readline() == "READY\n"
        child.send_signal(signal.SIGINT)
        go.touch()
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return child.returncode, out, err


def test_ctrl_c_after_the_commit_from_outside(campaign, tmp_path):
    url, run = campaign
    assert _interrupt_child(tmp_path, url, run, "commit") == (
        0, SUMMARY + " (interrupted after commit)\n", "")
    assert (counts(url)["system"], counts(url)["result"]) == (1, 3)


def test_ctrl_c_before_the_commit_from_outside(campaign, tmp_path):
    url, run = campaign
    before = counts(url)
    assert _interrupt_child(tmp_path, url, run, "insert") == (
        1, "", f"workbench: import of {run} aborted before the commit: nothing was written\n")
    assert counts(url) == before
