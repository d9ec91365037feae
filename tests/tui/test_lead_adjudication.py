"""Disagreements -> open -> read -> final grade: the adjudication row and event are on disk,
and the scoreboard under consensus:adjudicated changes (as `workbench score` says)."""

from __future__ import annotations

from sqlalchemy import select
from textual.widgets import DataTable, Input, Select, Static

from tests.tui.helpers import screen_text, settle
from tests.tui.lead_helpers import SIZE, cli_json, open_mode, rows, sample_db, wait_for  # noqa: F401
from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.agreement.adjudication import list_disagreements, read_item
from workbench.campaign.scoring.qrels import derive_qrels
from workbench.store.models import Adjudication, Assessor, JudgmentEvent
from workbench.tui.app import make_app
from workbench.tui.screens.adjudicate import AdjudicateScreen
from workbench.tui.screens.disagreements import DisagreementsScreen
from workbench.tui.screens.lead_name import LeadNameScreen
from workbench.tui.screens.scoreboard import ScoreboardScreen


def _qrels(db, method):
    return {(q, d): g for q, d, g in derive_qrels(db, QrelsSource.consensus(method)).rows()}


async def test_adjudicate_a_disagreement_changes_qrels_and_scoreboard(sample_db):
    db = sample_db
    app = make_app(db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f4", DisagreementsScreen)
        dt = screen.query_one("#dg-table", DataTable)
        assert dt.row_count == len(list_disagreements(db)) == 109
        await pilot.press("2")  # spread >= 2
        await wait_for(app, pilot, lambda: screen.min_spread == 2 and dt.row_count == 13)
        wide = list_disagreements(db, min_spread=2)
        assert [(r[0], r[1]) for r in rows(dt)] == [(i.query, i.document) for i in wide]
        # filter by query, typed
        target = wide[0]
        await pilot.press("slash")
        screen.query_one("#dg-query", Input).value = target.query
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: screen.query_filter == target.query and all(
            r[0] == target.query for r in rows(dt)))
        await settle(app, pilot)
        dt.move_cursor(row=[r[1] for r in rows(dt)].index(target.document))
        # open: the lead's own name is asked first (once), then the query, the document
        # text and every grade are shown
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, LeadNameScreen))
        await pilot.press(*"Dana Lee", "enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, AdjudicateScreen)
                       and app.screen.item is not None)
        await settle(app, pilot)
        text = screen_text(app)
        item = read_item(db, target.query, target.document)
        assert item.title in text and item.text.split()[0] in text
        for name, grade in target.grades:
            assert f"{name}: {grade}" in text
        final = 3 if target.majority <= 1 else 0
        # a note with markup-like text is stored as typed and does not break the screen
        await pilot.press("n")
        await pilot.press(*"[b]see[/x]")
        await pilot.press("enter")
        await pilot.press(str(final))
        await wait_for(app, pilot, lambda: isinstance(app.screen, DisagreementsScreen))
        await settle(app, pilot)
        with db.read() as s:
            row = s.execute(select(Adjudication.grade, Adjudication.note, Assessor.name)
                            .join(Assessor, Assessor.id == Adjudication.adjudicator_id)).all()
            kinds = s.execute(select(JudgmentEvent.kind, JudgmentEvent.new_grade)
                              .where(JudgmentEvent.kind == "adjudicate")).all()
        assert [tuple(r) for r in row] == [(final, "[b]see[/x]", "Dana Lee")]
        assert app.lead_name == "Dana Lee"
        assert [tuple(k) for k in kinds] == [("adjudicate", final)]
        assert _qrels(db, "adjudicated")[(target.query, target.document)] == final
        assert _qrels(db, "majority")[(target.query, target.document)] == target.majority
        # the list shows the final grade
        await wait_for(app, pilot, lambda: any(
            r[1] == target.document and r[-1] == str(final) for r in rows(dt)))

        # scoreboard, source adjudicated: the CLI's numbers, which now differ from majority
        board_screen = await open_mode(app, pilot, "f2", ScoreboardScreen)
        board_screen.query_one("#sb-source", Select).value = QrelsSource.consensus("adjudicated")
        await wait_for(app, pilot, lambda: board_screen.data.table.source == "consensus:adjudicated")
        await settle(app, pilot)
        adjudicated = {s["system"]: s["mean"] for s in cli_json(db, "score", "--consensus", "adjudicated")["systems"]}
        majority = {s["system"]: s["mean"] for s in cli_json(db, "score")["systems"]}
        assert adjudicated != majority
        sb = board_screen.query_one("#sb-table", DataTable)
        shown = {r[1]: r[3] for r in rows(sb)}  # the first measure's column
        assert shown == {s: f"{v['nDCG@10']:.4f}" for s, v in adjudicated.items()}
        assert app.screen.data.table.queries  # built from the adjudicated qrels


