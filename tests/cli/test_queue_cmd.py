"""`workbench queue`: what an assessor has left to grade, in the judging screen's order and
as blind, so that grading without the TUI (`grade --batch`) can work through a pool; on
each backend."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from tests.cli.helpers import cli_ok, run
from workbench.campaign.judging.assessing import load_queue
from workbench.campaign.database import Database
from workbench.cli import cli
from workbench.errors import NotFoundError
from workbench.store.models import Assessor, Assignment, Document, Query

TAG = "SECRET_SYSTEM"
RUN = "".join(f"{q} Q0 {d} {r} {10 - r} {TAG}\n"
              for q in ("q1", "q2") for r, d in enumerate(["d1", "d2", "d3", "d4", "d5", "d6"], 1))
DOCS = "".join(json.dumps({"id": f"d{i}", "title": f"title {i}", "text": f"text of d{i}"}) + "\n"
               for i in range(1, 7))
QUERIES = ('{"id": "q1", "title": "first", "description": "find one", "narrative": "n1"}\n'
           '{"id": "q2", "title": "second", "description": "find two", "narrative": "n2"}\n')


@pytest.fixture
def files(tmp_path):
    for name, text in (("run.txt", RUN), ("docs.jsonl", DOCS), ("queries.jsonl", QUERIES)):
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.fixture
def campaign(db_url, files):
    cli_ok(db_url, "import", "queries", str(files / "queries.jsonl"))
    cli_ok(db_url, "import", "docs", str(files / "docs.jsonl"))
    cli_ok(db_url, "import", "run", str(files / "run.txt"))
    cli_ok(db_url, "pool", "--depth", "5", "-a", "ann", "--repeat", "0.4", "--seed", "2")
    return db_url


def _assignments(url, assessor: str):
    """(query, document, position, repeat) of the assessor's queue, as stored."""
    db = Database.open(url, create=False)
    try:
        with db.read() as s:
            return s.execute(
                select(Query.ext_id, Document.ext_id, Assignment.position, Assignment.repeat)
                .join(Query, Query.id == Assignment.query_id)
                .join(Document, Document.id == Assignment.document_id)
                .join(Assessor, Assessor.id == Assignment.assessor_id)
                .where(Assessor.name == assessor).order_by(Query.id, Assignment.position)
            ).all()
    finally:
        db.close()


def _tsv(url, *args) -> list[tuple[str, str]]:
    return [tuple(line.split("\t")) for line in cli_ok(url, "queue", *args, "--format", "tsv").splitlines()]


def test_the_queue_is_the_first_showings_in_judging_order(campaign):
    stored = _assignments(campaign, "ann")
    firsts = [(q, d) for q, d, _, rep in stored if not rep]
    assert len(firsts) == 10 and len(stored) == 14  # 5 per query, round(0.4 * 10) = 4 repeats
    assert _tsv(campaign, "-a", "ann") == firsts
    # the judging screen's order, query by query
    db = Database.open(campaign, create=False)
    try:
        for q in ("q1", "q2"):
            screen = [i.document for i in load_queue(db, "ann", q).items if not i.repeat]
            assert [d for qq, d in firsts if qq == q] == screen
    finally:
        db.close()
    table = cli_ok(campaign, "queue", "-a", "ann").splitlines()
    assert table[0].split() == ["query", "place", "document", "title"]
    first_q, first_d = firsts[0]
    place = next(p for q, d, p, rep in stored if (q, d) == (first_q, first_d) and not rep) + 1
    assert table[1].split() == [first_q, str(place), first_d, "title", first_d[1:]]
    assert TAG not in cli_ok(campaign, "queue", "-a", "ann", "--format", "jsonl")  # blind


def test_grades_and_marks_settle_items_and_the_queue_shrinks(campaign):
    before = _tsv(campaign, "-a", "ann")
    (q, d), (q2, d2) = before[0], before[1]
    cli_ok(campaign, "grade", "-a", "ann", q, d, "2")
    cli_ok(campaign, "grade", "-a", "ann", "--cant-judge", q2, d2)
    assert _tsv(campaign, "-a", "ann") == before[2:]
    # the hidden repeat of a graded document is not listed: only the judging screen shows it
    assert (q, d) not in _tsv(campaign, "-a", "ann")


