"""Many assessors at once through `workbench grade --batch` (the TUI's own write path,
campaign.judging.grades.record_grade), on SQLite and on PostgreSQL when WORKBENCH_TEST_PG_URL is set.

Each writer is a separate process, so this is the real multi-process locking of SQLite WAL
with BEGIN IMMEDIATE (docs/architecture.md#known-pitfalls), not threads sharing one connection pool.
"""

from __future__ import annotations

import random
import subprocess
import time

import pytest
from sqlalchemy import select

from workbench.campaign.database import Database
from workbench.store.models import Assessor, Document, Judgment, JudgmentEvent, Query

from tests.reliability.conftest import REPO, env, judgment_counts, seed, workbench_cmd

N_PROC = 8
PER_PROC = 200
TIMEOUT = 150  # seconds for all writers together (2 shared cores; typically ~10 s)


def _start_writers(db_url: str, batches: dict[str, str], tmp_path) -> list[tuple[str, subprocess.Popen]]:
    procs = []
    for name, lines in batches.items():
        batch = tmp_path / f"{name}.batch"
        batch.write_text(lines, encoding="utf-8")
        procs.append((name, subprocess.Popen(
            workbench_cmd("grade", "--db", db_url, "--assessor", name.split("#")[0],
                          "--batch", str(batch)),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=env(),
        )))
    return procs


def _finish(procs) -> dict[str, tuple[int, str, str]]:
    deadline = time.monotonic() + TIMEOUT
    out = {}
    try:
        for name, p in procs:
            stdout, stderr = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
            out[name] = (p.returncode, stdout, stderr)
    finally:
        for _, p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return out


@pytest.mark.slow
def test_eight_assessors_two_hundred_grades_each(db_url, tmp_path):
    db = Database.open(db_url)
    try:
        queries, docs = seed(db, 4, 50)
        items = [(q, d) for q in queries for d in docs]  # 200 items
        assert len(items) == PER_PROC
        rng = random.Random(6)
        batches, expected = {}, {}
        for a in range(N_PROC):
            name = f"assessor{a}"
            order = items[:]
            rng.shuffle(order)  # different lock order per writer
            grades = [rng.randrange(4) for _ in order]
            batches[name] = "".join(f"{q} {d} {g}\n" for (q, d), g in zip(order, grades))
            expected[name] = {(q, d): g for (q, d), g in zip(order, grades)}

        results = _finish(_start_writers(db_url, batches, tmp_path))

        for name, (code, stdout, stderr) in results.items():
            assert "locked" not in stderr.lower(), (name, stderr)
            assert code == 0, (name, code, stderr[-2000:])
            assert stderr == "", (name, stderr[-2000:])
            oks = stdout.splitlines()
            assert len(oks) == PER_PROC and all(line.startswith("ok ") for line in oks)

        assert judgment_counts(db) == (N_PROC * PER_PROC, N_PROC * PER_PROC)
        with db.read() as s:
            rows = s.execute(
                select(Assessor.name, Query.ext_id, Document.ext_id, Judgment.grade)
                .join(Assessor, Assessor.id == Judgment.assessor_id)
                .join(Query, Query.id == Judgment.query_id)
                .join(Document, Document.id == Judgment.document_id)
            ).all()
            kinds = set(s.scalars(select(JudgmentEvent.kind)))
        stored: dict[str, dict] = {}
        for a, q, d, g in rows:
            stored.setdefault(a, {})[(q, d)] = g
        assert stored == expected  # every grade, each where it belongs
        assert kinds == {"set"}
    finally:
        db.close()


@pytest.mark.slow
def test_same_item_graded_concurrently_keeps_one_row_and_full_history(db_url, tmp_path):
    """Four processes hammer ONE (query, document, assessor): one judgment row at the end,
    one event per call, and the events form an unbroken chain (each old_grade is the
    previous event's new_grade: no lost update), ending at the stored grade."""
    n_proc, per_proc = 4, 60
    db = Database.open(db_url)
    try:
        seed(db, 1, 1)
        rng = random.Random(11)
        batches = {
            f"carol#{i}": "".join(f"q1 d0001 {rng.randrange(4)}\n" for _ in range(per_proc))
            for i in range(n_proc)
        }
        results = _finish(_start_writers(db_url, batches, tmp_path))
        for name, (code, stdout, stderr) in results.items():
            assert code == 0 and stderr == "", (name, code, stderr[-2000:])
            assert stdout.count("ok q1 d0001\n") == per_proc

        with db.read() as s:
            judgments = s.execute(select(Judgment.grade)).all()
            events = s.execute(
                select(JudgmentEvent.kind, JudgmentEvent.old_grade, JudgmentEvent.new_grade)
                .order_by(JudgmentEvent.id)
            ).all()
            assessors = s.scalars(select(Assessor.name)).all()
        assert assessors == ["carol"]  # concurrent first use created the assessor once
        assert len(judgments) == 1
        assert len(events) == n_proc * per_proc
        assert events[0] == ("set", None, events[0].new_grade)
        for prev, ev in zip(events, events[1:]):
            assert ev.kind == "change"
            assert ev.old_grade == prev.new_grade
        assert judgments[0].grade == events[-1].new_grade
    finally:
        db.close()
