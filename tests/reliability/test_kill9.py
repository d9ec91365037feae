"""kill -9 in the middle of grading: `workbench grade --batch -` fed through a pipe and
killed with SIGKILL at seeded random moments. Every grade it printed `ok` for must be in
the database with its value, the file must pass `PRAGMA integrity_check`, and the store
and the app must open it again."""

from __future__ import annotations

import random
import signal
import subprocess
import threading
import time

import pytest
from sqlalchemy import select

from workbench.campaign.database import Database
from workbench.store.models import Document, Judgment, JudgmentEvent, Query

from tests.reliability.conftest import REPO, env, integrity_ok, run_wb, seed, workbench_cmd

ROUNDS = 6


def _feed(stdin, lines: list[str]) -> None:
    try:
        for line in lines:
            stdin.write(line)
            stdin.flush()
    except (BrokenPipeError, OSError, ValueError):
        pass  # the process was killed under us: that is the point


def _grade_until_killed(path, lines: list[str], delay: float) -> list[str]:
    """Run one writer; SIGKILL it `delay` seconds after its first `ok`; return its oks."""
    proc = subprocess.Popen(
        workbench_cmd("grade", "--db", str(path), "--assessor", "dora", "--batch", "-"),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, bufsize=1, cwd=REPO, env=env(),
    )
    feeder = threading.Thread(target=_feed, args=(proc.stdin, lines), daemon=True)
    feeder.start()
    oks: list[str] = []
    killer: threading.Timer | None = None
    watchdog = threading.Timer(60, proc.kill)  # never hang the suite
    watchdog.start()
    try:
        for out in proc.stdout:  # ends when the process dies
            oks.append(out)
            if killer is None:
                killer = threading.Timer(delay, proc.send_signal, (signal.SIGKILL,))
                killer.start()
        proc.wait(timeout=30)
    finally:
        watchdog.cancel()
        if killer is not None:
            killer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        feeder.join(timeout=5)
        proc.stderr.close()
        try:
            proc.stdin.close()
        except OSError:
            pass
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, len(oks), len(lines))
    return oks


@pytest.mark.slow
def test_sigkill_never_loses_an_acknowledged_grade(tmp_path):
    path = tmp_path / "crash.sqlite"
    db = Database.open(str(path))
    queries, docs = seed(db, 50, 200)
    db.close()
    items = [(q, d) for q in queries for d in docs]
    rng = random.Random(20261122)
    rng.shuffle(items)
    acknowledged: dict[tuple[str, str], int] = {}  # printed `ok`: must be stored
    in_flight: dict[tuple[str, str], int] = {}  # the line after the last ok: may be stored
    cursor = 0
    for _ in range(ROUNDS):
        chunk = items[cursor:cursor + 1500]  # far more than it grades before the kill
        cursor += len(chunk)
        grades = [rng.randrange(4) for _ in chunk]
        lines = [f"{q} {d} {g}\n" for (q, d), g in zip(chunk, grades)]
        oks = _grade_until_killed(path, lines, delay=rng.uniform(0.0, 0.8))
        for (q, d), g, ok in zip(chunk, grades, oks):
            assert ok == f"ok {q} {d}\n"
            acknowledged[(q, d)] = g
        if len(oks) < len(chunk):
            in_flight[chunk[len(oks)]] = grades[len(oks)]

    assert integrity_ok(path) == "ok"
    db = Database.open(str(path), create=False)
    try:
        with db.read() as s:
            stored = {
                (q, d): g
                for q, d, g in s.execute(
                    select(Query.ext_id, Document.ext_id, Judgment.grade)
                    .join(Query, Query.id == Judgment.query_id)
                    .join(Document, Document.id == Judgment.document_id)
                )
            }
            n_events = len(s.execute(select(JudgmentEvent.id)).all())
    finally:
        db.close()
    assert len(acknowledged) > ROUNDS  # the kills did not all land before the first grades
    for item, grade in acknowledged.items():
        assert stored.get(item) == grade, item
    extra = {k: v for k, v in stored.items() if k not in acknowledged}
    for item, grade in extra.items():
        assert in_flight.get(item) == grade  # only a line in flight, with its own grade
    assert n_events == len(stored)  # one event per committed grade, no orphan halves

    # The app and the CLI go on working on the crashed-into file.
    again = run_wb("grade", "--db", str(path), "--assessor", "dora", queries[0], docs[0], "3")
    assert again.returncode == 0 and again.stdout == f"ok {queries[0]} {docs[0]}\n", again.stderr
    assert integrity_ok(path) == "ok"


async def test_app_opens_after_crash(tmp_path):
    """make_app on a file left with a hot WAL by a killed writer shows its first screen."""
    from workbench.tui.app import make_app

    path = tmp_path / "hot.sqlite"
    db = Database.open(str(path))
    seed(db, 2, 5)
    db.close()
    lines = [f"q{1 + i % 2} d{1 + i % 5:04d} {i % 4}\n" for i in range(5000)]
    oks = _grade_until_killed(path, lines, delay=0.3)
    assert oks
    assert (tmp_path / "hot.sqlite-wal").exists()  # the kill left the WAL behind
    app = make_app(str(path))
    async with app.run_test() as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen.__class__.__name__ == "AssessorScreen"
    assert integrity_ok(path) == "ok"
