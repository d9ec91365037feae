"""Who is an assessor: once a pool exists, a name that is not one (a typo, a lead) is refused
by `judge`, `grade` and `queue` with the nearest name; `--new` makes one on purpose; a lead
who adjudicates stays out of `list assessors` and the pace data; `pool --repeat` on an
existing queue says why it adds no repeats. On each backend."""

from __future__ import annotations

import json

import pytest

from tests.cli.helpers import cli_ok, run
from workbench.campaign.database import Database
from workbench.campaign.judging.pace import watch_assessors

RUN = "".join(f"{q} Q0 {d} {r} {10 - r} sys\n"
              for q in ("q1", "q2") for r, d in enumerate(["d1", "d2", "d3", "d4", "d5", "d6"], 1))
DOCS = "".join(json.dumps({"id": f"d{i}", "title": f"title {i}", "text": f"text {i}"}) + "\n"
               for i in range(1, 7))
QUERIES = '{"id": "q1", "title": "first"}\n{"id": "q2", "title": "second"}\n'


@pytest.fixture
def campaign(db_url, tmp_path):
    for name, text in (("run.txt", RUN), ("docs.jsonl", DOCS), ("queries.jsonl", QUERIES)):
        (tmp_path / name).write_text(text)
    cli_ok(db_url, "import", "queries", str(tmp_path / "queries.jsonl"))
    cli_ok(db_url, "import", "docs", str(tmp_path / "docs.jsonl"))
    cli_ok(db_url, "import", "run", str(tmp_path / "run.txt"))
    cli_ok(db_url, "pool", "--depth", "6", "-a", "ann", "-a", "bob", "--seed", "1")
    return db_url


def _error(result) -> str:
    """The one-line message main() would print (CliRunner keeps the exception)."""
    return result.stderr + (str(result.exception) if result.exception else "")


def _names(url) -> list[str]:
    return [r["assessor"] for r in json.loads(cli_ok(url, "list", "assessors", "--format", "json"))]


@pytest.mark.parametrize("command", [
    ("grade", "-a", "annn", "q1", "d1", "1"),
    ("grade", "-a", "annn", "--cant-judge", "q1", "d1"),
    ("queue", "-a", "annn"),
    ("judge", "-a", "annn"),  # refused before the screen opens
])
def test_a_typo_is_refused_with_the_nearest_name(campaign, command):
    result = run(campaign, *command)
    assert result.exit_code == 1
    assert "'annn' is not an assessor of this campaign (did you mean 'ann'?)" in _error(result)
    assert "pool -a NAME" in _error(result) and "--new" in _error(result)
    assert _names(campaign) == ["ann", "bob"]  # nothing created


def test_new_makes_an_assessor_on_purpose(campaign):
    cli_ok(campaign, "grade", "-a", "cho", "--new", "--anywhere", "q1", "d1", "2")
    assert _names(campaign) == ["ann", "bob", "cho"]
    # and the name is an assessor from then on
    cli_ok(campaign, "grade", "-a", "cho", "--anywhere", "q1", "d2", "1")


def test_before_any_pool_names_are_free(db_url, tmp_path):
    (tmp_path / "docs.jsonl").write_text(DOCS)
    (tmp_path / "queries.jsonl").write_text(QUERIES)
    cli_ok(db_url, "import", "queries", str(tmp_path / "queries.jsonl"))
    cli_ok(db_url, "import", "docs", str(tmp_path / "docs.jsonl"))
    cli_ok(db_url, "grade", "-a", "zed", "q1", "d1", "1")
    assert _names(db_url) == ["zed"]


def test_a_lead_who_adjudicates_is_not_an_assessor(campaign):
    cli_ok(campaign, "grade", "-a", "ann", "q1", "d1", "0")
    cli_ok(campaign, "grade", "-a", "bob", "q1", "d1", "2")
    cli_ok(campaign, "adjudicate", "q1", "d1", "1", "--lead", "Eve Lead")
    assert _names(campaign) == ["ann", "bob"]
    db = Database.open(campaign, create=False)
    try:
        assert [a.name for a in watch_assessors(db).assessors] == ["ann", "bob"]
    finally:
        db.close()
    # the decision is still recorded under the lead's name
    assert "by Eve Lead" in cli_ok(campaign, "adjudicate", "q1", "d1", "2", "--lead", "Eve Lead")
    exported = cli_ok(campaign, "export", "qrels", "--consensus", "adjudicated")
    assert "q1 0 d1 2" in exported
    # and a lead is not an assessor to judge as
    result = run(campaign, "grade", "-a", "Eve Lead", "q1", "d2", "1")
    assert result.exit_code == 1 and "is not an assessor" in _error(result)


def test_repeat_on_an_existing_queue_says_why_none_were_added(campaign):
    result = run(campaign, "pool", "--depth", "6", "-a", "ann", "-a", "cho", "--repeat", "0.5")
    assert result.exit_code == 0, result.output
    assert "ann already had a queue and got no new documents" in result.stderr
    assert "cho already" not in result.stderr  # cho is new: cho gets repeats
    rows = {line.split("│")[1].strip(): line for line in result.stdout.splitlines() if "│" in line}
    assert rows["cho"].split("│")[3].strip() == "6"  # round(0.5 * 12) hidden repeats
    assert rows["ann"].split("│")[3].strip() == "0"


def test_list_assessors_names_what_assigned_counts(campaign):
    note = cli_ok(campaign, "list", "assessors").splitlines()[-1]
    assert "assigned counts documents (first showings)" in note
    assert "the judging screen counts items, assigned + hidden repeats" in note


def test_serve_link_refuses_a_name_that_is_not_an_assessor(campaign):
    """Issue 37 #12: `serve link -a NAME` created the person silently, and the browser's
    app then gave them the whole pool. The roster's rule, as `judge`: refused with the
    nearest name; `--create` makes the assessor on purpose."""
    result = run(campaign, "serve", "link", "-a", "annn")
    assert result.exit_code == 1
    assert "'annn' is not an assessor of this campaign (did you mean 'ann'?)" in _error(result)
    assert "--create" in _error(result)
    assert _names(campaign) == ["ann", "bob"]  # nothing created
    assert "annn" not in cli_ok(campaign, "serve", "links")  # and no link
    assert "/s/" in cli_ok(campaign, "serve", "link", "-a", "ann")  # an assessor: fine
    assert "/s/" in cli_ok(campaign, "serve", "link", "-a", "cho", "--create")
    from workbench.campaign.assessors.roster import check_assessor

    db = Database.open(campaign)
    try:
        check_assessor(db, "cho")  # an assessor from then on (the app gives it the pool)
    finally:
        db.close()


def test_the_browsers_app_refuses_a_name_that_is_not_an_assessor(campaign, capsys):
    """The served app checks the bound name through the roster before it opens."""
    from workbench.cli.served_app import run as run_served
    from workbench.serve.binding import Binding

    db = Database.open(campaign)
    try:
        assert run_served(db, Binding("assessor", "annn", 80, 24)) == 2
    finally:
        db.close()
    assert "did you mean 'ann'?" in capsys.readouterr().err
    assert _names(campaign) == ["ann", "bob"]
