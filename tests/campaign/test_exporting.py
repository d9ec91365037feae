"""Exports from the database: judgments (current and history), qrels, scores."""

from __future__ import annotations

import csv
import io
import json

import pytest
from sqlalchemy import select

from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.catalog.exporting import (
    atomic_output,
    export_judgments,
    export_qrels,
    export_scores,
    write_output,
)
from workbench.campaign.catalog.importing import import_qrels
from workbench.campaign.judging.grades import record_grade, undo_last
from workbench.campaign.scoring.qrels import derive_qrels
from workbench.errors import NotFoundError, UsageError
from tests.stored_runs import write_results
from workbench.store.models import Document, Query, System

HEADER = "query,document,assessor,grade,note,seconds,updated_at"


@pytest.fixture
def graded(db):
    """q1, q2, q10 x d1..d4; alice and bob grade some, alice changes and undoes one."""
    with db.write.begin() as s:
        s.add_all([Query(ext_id=q) for q in ("q1", "q2", "q10")])
        s.add_all([Document(ext_id=f"d{i}") for i in range(1, 5)])
    record_grade(db, "bob", "q2", "d1", 0)
    record_grade(db, "alice", "q1", "d2", 3, note="exactly, on topic", seconds=4.5)
    record_grade(db, "alice", "q1", "d1", 1)
    record_grade(db, "alice", "q10", "d3", 2)
    record_grade(db, "alice", "q1", "d1", 2)  # change
    undo_last(db, "alice")  # back to 1
    record_grade(db, "bob", "q1", "d1", 3)
    return db


def test_current_judgments_csv_header_rows_and_order(graded):
    out = io.StringIO()
    assert export_judgments(graded, out) == 5
    lines = out.getvalue().splitlines()
    assert lines[0] == HEADER
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [(r["query"], r["document"], r["assessor"], r["grade"]) for r in rows] == [
        ("q1", "d1", "alice", "1"),
        ("q1", "d1", "bob", "3"),
        ("q1", "d2", "alice", "3"),
        ("q10", "d3", "alice", "2"),
        ("q2", "d1", "bob", "0"),
    ]
    note_row = rows[2]
    assert (note_row["note"], note_row["seconds"]) == ("exactly, on topic", "4.5")
    assert note_row["updated_at"].endswith("+00:00") and note_row["updated_at"][:2] == "20"


def test_history_has_every_event_in_order_with_event_column(graded):
    out = io.StringIO()
    assert export_judgments(graded, out, history=True, assessor="alice") == 5
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert out.getvalue().splitlines()[0] == HEADER + ",event"
    assert [(r["query"], r["document"], r["grade"], r["event"]) for r in rows] == [
        ("q1", "d2", "3", "set"),
        ("q1", "d1", "1", "set"),
        ("q10", "d3", "2", "set"),
        ("q1", "d1", "2", "change"),
        ("q1", "d1", "1", "undo"),
    ]


def test_jsonl_and_assessor_filter(graded):
    out = io.StringIO()
    assert export_judgments(graded, out, format="jsonl", assessor="bob") == 2
    objs = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(o["query"], o["document"], o["grade"], o["seconds"]) for o in objs] == [
        ("q1", "d1", 3, 0.0), ("q2", "d1", 0, 0.0)]
    assert set(objs[0]) == set(HEADER.split(","))
    with pytest.raises(NotFoundError):
        export_judgments(graded, io.StringIO(), assessor="nobody")
    with pytest.raises(UsageError):
        export_judgments(graded, io.StringIO(), format="xml")


def test_current_judgments_sorted_by_query_document_without_an_event(graded):
    out = io.StringIO()
    assert export_judgments(graded, out, format="jsonl", assessor="alice") == 3
    objs = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(o["query"], o["document"], o["grade"]) for o in objs] == [
        ("q1", "d1", 1), ("q1", "d2", 3), ("q10", "d3", 2)]
    assert all("event" not in o for o in objs)


def test_qrels_export_sorted_and_round_trips_through_import(graded, tmp_path):
    out = io.StringIO()
    assert export_qrels(graded, out, QrelsSource.assessor("alice")) == 3
    # sorted by qid then docno as plain strings ("q10" < "q2")
    assert out.getvalue() == "q1 0 d1 1\nq1 0 d2 3\nq10 0 d3 2\n"
    path = tmp_path / "alice.qrels"
    path.write_text(out.getvalue())
    import_qrels(graded, path, assessor="alice-copy")
    a = derive_qrels(graded, QrelsSource.assessor("alice"))
    b = derive_qrels(graded, QrelsSource.assessor("alice-copy"))
    assert a.rows() == b.rows() == [("q1", "d1", 1), ("q1", "d2", 3), ("q10", "d3", 2)]


def test_consensus_qrels_export(graded):
    out = io.StringIO()
    export_qrels(graded, out, QrelsSource.consensus("mean"))
    # q1 d1: alice 1, bob 3 -> mean 2
    assert out.getvalue() == "q1 0 d1 2\nq1 0 d2 3\nq10 0 d3 2\nq2 0 d1 0\n"
    out = io.StringIO()
    export_qrels(graded, out, QrelsSource.consensus("majority"))  # tie 1 vs 3 -> the lower
    assert out.getvalue().splitlines()[0] == "q1 0 d1 1"
    default = io.StringIO()
    export_qrels(graded, default)  # no source: the people's majority
    assert default.getvalue() == out.getvalue()
    with pytest.raises(UsageError):
        QrelsSource.of_options(assessor="alice", consensus="mean")


def test_scores_export_matches_hand_computed_values(graded):
    with graded.write.begin() as s:
        q1 = s.scalar(select(Query.id).where(Query.ext_id == "q1"))
        docs = dict(s.execute(select(Document.ext_id, Document.id)).all())
        system = System(tag="sys")
        s.add(system)
        s.flush()
        # ranks d2 (alice: 3), d3 (unjudged), d1 (alice: 1)
        write_results(s, [(system.id, q1, docs[doc], score)
                          for doc, score in [("d2", 3.0), ("d3", 2.0), ("d1", 1.0)]])
    out = io.StringIO()
    export_scores(graded, out, measures=["P@2", "num_ret"], source=QrelsSource.assessor("alice"), per_query=True)
    assert out.getvalue().splitlines() == [
        "system,query,measure,value",
        "sys,q1,P@2,0.500000",  # the names and order the user asked for
        "sys,q1,num_ret,3",
        "sys,all,P@2,0.500000",
        "sys,all,num_ret,3",
    ]


def test_atomic_output_keeps_old_file_on_failure(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_output(target) as fh:
            fh.write("half")
            raise RuntimeError("boom")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]  # no temp left behind
    assert write_output(target, lambda fh: fh.write("new\n") and 1, io.StringIO()) == 1
    assert target.read_text() == "new\n"
    stdout = io.StringIO()
    write_output(None, lambda fh: fh.write("x") and 1, stdout)
    assert stdout.getvalue() == "x"
