"""Machine labels stay apart from people's: a consensus counts humans only, agreement and
the disagreement list leave machines out unless named, nobody grades, queues or undoes as
a machine, and no screen or command an assessor runs shows a machine label (blindness):
the judging screen, its progress, `queue` and `grade`'s messages. On both backends where
a database is involved; the machine labels come from a real autojudge run."""

from __future__ import annotations

import json

import pytest

from tests.machine.chat_server import ChatServer
from tests.tui.factory import build_campaign
from tests.tui.helpers import screen_text, settle
from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.agreement.adjudication import list_disagreements
from workbench.campaign.assessors.roster import grading as judging_assessors
from workbench.campaign.agreement.report import agreement_from_db
from workbench.campaign.judging.grades import record_grade, undo_last
from workbench.campaign.machine.autojudge import Request, make_plan, run
from workbench.campaign.scoring.qrels import derive_qrels
from workbench.campaign.scoring.sources import qrels_sources
from workbench.cli import main
from workbench.errors import UsageError

MACHINE_GRADE = 3


def _label_everything(db, name="m1", grade=MACHINE_GRADE) -> None:
    """A real autojudge run in which the machine gives `grade` to every pooled item."""
    table = {(f"q{i}", f"d{j:03d}"): f"##final score: {grade}" for i in range(1, 9) for j in range(1, 40)}
    with ChatServer(table) as server:
        request = Request(model=name, endpoint=server.url, concurrency=4)
        summary = run(db, request, make_plan(db, request))
    assert summary.labels > 0 and summary.failures == summary.errors == 0


@pytest.fixture
def camp(db):
    c = build_campaign(db, n_queries=2, assessors=("alice", "bob"), markup_doc=False)
    return db, c


def test_consensus_counts_people_only(camp):
    db, c = camp
    d1, d2 = c.queues["q1"]["alice"][:2]
    record_grade(db, "alice", "q1", d1, 1)
    record_grade(db, "bob", "q1", d1, 2)
    _label_everything(db)
    # majority of (1, 2) is 1 and mean 1.5 -> 2; with the machine's 3 they would be 1 and 2
    # (majority of 1, 2, 3) and mean 2: the machine's items (d2...) would appear too
    assert derive_qrels(db, source=QrelsSource.consensus("majority")).rows() == [("q1", d1, 1)]
    assert derive_qrels(db, source=QrelsSource.consensus("mean")).rows() == [("q1", d1, 2)]
    assert derive_qrels(db, source=QrelsSource.consensus("adjudicated")).rows() == [("q1", d1, 1)]
    # named, the machine is a source of its own (the lead's menu offers it)
    mine = derive_qrels(db, source=QrelsSource.assessor("m1")).rows()
    assert ("q1", d2, MACHINE_GRADE) in mine and all(g == MACHINE_GRADE for *_, g in mine)
    menu = [s.label for s in qrels_sources(db)]
    assert "assessor:m1" in menu and "hybrid:m1" in menu


def test_agreement_and_disagreements_leave_machines_out_unless_named(camp):
    db, c = camp
    docs = c.queues["q1"]["alice"][:4]
    for d, (a, b) in zip(docs, [(0, 0), (1, 1), (2, 1), (3, 3)]):
        record_grade(db, "alice", "q1", d, a)
        record_grade(db, "bob", "q1", d, b)
    _label_everything(db)
    report = agreement_from_db(db)
    assert list(report.assessors) == ["alice", "bob"]
    assert report.n_items == 4
    named = agreement_from_db(db, ["alice", "m1"])
    assert list(named.assessors) == ["alice", "m1"] and named.n_items == 4
    # alice gave 0 1 2 3, the machine 3 everywhere: observed agreement 1/4
    assert named.pairs[0].stats.observed == pytest.approx(0.25)
    assert judging_assessors(db) == ["alice", "bob"]
    assert judging_assessors(db, machines=True) == ["alice", "bob", "m1"]
    found = list_disagreements(db)
    assert [(x.query, x.document) for x in found] == [("q1", docs[2])]
    assert all(name != "m1" for x in found for name, _ in x.grades)


def test_nobody_grades_queues_or_undoes_as_a_machine(camp):
    db, c = camp
    _label_everything(db)
    d = c.queues["q1"]["alice"][0]
    with pytest.raises(UsageError, match="'m1' is a machine assessor"):
        record_grade(db, "m1", "q1", d, 1)
    with pytest.raises(UsageError, match="is a machine assessor"):
        undo_last(db, "m1")
    from workbench.campaign.pooling.build import make_pool

    with pytest.raises(UsageError, match="is a machine assessor"):
        make_pool(db, "depth", depth=3, assessors=["m1"])


