"""`grade --cant-judge`, `list cant-judge`, the marks in `list assessors`, and
`campaign --idle-cap` (shown, and applied to the speed figures), on each backend."""

from __future__ import annotations

import csv
import io
import json

import pytest
from sqlalchemy import update

from tests.cli.helpers import cli_ok, run
from workbench.campaign.database import Database
from workbench.store.models import JudgmentEvent

RUN_A = ["q1 Q0 d1 1 3.5 A", "q1 Q0 d2 2 3.0 A", "q1 Q0 d3 3 1.25 A", "q2 Q0 d2 1 9 A", "q2 Q0 d4 2 0.1 A"]


@pytest.fixture
def campaign(db_url, tmp_path):
    (tmp_path / "a.run").write_text("\n".join(RUN_A) + "\n")
    cli_ok(db_url, "import", "run", str(tmp_path / "a.run"))
    cli_ok(db_url, "pool", "--depth", "3", "-a", "ann", "-a", "bob")
    cli_ok(db_url, "grade", "--assessor", "ann", "q1", "d1", "2")
    return db_url


def test_grade_cant_judge_is_listed_for_the_lead_in_three_formats(campaign):
    out = cli_ok(campaign, "grade", "-a", "ann", "--cant-judge", "q1", "d3", "--note", "page is, empty")
    assert out == "ok q1 d3\n"
    rows = json.loads(cli_ok(campaign, "list", "cant-judge", "--format", "json"))
    assert [(r["query"], r["document"], r["assessor"], r["reason"]) for r in rows] == [
        ("q1", "d3", "ann", "page is, empty")]
    assert rows[0]["marked_at"][:4].isdigit()
    table = cli_ok(campaign, "list", "cant-judge").splitlines()
    assert table[0].split() == ["query", "document", "assessor", "reason", "marked_at"]
    assert table[1].startswith("q1 ") and "page is, empty" in table[1]
    parsed = list(csv.reader(io.StringIO(cli_ok(campaign, "list", "cant-judge", "--format", "csv"))))
    assert parsed[0] == ["query", "document", "assessor", "reason", "marked_at"]
    assert parsed[1][:4] == ["q1", "d3", "ann", "page is, empty"]
    # the history keeps the mark as an event without a grade, the reason as its note
    history = list(csv.DictReader(io.StringIO(cli_ok(campaign, "export", "judgments", "--history"))))
    mark = [r for r in history if r["event"] == "cant_judge"]
    assert [(r["query"], r["document"], r["assessor"], r["grade"], r["note"]) for r in mark] == [
        ("q1", "d3", "ann", "", "page is, empty")]
    # not a grade: the exported qrels hold ann's one grade only
    assert cli_ok(campaign, "export", "qrels", "--assessor", "ann").split("\n")[:-1] == ["q1 0 d1 2"]
    # list assessors counts it, and as done: 2 of ann's 5 (d1 graded, d3 marked)
    people = {r["assessor"]: r for r in json.loads(cli_ok(campaign, "list", "assessors", "--format", "json"))}
    assert (people["ann"]["cant_judge"], people["bob"]["cant_judge"]) == (1, 0)
    assert people["ann"]["judged"] == 1 and people["ann"]["done"] == pytest.approx(2 / 5)


def test_cant_judge_on_a_graded_document_clears_the_grade_and_says_so(campaign):
    result = run(campaign, "grade", "-a", "ann", "--cant-judge", "q1", "d1")
    assert result.exit_code == 0 and result.stdout == "ok q1 d1\n"
    assert "grade 2 of q1 d1 is cleared" in result.stderr
    assert cli_ok(campaign, "export", "qrels", "--assessor", "ann") == ""
    # a grade afterwards removes the mark
    cli_ok(campaign, "grade", "-a", "ann", "q1", "d1", "1")
    assert json.loads(cli_ok(campaign, "list", "cant-judge", "--format", "json")) == []


def test_cant_judge_usage_and_refusals(campaign):
    assert run(campaign, "grade", "-a", "ann", "--cant-judge", "q1", "d1", "2").exit_code == 2
    outside = run(campaign, "grade", "-a", "ann", "--cant-judge", "q2", "d9")
    assert outside.exit_code == 1 and "q2 d9 is not in ann's assignment: pass --anywhere" in str(outside.exception)
    unknown = run(campaign, "grade", "-a", "ann", "--cant-judge", "--anywhere", "q2", "d9")
    assert unknown.exit_code == 1 and "unknown document 'd9'" in str(unknown.exception)
    assert json.loads(cli_ok(campaign, "list", "cant-judge", "--format", "json")) == []


def test_idle_cap_is_shown_set_and_caps_the_speed_figures(campaign):
    assert "idle cap: 300 s per document (5 min;" in cli_ok(campaign, "campaign")
    cli_ok(campaign, "grade", "-a", "ann", "q1", "d2", "1")
    cli_ok(campaign, "grade", "-a", "ann", "q1", "d3", "0")
    db = Database.open(campaign, create=False)
    try:  # seconds as a judging screen without a cap would have stored them
        with db.write.begin() as s:
            for grade, seconds in ((2, 30.0), (1, 3600.0), (0, 90.0)):
                s.execute(update(JudgmentEvent).where(JudgmentEvent.new_grade == grade)
                          .values(seconds=seconds))
    finally:
        db.close()
    ann = {r["assessor"]: r for r in json.loads(cli_ok(campaign, "list", "assessors", "--format", "json"))}["ann"]
    # capped at 300: 30, 300, 90 -> median 90, 3 documents in 420 s
    assert ann["median_seconds"] == pytest.approx(90.0)
    assert ann["docs_per_hour"] == pytest.approx(3 / (420 / 3600)) and ann["capped"] == 1
    out = cli_ok(campaign, "campaign", "--idle-cap", "60")
    assert "idle cap: 60 s per document (1 min;" in out
    table = cli_ok(campaign, "list", "assessors").splitlines()
    assert table[-1].endswith("seconds per document count up to the idle cap, 1 min (workbench campaign --idle-cap))")
    ann = {r["assessor"]: r for r in json.loads(cli_ok(campaign, "list", "assessors", "--format", "json"))}["ann"]
    assert ann["median_seconds"] == pytest.approx(60.0)  # 30, 60, 60
    assert ann["docs_per_hour"] == pytest.approx(3 / (150 / 3600)) and ann["capped"] == 2
    assert "idle cap: 45 s per document (45 s;" in cli_ok(campaign, "campaign", "--idle-cap", "45")
    bad = run(campaign, "campaign", "--idle-cap", "0")
    assert bad.exit_code == 2


def test_counted_seconds_arithmetic():
    from workbench.campaign.settings import counted_seconds, describe_idle_cap

    assert counted_seconds(12.5, 300) == 12.5
    assert counted_seconds(301.0, 300) == 300.0
    assert counted_seconds(-1.0, 300) == 0.0
    assert (describe_idle_cap(300), describe_idle_cap(90), describe_idle_cap(120)) == ("5 min", "90 s", "2 min")