async def test_clearing_a_final_grade_and_pending_filter(sample_db):
    db = sample_db
    first = list_disagreements(db)[0]
    app = make_app(db, lead=True)
    app.lead_name = "Dana"  # asked earlier in this session
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f4", DisagreementsScreen)
        dt = screen.query_one("#dg-table", DataTable)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, AdjudicateScreen)
                       and app.screen.item is not None)
        await pilot.press("2")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DisagreementsScreen))
        await pilot.press("u")  # pending only: the adjudicated item leaves the list
        await wait_for(app, pilot, lambda: screen.pending_only and dt.row_count == 108)
        assert (first.query, first.document) not in {(r[0], r[1]) for r in rows(dt)}
        await pilot.press("u")
        await wait_for(app, pilot, lambda: not screen.pending_only and dt.row_count == 109)
        dt.move_cursor(row=0)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, AdjudicateScreen)
                       and app.screen.item is not None)
        assert app.screen.item.final == 2
        await pilot.press("x")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DisagreementsScreen))
        with db.read() as s:
            assert s.scalar(select(Adjudication.grade)) is None
        # a grade off the scale stays in the dialog as a message
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, AdjudicateScreen)
                       and app.screen.item is not None)
        await pilot.press("7")
        await settle(app, pilot)
        assert isinstance(app.screen, AdjudicateScreen)
        assert "grade 7 is not on the campaign scale (0, 1, 2, 3)" in screen_text(app)


async def test_export_adjudicated_qrels_and_history_from_the_screen(sample_db, tmp_path):
    from click.testing import CliRunner

    from workbench.campaign.agreement.adjudication import adjudicate
    from workbench.cli import cli

    db = sample_db
    item = list_disagreements(db)[0]
    adjudicate(db, "lead", item.query, item.document, 3)
    app = make_app(db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(app, pilot, "f4", DisagreementsScreen)
        written = {}
        for fmt, name in (("adjudicated qrels", "adj.qrels"), ("judgments with history", "hist.csv")):
            await pilot.press("e")
            await settle(app, pilot)
            dialog = app.screen
            dialog.query_one("#export-format", Select).value = fmt
            await pilot.pause()
            path = dialog.query_one("#export-path", Input)
            assert path.value.endswith(".qrels" if "qrels" in fmt else ".csv")
            assert "-".join(fmt.split()) in path.value  # the suggestion follows the format
            path.value = str(tmp_path / name)
            path.focus()
            await pilot.press("enter")
            await wait_for(app, pilot, (tmp_path / name).exists)
            written[fmt] = (tmp_path / name).read_text()
    cli_qrels = CliRunner().invoke(cli, ["--db", db.url, "export", "qrels", "--consensus", "adjudicated"])
    assert written["adjudicated qrels"] == cli_qrels.output
    assert f"{item.query} 0 {item.document} 3" in written["adjudicated qrels"].splitlines()
    history = written["judgments with history"].splitlines()
    assert history[0] == "query,document,assessor,grade,note,seconds,updated_at,event"
    assert any(line.startswith(f"{item.query},{item.document},lead,3,") and line.endswith(",adjudicate")
               for line in history)


async def test_adjudicate_from_a_ranked_list(sample_db):
    """Scores -> system -> query -> a document: read it and set its final grade there."""
    from workbench.tui.screens.query_detail import QueryDetailScreen
    from workbench.tui.screens.system_detail import SystemDetailScreen

    db = sample_db
    app = make_app(db, lead=True)
    app.lead_name = "Dana"
    async with app.run_test(size=SIZE) as pilot:
        board = await open_mode(app, pilot, "f2", ScoreboardScreen)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, SystemDetailScreen)
                       and app.screen.data is not None)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, QueryDetailScreen)
                       and app.screen.data is not None)
        ranked = app.screen
        await settle(app, pilot)
        dt = ranked.query_one("#qd-table", DataTable)
        top = rows(dt)[0]
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, AdjudicateScreen)
                       and app.screen.item is not None)
        await pilot.press("0")
        await wait_for(app, pilot, lambda: app.screen is ranked)
        await wait_for(app, pilot, lambda: rows(dt)[0][-1] == "0")
        with db.read() as s:
            assert s.execute(select(Adjudication.grade)).scalars().all() == [0]
        assert rows(dt)[0][1] == top[1]  # the same document, now with its final grade
        assert isinstance(board, ScoreboardScreen)


