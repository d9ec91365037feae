"""Managing a campaign end to end through the CLI, on each backend: list with progress,
remove (refused when judgments would be lost, history archived), rename run, export run
(eval gives the same numbers on the exported file as on the imported one)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from tests.cli.helpers import cli_ok
from workbench.campaign.database import Database
from workbench.cli import main
from workbench.store.models import EventArchive, Judgment, JudgmentEvent

RUN_A = ["q1 Q0 d1 1 3.5 A", "q1 Q0 d2 2 3.5 A", "q1 Q0 d3 3 1.25 A", "q2 Q0 d2 1 9 A", "q2 Q0 d4 2 0.1 A"]
RUN_B = ["q1 Q0 d3 1 2 B", "q1 Q0 d1 2 1 B", "q2 Q0 d4 1 5 B"]


@pytest.fixture
def campaign(db_url, tmp_path):
    for name, lines in (("a.run", RUN_A), ("b.run", RUN_B)):
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    cli_ok(db_url, "import", "run", str(tmp_path / "a.run"), str(tmp_path / "b.run"))
    cli_ok(db_url, "pool", "--depth", "2", "-a", "ann", "-a", "bob")
    cli_ok(db_url, "grade", "--assessor", "ann", "q1", "d1", "2")
    cli_ok(db_url, "grade", "--assessor", "ann", "q1", "d2", "0")
    cli_ok(db_url, "grade", "--assessor", "bob", "q2", "d4", "1")
    return db_url


def listing(url, what):
    return json.loads(cli_ok(url, "list", what, "--format", "json"))


def test_list_shows_counts_and_progress(campaign):
    queries = {r["query"]: r for r in listing(campaign, "queries")}
    # depth 2: q1 pools d1 d2 (A) and d3 d1 (B) -> d1 d2 d3; q2 pools d2 d4
    assert (queries["q1"]["pool"], queries["q1"]["judged"], queries["q1"]["judgments"]) == (3, 2, 2)
    assert queries["q1"]["done"] == pytest.approx(2 / 3) and queries["q2"]["judged"] == 1
    runs = {r["run"]: r for r in listing(campaign, "runs")}
    assert (runs["A"]["queries"], runs["A"]["results"], runs["B"]["results"]) == (2, 5, 3)
    people = {r["assessor"]: r for r in listing(campaign, "assessors")}
    assert (people["ann"]["assigned"], people["ann"]["judged"], people["ann"]["outside_assignment"]) == (5, 2, 0)
    docs = {r["document"]: r for r in listing(campaign, "docs")}
    assert (docs["d1"]["pooled"], docs["d1"]["judgments"], docs["d4"]["judgments"]) == (1, 1, 1)
    table = cli_ok(campaign, "list", "queries").splitlines()
    assert table[0].split() == ["query", "title", "pool", "judged", "judgments", "assessors", "done"]
    assert table[1].split()[-1] == "67%"
    csv_lines = cli_ok(campaign, "list", "runs", "--format", "csv").splitlines()
    assert csv_lines == ["run,queries,results,answers", "A,2,5,0", "B,2,3,0"]


def count(url, model, *where):
    database = Database.open(url, create=False)
    try:
        with database.read() as s:
            return s.scalar(select(func.count()).select_from(model).where(*where))
    finally:
        database.close()


def test_remove_refuses_to_lose_judgments_and_archives_history(campaign, capsys):
    assert main(["--db", campaign, "remove", "query", "q1"]) == 2
    assert "has 2 judgments" in capsys.readouterr().err and count(campaign, Judgment) == 3
    events = count(campaign, JudgmentEvent)
    out = cli_ok(campaign, "remove", "query", "q1", "--force")
    assert "2 judgments deleted, 2 history events archived" in out
    assert count(campaign, Judgment) == 1 and count(campaign, EventArchive) == 2
    assert count(campaign, JudgmentEvent) == events - 2
    assert [r["query"] for r in listing(campaign, "queries")] == ["q2"]
    # the runs lost q1's rows: scores and lists see q2 only
    assert {r["run"]: r["results"] for r in listing(campaign, "runs")} == {"A": 2, "B": 1}
    scored = json.loads(cli_ok(campaign, "score", "-m", "num_ret", "--assessor", "bob", "--format", "json"))
    assert {s["system"]: s["mean"]["num_ret"] for s in scored["systems"]} == {"A": 2, "B": 1}
    assert main(["--db", campaign, "remove", "assessor", "bob"]) == 2
    assert "bob" in cli_ok(campaign, "remove", "assessor", "bob", "--force")
    assert [r["assessor"] for r in listing(campaign, "assessors")] == ["ann"]
    assert count(campaign, EventArchive, EventArchive.removed == "assessor bob") == 1
    assert main(["--db", campaign, "remove", "assessor", "zed"]) == 1
    assert "unknown assessor 'zed'" in capsys.readouterr().err


def test_remove_and_rename_run(campaign, capsys):
    assert "none lost" in cli_ok(campaign, "remove", "run", "B")
    assert [r["run"] for r in listing(campaign, "runs")] == ["A"]
    assert count(campaign, Judgment) == 3
    cli_ok(campaign, "rename", "run", "A", "A2")
    assert [r["run"] for r in listing(campaign, "runs")] == ["A2"]
    assert main(["--db", campaign, "rename", "run", "A2", "bad tag"]) == 1
    assert main(["--db", campaign, "rename", "run", "nope", "x"]) == 1
    capsys.readouterr()


def test_exported_run_evaluates_like_the_imported_file(campaign, tmp_path):
    out = tmp_path / "A.out"
    cli_ok(campaign, "export", "run", "A", "-o", str(out))
    # trec_eval's order: ties (d1, d2 at 3.5) by docno descending, ranks renumbered
    assert out.read_text().splitlines() == [
        "q1 Q0 d2 1 3.5 A", "q1 Q0 d1 2 3.5 A", "q1 Q0 d3 3 1.25 A", "q2 Q0 d2 1 9.0 A", "q2 Q0 d4 2 0.1 A"]
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d3 2\nq2 0 d4 1\n")
    measures = ["-m", "map", "-m", "P.2", "-m", "ndcg", "-m", "recip_rank", "-q"]
    before = cli_ok(campaign, "eval", str(qrels), str(tmp_path / "a.run"), *measures)
    after = cli_ok(campaign, "eval", str(qrels), str(out), *measures)
    assert before == after


def test_grades_outside_the_assignment_are_refused_unless_anywhere(campaign, capsys, tmp_path):
    """Once a pool exists a grade belongs to the assessor's assignment: q2/d4 is bob's
    (ann's queue is q1's pool and q2/d2), d9 is in no pool. --anywhere grades them with a
    warning, and `list assessors` counts them."""
    before = count(campaign, Judgment)
    assert main(["--db", campaign, "grade", "--assessor", "cat", "--new", "q1", "d1", "1"]) == 1
    assert "q1 d1 is not in cat's assignment: pass --anywhere" in capsys.readouterr().err
    # q2/d4 is pooled, q2/d3 is in no pool: one message, so that the answer does not tell
    # cat whether some system ranked the document
    assert main(["--db", campaign, "grade", "--assessor", "cat", "--new", "q2", "d4", "1"]) == 1
    pooled = capsys.readouterr().err
    assert main(["--db", campaign, "grade", "--assessor", "ann", "q2", "d3", "1"]) == 1
    assert "q2 d3 is not in ann's assignment" in capsys.readouterr().err
    assert main(["--db", campaign, "grade", "--assessor", "cat", "--new", "q2", "d3", "1"]) == 1
    unpooled = capsys.readouterr().err
    assert unpooled == pooled.replace("d4", "d3")
    assert unpooled.startswith("workbench: q2 d3 is not in cat's assignment: pass --anywhere")
    assert count(campaign, Judgment) == before
    assert main(["--db", campaign, "grade", "--assessor", "cat", "--new", "--anywhere", "q1", "d1", "1"]) == 0
    assert "graded anyway (--anywhere)" in capsys.readouterr().err
    batch = tmp_path / "b.txt"
    batch.write_text("q1 d3 1\nq2 d3 2\n")  # cat: both outside her (empty) assignment
    assert main(["--db", campaign, "grade", "--assessor", "cat", "--batch", str(batch)]) == 1
    err = capsys.readouterr().err
    assert f"{batch}:1: q1 d3 is not in cat's assignment" in err and f"{batch}:2: q2 d3 is not in cat's assignment" in err
    people = {r["assessor"]: r for r in listing(campaign, "assessors")}
    assert people["cat"]["outside_assignment"] == 1 and count(campaign, Judgment) == before + 1
