"""kill -9 and Ctrl-C in the middle of `workbench autojudge` (a subprocess against the test
chat server): no label that was reported is lost, and a rerun completes the rest without
calling again for what is stored."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select

from tests.machine.chat_server import ChatServer
from tests.tui.factory import build_campaign
from workbench.campaign.database import Database
from workbench.cli import main
from workbench.store.machine import settled_items
from workbench.store.models import MachineCall

ROOT = Path(__file__).resolve().parents[2]


def _grade_of(doc: str) -> int:
    return int(doc[1:]) % 4


@pytest.fixture
def campaign(db_url):
    db = Database.open(db_url)
    c = build_campaign(db, n_queries=4, depth=10, markup_doc=False)
    db.close()
    table = {(q, d): f"##final score: {_grade_of(d)}" for q in c.queries for d in c.docs}
    return db_url, table


def _start(url, server) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "workbench", "--db", url, "autojudge", "--model", "m1",
         "--endpoint", server.url, "--concurrency", "4"],
        # unbuffered bytes: readline() then reads no further than the line, so communicate()
        # (which reads the pipe's file descriptor) gets every line not read yet
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0, env=env, cwd=ROOT,
    )


def _read_lines(proc, n: int) -> list[list[str]]:
    lines = []
    while len(lines) < n:
        line = proc.stdout.readline().decode()
        assert line, proc.stderr.read().decode()
        lines.append(line.split())
    return lines


def _stored(url) -> tuple[dict[tuple[str, str], int], set, int, int]:
    """The machine's grades by item, its settled ids, the pool size and the calls stored."""
    from workbench.store.external_ids import assessor_id
    from workbench.store.export_rows import current_judgment_rows
    from workbench.store.queues import pool_size

    db = Database.open(url, create=False)
    try:
        with db.read() as s:
            grades = {(q, d): g for q, d, a, g, *_ in current_judgment_rows(s) if a == "m1"}
            aid = assessor_id(s, "m1")
            settled = settled_items(s, aid) if aid is not None else set()
            calls = s.scalar(select(func.count()).select_from(MachineCall))
            return grades, settled, pool_size(s), calls
    finally:
        db.close()


def test_kill9_loses_no_reported_label_and_a_rerun_completes(campaign, capsys):
    url, table = campaign
    with ChatServer(table, delay_s=0.03) as server:
        proc = _start(url, server)
        reported = _read_lines(proc, 12)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
        grades, settled, pool, calls = _stored(url)
        for outcome, q, d, g in reported:
            assert outcome == "label" and grades[(q, d)] == int(g) == _grade_of(d)
        assert len(grades) < pool  # killed in the middle
        stored = set(grades)
        before = len(server.log)
        assert main(["--db", url, "autojudge", "--model", "m1", "--endpoint", server.url,
                     "--concurrency", "4"]) == 0
        again = {(e.query, e.document) for e in server.log[before:]}
    assert not again & stored  # nothing stored is asked again
    grades, _, pool, _ = _stored(url)
    assert len(grades) == pool and all(g == _grade_of(d) for (_, d), g in grades.items())
    out = capsys.readouterr().out.split("\n")
    assert len([x for x in out if x.startswith("label ")]) == pool - len(stored)


def test_ctrl_c_stores_what_arrived_and_reports_it(campaign):
    url, table = campaign
    with ChatServer(table, delay_s=0.03) as server:
        proc = _start(url, server)
        reported = _read_lines(proc, 8)
        proc.send_signal(signal.SIGINT)
        rest, err = (x.decode() for x in proc.communicate(timeout=60))
    reported += [line.split() for line in rest.splitlines()]
    assert proc.returncode == 130, err
    assert "interrupted: every label reported is stored" in err
    grades, _, pool, calls = _stored(url)
    # every committed label was reported, and every reported label is committed
    assert {(q, d): int(g) for _, q, d, g in reported} == grades
    assert calls == len(reported) and 0 < len(grades) < pool