async def test_names_and_ids_typed_or_set_by_the_lead_are_checked(sample_db, monkeypatch):
    """A lead name ($WORKBENCH_LEAD) that could not be stored opens no
    adjudication (a notification says why); a typed query filter that could not be an id
    says so instead of filtering on it."""
    db = sample_db
    monkeypatch.setenv("WORKBENCH_LEAD", "the\tlead")
    app = make_app(db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f4", DisagreementsScreen)
        await pilot.press("enter")
        reason = ("WORKBENCH_LEAD: assessor name 'the\\tlead' contains '\\t'; only spaces may "
                  "separate the words of a name")
        await wait_for(app, pilot, lambda: any(n.message == reason for n in app._notifications))
        assert app.screen is screen
        await pilot.press("slash")
        screen.query_one("#dg-query", Input).value = "q 1"
        await pilot.press("enter")
        reason = "query id 'q 1' contains whitespace (' '); an id is one column of a TREC file"
        await wait_for(app, pilot, lambda: any(n.message == reason for n in app._notifications))
        assert screen.query_filter is None
    with db.read() as s:
        assert "the\tlead" not in s.scalars(select(Assessor.name)).all()


async def test_a_lead_name_that_is_an_assessor_is_asked_about(sample_db):
    """Typing a grading assessor's name asks "are you that person?": n types another name,
    y adjudicates as them knowingly (the same person); Esc at the name adjudicates nothing."""
    db = sample_db
    item = list_disagreements(db)[0]
    grader = item.grades[0][0]
    app = make_app(db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f4", DisagreementsScreen)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, LeadNameScreen))
        await pilot.press("escape")
        await wait_for(app, pilot, lambda: app.screen is screen)
        assert app.lead_name is None
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, LeadNameScreen))
        await pilot.press(*grader, "enter")
        await wait_for(app, pilot, lambda: app.screen.confirming == grader)
        await settle(app, pilot)
        asked = " ".join(str(app.screen.query_one("#lead-status", Static).content).split())
        assert asked.startswith(f"{grader!r} is an assessor with grades in this campaign. Are you {grader}?")
        assert "Are you" in screen_text(app)
        await pilot.press("n")
        await wait_for(app, pilot, lambda: app.screen.confirming is None)
        await pilot.press(*grader, "enter")
        await wait_for(app, pilot, lambda: app.screen.confirming == grader)
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, AdjudicateScreen)
                       and app.screen.item is not None)
        assert f"(as {grader})" in screen_text(app)
        await pilot.press("3")
        await wait_for(app, pilot, lambda: app.screen is screen)
        assert (app.lead_name, app.lead_same_person) == (grader, True)
    with db.read() as s:
        row = s.execute(select(Adjudication.grade, Assessor.name)
                        .join(Assessor, Assessor.id == Adjudication.adjudicator_id)).all()
    assert [tuple(r) for r in row] == [(3, grader)]
