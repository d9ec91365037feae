"""Stored runs as arrays (store/run_arrays.py), the one copy of a run: written by the
import in trec_eval's order, never stale, kept across a downgrade and upgrade (both backends)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from sqlalchemy import select

from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.catalog.importing import import_qrels, import_run
from workbench.campaign.scoring.scores import score_campaign
from workbench.store.models import Document, RunArrays
from workbench.store.run_arrays import load_stored_runs

# ties on purpose: 1.00000002 and 1.00000001 are one float32 (docno descending breaks it)
RUN_A = """q1 Q0 a 1 1.00000002 A
q1 Q0 b 2 1.00000001 A
q1 Q0 c 3 0.5 A
q2 Q0 c 1 2.0 A
q2 Q0 a 2 2.0 A
"""
RUN_A2 = """q1 Q0 c 1 9.0 A
q1 Q0 a 2 1.0 A
q2 Q0 b 1 3.0 A
"""
QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 a 1\nq2 0 b 1\n"


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def _stored(db):
    with db.read() as s:
        runs = load_stored_runs(s.connection())
        names = dict(s.execute(select(Document.id, Document.ext_id)).all())
    out = {}
    for i, tag in enumerate(runs.tags):
        a, b = runs.offsets[i], runs.offsets[i + 1]
        out[tag] = [names[d] for d in runs.document_id[a:b].tolist()]
    return out


def test_arrays_are_written_with_the_run_in_trec_eval_order(db, tmp_path):
    import_run(db, _write(tmp_path, "a.txt", RUN_A))
    # q1: a and b tie as float32 -> b (docno descending) first; q2: c and a tie -> c first
    assert _stored(db) == {"A": ["b", "a", "c", "c", "a"]}
    with db.read() as s:
        assert s.scalar(select(RunArrays.n_rows)) == 5


def test_a_replaced_run_is_never_read_stale(db, tmp_path):
    import_qrels(db, _write(tmp_path, "q.txt", QRELS), assessor="ann")
    import_run(db, _write(tmp_path, "a.txt", RUN_A))
    before = score_campaign(db, ["P.1"], source=QrelsSource.assessor("ann"))
    import_run(db, _write(tmp_path, "a2.txt", RUN_A2), replace=True)
    assert _stored(db) == {"A": ["c", "a", "b"]}
    after = score_campaign(db, ["P.1"], source=QrelsSource.assessor("ann"))
    assert before.value("A", "q1", "P_1") == 0.0  # b (grade 0) at rank 1
    assert after.value("A", "q1", "P_1") == 1.0  # c (grade 2) at rank 1


def test_another_process_sees_a_run_imported_after_it_scored(db_url, tmp_path):
    def cli(*args):
        return subprocess.run([sys.executable, "-m", "workbench", *args, "--db", db_url],
                              capture_output=True, text=True)

    assert cli("init").returncode == 0
    assert cli("import", "qrels", str(_write(tmp_path, "q.txt", QRELS)), "--assessor", "ann").returncode == 0
    assert cli("import", "run", str(_write(tmp_path, "a.txt", RUN_A))).returncode == 0
    first = cli("score", "--assessor", "ann", "-m", "P.1", "--format", "trec")
    assert first.returncode == 0 and "P_1" in first.stdout
    assert cli("import", "run", str(_write(tmp_path, "a2.txt", RUN_A2)), "--replace").returncode == 0
    second = cli("score", "--assessor", "ann", "-m", "P.1", "--format", "trec", "-q")
    lines = [line.split("\t") for line in second.stdout.splitlines()]
    values = {(m.strip(), q): v for m, q, v in lines if m.strip() == "P_1"}
    assert values == {("P_1", "q1"): "1.0000", ("P_1", "q2"): "1.0000", ("P_1", "all"): "1.0000"}
    assert np.isclose(float(values[("P_1", "q1")]), 1.0)


def test_init_upgrading_from_0002_writes_the_arrays_of_runs_imported_before(db_url, tmp_path):
    from workbench.campaign.database import Database, initialise
    from workbench.store.engine import make_engine
    from workbench.store.schema import downgrade

    db = Database.open(db_url)
    try:
        import_run(db, _write(tmp_path, "a.txt", RUN_A))
        stored = _stored(db)
    finally:
        db.close()
    engine = make_engine(db_url)
    downgrade(engine, "0002")  # as if the run had been imported by the previous version
    engine.dispose()
    result = initialise(db_url)
    assert (result.state, result.before) == ("older", "0002")
    db = Database.open(db_url)
    try:
        with db.read() as s:
            assert s.scalar(select(RunArrays.n_rows)) == 5
        assert _stored(db) == stored
    finally:
        db.close()


def test_a_session_cache_reuses_runs_until_a_run_changes(db, tmp_path):
    from workbench.campaign.scoring.scores import RunsCache, ScoreTracker

    import_qrels(db, _write(tmp_path, "q.txt", QRELS), assessor="ann")
    import_run(db, _write(tmp_path, "a.txt", RUN_A))
    cache = RunsCache()
    with db.read() as s:
        first = cache(s)
    with db.read() as s:
        assert cache(s) is first  # nothing changed: not read again
    tracker = ScoreTracker(db, ["P.1"], source=QrelsSource.assessor("ann"), runs=cache)
    assert tracker.load().value("A", "q1", "P_1") == 0.0
    import_run(db, _write(tmp_path, "a2.txt", RUN_A2), replace=True)  # same tag, new content
    with db.read() as s:
        assert cache(s) is not first
    assert tracker.load().value("A", "q1", "P_1") == 1.0  # never the stale run
    import_run(db, _write(tmp_path, "b.txt", RUN_A.replace(" A\n", " B\n")))
    assert tracker.load().systems == ("A", "B")


def test_runs_read_without_scores_have_the_same_rows_and_no_scores(db, tmp_path):
    from workbench.campaign.scoring.scores import load_runs
    from workbench.store.models import System

    import_run(db, _write(tmp_path, "a.txt", RUN_A))
    import_run(db, _write(tmp_path, "b.txt", RUN_A2.replace(" A\n", " B\n")))
    with db.write() as s, s.begin():  # a system whose arrays are missing has no rows
        s.add(System(tag="C"))
    with db.read() as s:
        full = load_stored_runs(s.connection())
        order_only = load_stored_runs(s.connection(), scores=False)
        runs = load_runs(s, scores=False)
    assert full.tags == order_only.tags == ("A", "B", "C")
    assert full.offsets.tolist() == order_only.offsets.tolist() == [0, 5, 8, 8]
    assert np.array_equal(full.query_id, order_only.query_id)
    assert np.array_equal(full.document_id, order_only.document_id)
    assert full.score.tolist() == [1.00000001, 1.00000002, 0.5, 2.0, 2.0, 9.0, 1.0, 3.0]
    assert order_only.score is None
    # one system's query ids without the array of every row, whole or some of its queries
    for i in range(3):
        whole = runs.rows(i, None)
        assert np.array_equal(runs.qid_bytes_of(i, whole), runs.qid_bytes[whole])
        some = runs.rows(i, runs.columns_of(["q2"]))
        assert np.array_equal(runs.qid_bytes_of(i, some), runs.qid_bytes[some])
    assert runs.qid_bytes.tolist() == [b"q1"] * 3 + [b"q2"] * 2 + [b"q1"] * 2 + [b"q2"]


def test_a_stored_run_shorter_than_its_row_count_is_refused(db, tmp_path):
    from sqlalchemy import update

    from workbench.errors import DatabaseError

    import_run(db, _write(tmp_path, "a.txt", RUN_A))
    with db.write() as s, s.begin():
        s.execute(update(RunArrays).values(document_ids=np.arange(1, 4, dtype="<i4").tobytes()))
    with db.read() as s, pytest.raises(DatabaseError, match="stored run 'A' is damaged: 3 values where it should have 5"):
        load_stored_runs(s.connection(), scores=False)


def test_a_read_session_is_one_snapshot_while_runs_are_imported(db, tmp_path):
    """What a reader reads in one session belongs to one moment (REPEATABLE READ on
    PostgreSQL, whose default lets each statement see newer rows): a run imported while
    the runs are being read is not half seen."""
    from sqlalchemy import func

    from workbench.store.models import System

    import_run(db, _write(tmp_path, "a.txt", RUN_A))
    with db.read() as s:
        assert s.scalar(select(func.count()).select_from(System)) == 1
        import_run(db, _write(tmp_path, "b.txt", RUN_A2.replace(" A\n", " B\n")))  # commits
        runs = load_stored_runs(s.connection(), scores=False)
        assert runs.tags == ("A",) and runs.offsets.tolist() == [0, 5]
    with db.read() as s:
        assert load_stored_runs(s.connection()).tags == ("A", "B")


def test_a_run_replaced_between_the_plan_and_the_blobs_is_read_again(db, db_url, tmp_path):
    """A write transaction on PostgreSQL (READ COMMITTED) sees a run replaced after it
    read the runs' sizes: it reads them again instead of filling the old sizes with the
    new blobs (pool reads the runs in a write transaction). A SQLite reader keeps its
    snapshot."""
    from sqlalchemy import event

    from workbench.campaign.database import Database

    import_run(db, _write(tmp_path, "a.txt", RUN_A))
    other = Database.open(db_url, create=False)
    postgres = db.engine.dialect.name == "postgresql"
    replaced = []

    def replace_once(conn, cursor, statement, *args):
        if "document_ids" in statement and not replaced:
            replaced.append(True)
            import_run(other, _write(tmp_path, "a2.txt", RUN_A2), replace=True)

    try:
        with (db.write() if postgres else db.read()) as s:
            conn = s.connection()
            event.listen(conn, "before_cursor_execute", replace_once)
            runs = load_stored_runs(conn, scores=False)
            event.remove(conn, "before_cursor_execute", replace_once)
    finally:
        other.close()
    assert replaced
    n = 3 if postgres else 5  # the new run, read again; or the snapshot's old one
    assert runs.offsets.tolist() == [0, n] and runs.document_id.size == n
    with db.read() as s:
        names = dict(s.execute(select(Document.id, Document.ext_id)).all())
    assert [names[d] for d in runs.document_id.tolist()] == (
        ["c", "a", "b"] if postgres else ["b", "a", "c", "c", "a"])
