"""`import qrels --machine --format umbrela`: UMBRELA's JSONL, rows matched to stored
queries and documents by exact text, grades read by the project's parser (a prose answer is
a failure with its text, never a grade 0), file:line errors and nothing written."""

from __future__ import annotations

import json

from tests.cli.helpers import cli_ok, run
from workbench.campaign.database import Database
from workbench.campaign.machine.provenance import read_provenance
from workbench.campaign.scoring.qrels import derive_qrels
from workbench.campaign.scoring.sources import QrelsSource
from workbench.errors import InputError
from workbench.store.machine import call_rows


def _campaign(url, tmp_path):
    (tmp_path / "q.tsv").write_text("q1\tcheap flights\nq2\tpython tutorial\n")
    (tmp_path / "d.jsonl").write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in
                                              enumerate(["Fly cheap to Rome.", "Learn Python in a day.",
                                                         "A recipe for bread."], 1)))
    cli_ok(url, "import", "queries", str(tmp_path / "q.tsv"))
    cli_ok(url, "import", "docs", str(tmp_path / "d.jsonl"))


def _row(query, passage, prediction, model="gpt-4o"):
    return json.dumps({"query": query, "passage": passage, "judgment": "?", "result_status": 1,
                       "prediction": prediction, "model": model}) + "\n"


def test_umbrela_rows_by_text_with_the_projects_parser(db_url, tmp_path):
    _campaign(db_url, tmp_path)
    path = tmp_path / "umbrela.jsonl"
    path.write_text(_row("cheap flights", "Fly cheap to Rome.", "##final score: 3")
                    + _row("python tutorial", "Learn Python in a day.", "2")
                    + _row("python tutorial", "A recipe for bread.",
                           "The passage is about bread, so 0 overlap; I cannot grade it."))
    out = cli_ok(db_url, "import", "qrels", str(path), "--machine", "--format", "umbrela")
    assert "3 UMBRELA rows" in out and "2 labels, 1 answers without a grade" in out
    db = Database.open(db_url, create=False)
    try:
        assert derive_qrels(db, QrelsSource.assessor("gpt-4o")).rows() == [("q1", "d1", 3), ("q2", "d2", 2)]
        assert read_provenance(db, "gpt-4o").origin == "import umbrela.jsonl (umbrela)"
        with db.read() as s:
            calls = list(call_rows(s))
        failure = [c for c in calls if c.outcome == "failure"]
        assert len(failure) == 1 and "I cannot grade it" in failure[0].raw and failure[0].grade is None
    finally:
        db.close()


def test_unmatched_row_and_two_models_are_file_line_errors(db_url, tmp_path):
    _campaign(db_url, tmp_path)
    path = tmp_path / "bad.jsonl"
    path.write_text(_row("cheap flights", "Fly cheap to Rome.", "3") + _row("cheap flight", "Fly cheap to Rome.", "1"))
    r = run(db_url, "import", "qrels", str(path), "--machine", "--format", "umbrela")
    assert isinstance(r.exception, InputError) and r.exception.line == 2 and "query title" in str(r.exception)
    path.write_text(_row("cheap flights", "Fly cheap to Rome.", "3") + _row("cheap flights", "Fly cheap to Rome.", "1", "other"))
    r = run(db_url, "import", "qrels", str(path), "--machine", "--format", "umbrela")
    assert isinstance(r.exception, InputError) and r.exception.line == 2 and "one model per file" in str(r.exception)
    db = Database.open(db_url, create=False)
    try:
        from workbench.campaign.assessors.roster import kinds

        assert "gpt-4o" not in kinds(db)  # nothing written
    finally:
        db.close()
    r = run(db_url, "import", "qrels", str(path), "--format", "umbrela")
    assert r.exit_code == 2 and "add --machine" in r.output
