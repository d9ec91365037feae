"""Sixteen `workbench` processes at once on one campaign: grade --batch,
import run, pool, score and export, on SQLite and on PostgreSQL.

Before, on PostgreSQL: two imports creating the same stub queries failed on uq_query_ext_id,
two pools on pk_pool_entry, two `pool --assessor X` or two first grades by a new assessor on
uq_assessor_name. Now every process exits 0, and the counts are exact: every grade, result,
stub and pool entry is there once.

The pool depends on which runs were committed when each `pool` ran, so it is checked as
(a) the pool entries the four processes report adding sum to the pool's size (none added
twice, none lost), (b) it holds every pair the initial systems put in the top K and nothing
outside the final systems' top K, and (c) one more pool + assign afterwards completes it
to exactly the final top K, with every assessor's queue holding each pair once.
"""

from __future__ import annotations

import random
import re
import subprocess
import time

import pytest
from sqlalchemy import select

from workbench.campaign.database import Database
from workbench.campaign.catalog.importing import import_run
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.pooling.assign import assign, build_pool
from workbench.store.models import Assessor, Assignment, Document, PoolEntry, Query

from tests.reliability.conftest import REPO, counts, env, seed, workbench_cmd

DEPTH = 5
PER_RUN = 15  # results per (system, query)
TIMEOUT = 120  # all sixteen together; ~10-20 s on 2 shared cores


def _run_lines(tag: str, queries: list[str], docs: list[str], rng: random.Random) -> list[tuple[str, str, float]]:
    """(query, doc, score) with distinct scores, so the top K needs no tie-break."""
    out = []
    for q in queries:
        for rank, d in enumerate(rng.sample(docs, PER_RUN)):
            out.append((q, d, float(PER_RUN - rank)))
    return out


def _top(lines: list[tuple[str, str, float]]) -> set[tuple[str, str]]:
    by_query: dict[str, list[tuple[float, str]]] = {}
    for q, d, score in lines:
        by_query.setdefault(q, []).append((score, d))
    return {(q, d) for q, ranked in by_query.items() for _, d in sorted(ranked, reverse=True)[:DEPTH]}


def _write_run(path, tag: str, lines) -> str:
    path.write_text("".join(f"{q} Q0 {d} {i + 1} {s} {tag}\n" for i, (q, d, s) in enumerate(lines)),
                    encoding="utf-8")
    return str(path)


