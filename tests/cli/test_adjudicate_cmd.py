"""`workbench adjudicate`: the final grade under the lead's own name (--lead or
$WORKBENCH_LEAD), refused when that name is an assessor who graded the item unless
--same-person, and used at once by the adjudicated qrels (each backend)."""

from __future__ import annotations

import pytest

from tests.cli.helpers import cli_ok, run
from workbench.cli import main

RUN_A = ["q1 Q0 d1 1 3.5 A", "q1 Q0 d2 2 3.0 A"]


@pytest.fixture
def campaign(db_url, tmp_path):
    (tmp_path / "a.run").write_text("\n".join(RUN_A) + "\n")
    cli_ok(db_url, "import", "run", str(tmp_path / "a.run"))
    cli_ok(db_url, "pool", "--depth", "2", "-a", "ann", "-a", "bob")
    cli_ok(db_url, "grade", "-a", "ann", "q1", "d1", "2")
    cli_ok(db_url, "grade", "-a", "bob", "q1", "d1", "0")
    return db_url


def qrels(url) -> list[str]:
    return cli_ok(url, "export", "qrels", "--consensus", "adjudicated").splitlines()


def test_adjudicate_records_the_leads_own_name(campaign):
    out = cli_ok(campaign, "adjudicate", "q1", "d1", "1", "--lead", "Dana Lee", "--note", "partly")
    assert out == "q1 d1: final grade 1 (was none), by Dana Lee\n"
    assert "q1 0 d1 1" in qrels(campaign)
    history = cli_ok(campaign, "export", "judgments", "--history").splitlines()
    assert any(line.startswith("q1,d1,Dana Lee,1,partly,") and line.endswith(",adjudicate")
               for line in history)
    # the lead grades nothing: agreement counts the two assessors only
    assert '"assessors": [\n    "ann",\n    "bob"\n  ]' in cli_ok(campaign, "agree", "--format", "json")
    out = cli_ok(campaign, "adjudicate", "q1", "d1", "--clear", env={"WORKBENCH_LEAD": "Dana Lee"})
    assert out == "q1 d1: final grade removed (was 1), by Dana Lee\n"


def test_a_lead_name_that_graded_the_item_is_refused_unless_same_person(campaign, capsys):
    code = main(["--db", campaign, "adjudicate", "q1", "d1", "2", "--lead", "ann"])
    err = capsys.readouterr().err
    assert code == 1
    assert err == ("workbench: lead name 'ann' is an assessor who graded q1 d1 (grade 2): "
                   "adjudicate under your own name (--lead NAME), or pass --same-person if you "
                   "are ann and mean to decide on your own grade\n")
    assert ",adjudicate" not in cli_ok(campaign, "export", "judgments", "--history")
    out = cli_ok(campaign, "adjudicate", "q1", "d1", "2", "--lead", "ann", "--same-person")
    assert out == "q1 d1: final grade 2 (was none), by ann\n"


def test_adjudicate_usage(campaign, capsys):
    assert main(["--db", campaign, "adjudicate", "q1", "d1", "2"]) == 2  # no --lead
    assert "--lead" in capsys.readouterr().err
    assert main(["--db", campaign, "adjudicate", "q1", "d1", "--lead", "Dana"]) == 2
    assert main(["--db", campaign, "adjudicate", "q1", "d1", "2", "--clear", "--lead", "Dana"]) == 2
    assert main(["--db", campaign, "adjudicate", "q1", "d1", "7", "--lead", "Dana"]) == 1
    assert "not on the campaign scale" in capsys.readouterr().err
    assert main(["--db", campaign, "adjudicate", "q1", "d1", "1", "--lead", "Da\tna"]) == 1
    assert ",adjudicate" not in cli_ok(campaign, "export", "judgments", "--history")