def test_grade_and_queue_commands_show_no_machine_label(db_url, capsys):
    from workbench.campaign.database import Database

    db = Database.open(db_url)
    c = build_campaign(db, n_queries=2, assessors=("alice",), markup_doc=False)
    _label_everything(db)
    db.close()
    capsys.readouterr()
    queue = c.queues["q1"]["alice"]
    assert main(["--db", db_url, "queue", "-a", "alice", "q1", "--format", "jsonl"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [x["document"] for x in listed] == queue  # machine labels settle nothing of alice's
    assert all("grade" not in x for x in listed)
    assert main(["--db", db_url, "queue", "-a", "alice"]) == 0
    table = capsys.readouterr().out
    assert "m1" not in table and "machine" not in table
    assert main(["--db", db_url, "grade", "-a", "alice", "q1", queue[0], "1"]) == 0
    out, err = capsys.readouterr()
    assert out == f"ok q1 {queue[0]}\n" and "m1" not in err and str(MACHINE_GRADE) not in out + err


async def test_judging_screen_shows_no_machine_label(db):
    from workbench.tui.app import make_app
    from workbench.tui.screens.judge import JudgeScreen

    import asyncio

    c = build_campaign(db, n_queries=2, assessors=("alice",), markup_doc=False)
    await asyncio.to_thread(_label_everything, db)  # autojudge runs its own event loop
    app = make_app(db, assessor="alice")
    async with app.run_test(size=(150, 44)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        # every item ungraded: the machine's 3s are not alice's, and not shown
        assert screen.query_ext == "q1" and screen.cursor == 0
        assert [it.grade for it in screen.items] == [None] * len(c.queues["q1"]["alice"])
        text = screen_text(app)
        assert "m1" not in text and "machine" not in text.lower()
        await pilot.press("1")
        await settle(app, pilot)
        text = screen_text(app)
        assert "m1" not in text
        assert [it.grade for it in screen.items][:2] == [1, None]


def test_pace_and_drift_are_about_people(camp):
    from workbench.campaign.judging.pace import watch_assessors

    db, c = camp
    for d in c.queues["q1"]["alice"][:4]:
        record_grade(db, "alice", "q1", d, 1, seconds=10)
    _label_everything(db)
    watch = watch_assessors(db)
    assert [a.name for a in watch.assessors] == ["alice", "bob"]  # no m1
    assert not watch.watched("m1")
    # alice's agreement with the others: nobody else (a person) graded her items; the
    # machine's labels on them are not "others"
    import math

    assert math.isnan(watch.of("alice").agreement)


async def test_the_assessor_picker_offers_no_machine_and_refuses_its_name(db):
    import asyncio

    from workbench.tui.app import make_app
    from workbench.tui.screens.assessor_select import AssessorScreen

    build_campaign(db, n_queries=2, assessors=("alice",), markup_doc=False)
    await asyncio.to_thread(_label_everything, db)
    app = make_app(db)
    async with app.run_test(size=(150, 44)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, AssessorScreen)
        assert app.screen.names == ["alice"]
        assert "m1" not in screen_text(app)
        box = app.screen.query_one("#assessor-new")
        box.focus()
        await pilot.press("m", "1", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, AssessorScreen)  # refused: stays on the picker
        assert "documents judged" not in screen_text(app)  # no progress of the machine's
        assert [n.message for n in app._notifications][-1].startswith("'m1' is a machine assessor")


def test_judge_refuses_a_machine_name_before_the_screen_opens(db_url, monkeypatch, capsys):
    from workbench.campaign.database import Database
    from workbench.cli import tui_cmd

    db = Database.open(db_url)
    build_campaign(db, n_queries=1, assessors=("alice",), markup_doc=False)
    _label_everything(db)
    db.close()
    opened = []
    monkeypatch.setattr(tui_cmd, "open_tui", lambda *a, **k: opened.append(k))
    assert main(["--db", db_url, "judge", "--assessor", "m1"]) == 2
    assert "'m1' is a machine assessor" in capsys.readouterr().err and opened == []
    assert main(["--db", db_url, "judge", "--assessor", "alice"]) == 0
    assert opened == [{"assessor": "alice", "audience": "assessor screen"}]  # blind: no lead screen


def test_grade_as_a_machine_with_anywhere_is_refused_before_any_warning(db_url, capsys):
    """`grade -a MACHINE --anywhere` printed "graded anyway", then refused."""
    from workbench.campaign.database import Database

    db = Database.open(db_url)
    c = build_campaign(db, n_queries=2, assessors=("alice",), markup_doc=False)
    _label_everything(db)
    db.close()
    capsys.readouterr()
    doc = c.queues["q1"]["alice"][0]
    for extra in (["--anywhere"], ["--anywhere", "--cant-judge"]):
        args = ["--db", db_url, "grade", "-a", "m1", *extra, "q1", doc]
        assert main(args + ([] if "--cant-judge" in extra else ["1"])) == 2
        out, err = capsys.readouterr()
        assert "is a machine assessor" in err and "anyway" not in err and out == ""


def test_the_roster_lists_people_machines_and_panels_with_their_kinds(camp):
    """assessors/roster.py: one list with kinds; a lead who only adjudicated is not in it;
    the people of a consensus are the humans only."""
    from workbench.campaign.agreement.adjudication import adjudicate
    from workbench.campaign.assessors import roster
    from workbench.campaign.assessors.panels import create_panel

    db, c = camp
    d = c.queues["q1"]["alice"][0]
    record_grade(db, "alice", "q1", d, 1)
    _label_everything(db, "m1")
    _label_everything(db, "m2")
    create_panel(db, "both", ["m1", "m2"], "majority")
    adjudicate(db, "boss", "q1", d, 2)
    assert roster.members(db) == [
        roster.Member("alice", roster.HUMAN), roster.Member("bob", roster.HUMAN),
        roster.Member("m1", roster.MACHINE), roster.Member("m2", roster.MACHINE),
        roster.Member("panel:both", roster.PANEL)]
    assert roster.people(db) == ["alice", "bob"]
    assert roster.machines(db) == ["m1", "m2"]
    assert roster.kinds(db)["boss"] == roster.HUMAN  # a row, but not an assessor
    with pytest.raises(UsageError, match="'m1' is a machine assessor"):
        roster.check_assessor(db, "m1")