@pytest.mark.slow
def test_sixteen_mixed_processes_all_succeed_nothing_lost_nothing_doubled(db_url, tmp_path):
    rng = random.Random(12)
    db = Database.open(db_url)
    try:
        queries, docs = seed(db, 4, 40)
        # Three systems and a pool assigned to alice, who has graded a little (for score/export).
        initial = {f"S{i}": _run_lines(f"S{i}", queries, docs, rng) for i in range(3)}
        for tag, lines in initial.items():
            import_run(db, _write_run(tmp_path / f"{tag}.run", tag, lines))
        build_pool(db, DEPTH)
        assign(db, ["alice"])
        for d in docs[:5]:
            record_grade(db, "alice", "q1", d, 1)
        before = counts(db)

        # Four new systems: three new queries and thirty new documents, shared by all four
        # (each import finds some or all of them missing), plus q1 and old documents.
        new_queries = ["nq1", "nq2", "nq3"]
        new_docs = [f"nd{i:03d}" for i in range(30)]
        storm_runs = {f"N{i}": _run_lines(f"N{i}", new_queries + ["q1"], new_docs + docs[:10], rng)
                      for i in range(4)}
        stubs = {d for lines in storm_runs.values() for _, d, _ in lines if d.startswith("nd")}

        items = [(q, d) for q in queries for d in docs[10:20]]  # 40 items
        batch = {g: tmp_path / f"grade{g}.batch" for g in (1, 2, 3)}
        for g, path in batch.items():
            path.write_text("".join(f"{q} {d} {g}\n" for q, d in items), encoding="utf-8")

        commands = {
            "grade-ann": ["grade", "--assessor", "ann", "--new", "--anywhere", "--batch", str(batch[1])],
            "grade-bob": ["grade", "--assessor", "bob", "--new", "--anywhere", "--batch", str(batch[2])],
            # a new assessor, twice at once: created once, every item graded twice
            "grade-cat-1": ["grade", "--assessor", "cat", "--new", "--anywhere", "--batch", str(batch[3])],
            "grade-cat-2": ["grade", "--assessor", "cat", "--new", "--anywhere", "--batch", str(batch[3])],
            **{f"import-{tag}": ["import", "run", _write_run(tmp_path / f"{tag}.run", tag, lines)]
               for tag, lines in storm_runs.items()},
            "pool-dan-1": ["pool", "--depth", str(DEPTH), "--assessor", "dan"],
            "pool-dan-2": ["pool", "--depth", str(DEPTH), "--assessor", "dan"],
            "pool-eve": ["pool", "--depth", str(DEPTH), "--assessor", "eve"],
            "pool": ["pool", "--depth", str(DEPTH)],
            "score": ["score", "--assessor", "alice"],
            "score-q": ["score", "--assessor", "alice", "-q"],
            "export-qrels": ["export", "qrels", "--assessor", "alice"],
            "export-judgments": ["export", "judgments"],
        }
        assert len(commands) == 16
        procs = {
            name: subprocess.Popen(workbench_cmd(*args, "--db", db_url), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, cwd=REPO, env=env())
            for name, args in commands.items()
        }
        out = _finish(procs)

        for name, (code, stdout, stderr) in out.items():
            assert code == 0, (name, code, stderr[-2000:])
            assert "Traceback" not in stderr and "duplicate key" not in stderr, (name, stderr)

        # Grades: every line acknowledged and stored once (cat's second grade of an item is
        # a `change` of the first).
        for name in ("grade-ann", "grade-bob", "grade-cat-1", "grade-cat-2"):
            assert out[name][1] == "".join(f"ok {q} {d}\n" for q, d in items), name
        # Imports: each run whole; the stubs created once between them.
        created = [re.search(r"created (\d+) stub quer(?:y|ies) and (\d+) stub documents?",
                             out[f"import-{t}"][1]) for t in storm_runs]
        assert sum(int(m.group(1)) for m in created) == len(new_queries)
        assert sum(int(m.group(2)) for m in created) == len(stubs)
        # Score and export ran on a consistent snapshot.
        assert out["export-qrels"][1] == "".join(f"q1 0 {d} 1\n" for d in docs[:5])
        for name in ("score", "score-q"):
            assert all(f"S{i}" in out[name][1] for i in range(3)), out[name][1]

        after = counts(db)
        n_results = sum(len(lines) for lines in storm_runs.values())
        assert after["judgment"] - before["judgment"] == 3 * len(items)
        assert after["judgment_event"] - before["judgment_event"] == 4 * len(items)
        assert (after["system"], after["result"] - before["result"]) == (7, n_results)
        assert (after["query"], after["document"]) == (len(queries) + 3, len(docs) + len(stubs))
        with db.read() as s:
            assert sorted(s.scalars(select(Assessor.name))) == ["alice", "ann", "bob", "cat", "dan", "eve"]
            pool = set(s.execute(select(Query.ext_id, Document.ext_id)
                                 .join(PoolEntry, PoolEntry.query_id == Query.id)
                                 .join(Document, Document.id == PoolEntry.document_id)).all())

        # The pool: added once each, the old top K all there, nothing from outside.
        added = [int(re.search(r"\((\d+) new\)", out[n][1]).group(1))
                 for n in ("pool-dan-1", "pool-dan-2", "pool-eve", "pool")]
        first_pool = set().union(*(_top(lines) for lines in initial.values()))
        final_pool = first_pool.union(*(_top(lines) for lines in storm_runs.values()))
        assert len(first_pool) + sum(added) == len(pool) == after["pool_entry"]
        assert first_pool <= pool <= final_pool

        # Completed afterwards: exactly the final top K, each pair once in every queue.
        build_pool(db, DEPTH)
        assign(db, ["alice", "dan", "eve"])
        with db.read() as s:
            queues = s.execute(
                select(Assessor.name, Query.ext_id, Document.ext_id, Assignment.position)
                .join(Assessor, Assessor.id == Assignment.assessor_id)
                .join(Query, Query.id == Assignment.query_id)
                .join(Document, Document.id == Assignment.document_id)
            ).all()
        assert counts(db)["pool_entry"] == len(final_pool)
        for name in ("alice", "dan", "eve"):
            mine = [(q, d, p) for a, q, d, p in queues if a == name]
            assert sorted((q, d) for q, d, _ in mine) == sorted(final_pool), name
            for q in {q for q, _ in final_pool}:
                assert sorted(p for qq, _, p in mine if qq == q) == list(
                    range(sum(1 for qq, _ in final_pool if qq == q))), (name, q)
    finally:
        db.close()


def _finish(procs: dict[str, subprocess.Popen]) -> dict[str, tuple[int, str, str]]:
    deadline = time.monotonic() + TIMEOUT
    out = {}
    try:
        for name, p in procs.items():
            stdout, stderr = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
            out[name] = (p.returncode, stdout, stderr)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
    return out