def test_one_query_a_limit_and_jsonl(campaign):
    firsts = _tsv(campaign, "-a", "ann")
    assert _tsv(campaign, "-a", "ann", "q2") == [p for p in firsts if p[0] == "q2"]
    assert _tsv(campaign, "-a", "ann", "-n", "3") == firsts[:3]
    lines = cli_ok(campaign, "queue", "-a", "ann", "q2", "--format", "jsonl", "-n", "1").splitlines()
    item = json.loads(lines[0])
    d = firsts[[p[0] for p in firsts].index("q2")][1]
    assert item == {"query": "q2", "place": item["place"], "document": d, "title": f"title {d[1:]}",
                    "text": f"text of {d}", "query_title": "second",
                    "query_description": "find two", "query_narrative": "n2"}
    assert item["place"] >= 1


def test_nothing_left_unknown_assessor_and_unknown_query(campaign):
    for q, d in _tsv(campaign, "-a", "ann", "q1"):
        cli_ok(campaign, "grade", "-a", "ann", q, d, "1")
    result = run(campaign, "queue", "-a", "ann", "q1", "--format", "tsv")
    assert result.exit_code == 0 and result.stdout == ""
    assert "ann has nothing left to grade on q1" in result.stderr
    # main() prints these as `workbench: ...` with exit code 1 (NotFoundError)
    result = run(campaign, "queue", "-a", "zed")
    assert isinstance(result.exception, NotFoundError) and "'zed' is not an assessor" in str(result.exception)
    result = run(campaign, "queue", "-a", "ann", "q9")
    assert isinstance(result.exception, NotFoundError) and "unknown query 'q9'" in str(result.exception)
    assert NotFoundError("x").exit_code == 1


def test_an_adaptive_queue_shows_each_next_document_after_a_grade(db_url, files):
    cli_ok(db_url, "import", "run", str(files / "run.txt"))
    cli_ok(db_url, "pool", "--method", "mtf", "-a", "ann")
    first = _tsv(db_url, "-a", "ann")
    assert [q for q, _ in first] == ["q1", "q2"]  # one document per query to start
    assert first[0] == ("q1", "d1")  # the run's top document
    cli_ok(db_url, "grade", "-a", "ann", "q1", "d1", "1")
    # relevant: MTF stays with the run, whose next document is served
    assert _tsv(db_url, "-a", "ann") == [("q1", "d2"), ("q2", "d1")]


def test_text_with_control_characters_cannot_drive_the_terminal(db_url, tmp_path):
    """A document title holding escape sequences (imported data) is shown with them
    replaced in the plain tables of `queue` and `list` (on a terminal click would pass
    them through: color=True keeps them here as a terminal would get them)."""
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "d1", "title": "evil \x1b[31mred\x1b]0;owned\x07\ttab\nline",
                                "text": "x"}) + "\n")
    run_file = tmp_path / "run.txt"
    run_file.write_text("q1 Q0 d1 1 1.0 r\n")
    cli_ok(db_url, "import", "docs", str(docs))
    cli_ok(db_url, "import", "run", str(run_file))
    cli_ok(db_url, "pool", "--depth", "1", "-a", "ann")
    for args in (["queue", "-a", "ann"], ["list", "docs"]):
        out = CliRunner().invoke(cli, ["--db", db_url, *args], color=True).stdout
        assert "\x1b" not in out and "\x07" not in out, args
        assert "evil \u241b[31mred\u241b]0;owned\u2407 tab line" in out, args
    # the machine formats keep the text as stored
    item = json.loads(cli_ok(db_url, "queue", "-a", "ann", "--format", "jsonl"))
    assert item["title"] == "evil \x1b[31mred\x1b]0;owned\x07\ttab\nline"
