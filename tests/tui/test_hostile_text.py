"""Imported text with escape sequences, C1 codes, DEL, bidi overrides and markup shows as
visible characters on every screen that shows imported text, never raw."""

from __future__ import annotations

from sqlalchemy import update

from tests.hostile import CONTROL, MARKUP, RAW, SHOWN, TEXT
from tests.tui.factory import build_campaign
from tests.tui.helpers import screen_text, settle
from tests.tui.lead_helpers import SIZE, open_mode, wait_for
from workbench.campaign.scale import set_scale
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.settings import set_guidelines
from workbench.store.models import Document, Query
from workbench.tui.app import make_app
from workbench.tui.screens.adjudicate import AdjudicateScreen
from workbench.tui.screens.disagreements import DisagreementsScreen
from workbench.tui.screens.guidelines import GuidelinesScreen
from workbench.tui.screens.judge import JudgeScreen
from workbench.tui.screens.query_detail import QueryDetailScreen
from workbench.tui.screens.scoreboard import ScoreboardScreen


def _hostile_campaign(db):
    camp = build_campaign(db, n_queries=2, n_systems=2, depth=5, assessors=("alice", "bob"),
                          markup_doc=False)
    with db.write.begin() as s:
        s.execute(update(Document).values(title="T " + CONTROL, text=TEXT))
        s.execute(update(Query).values(title="Q " + CONTROL + MARKUP, description=TEXT,
                                       narrative="N " + CONTROL))
    return camp


def _clean(app) -> str:
    text = screen_text(app)
    assert RAW.search(text) is None, repr(RAW.search(text).group())
    return text


async def test_the_judging_screen_shows_escapes_as_visible_characters(sqlite_db):
    db = sqlite_db
    _hostile_campaign(db)
    set_scale(db, f"0=no {CONTROL},1=yes")
    set_guidelines(db, "G " + CONTROL)
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        # the guidelines open by themselves the first time (campaign's and the query's own)
        assert isinstance(app.screen, GuidelinesScreen)
        assert "G " + SHOWN[:12] in _clean(app) and "N " + SHOWN[:12] in _clean(app)
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, JudgeScreen)
        assert "no " + SHOWN[:6] in _clean(app)  # the scale legend
        await pilot.press("n")  # the note dialog quotes the document
        await settle(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        text = _clean(app)
        assert "Q " + SHOWN[:12] in text  # the query panel
        assert "T " + SHOWN[:12] in text  # the document's title
        assert SHOWN[:12] in text.replace("T " + SHOWN[:12], "")  # and its text
        assert MARKUP in text
        app.notify("note: " + CONTROL)  # a notification quoting outside text
        await pilot.pause()
        _clean(app)
        await pilot.press("escape")  # the assessor's query list: the query titles
        await settle(app, pilot)
        assert "Q " + SHOWN[:6] in _clean(app)


async def test_lead_screens_show_escapes_as_visible_characters(sqlite_db):
    db = sqlite_db
    camp = _hostile_campaign(db)
    q = camp.queries[0]
    for i, doc in enumerate(camp.queues[q]["alice"]):
        record_grade(db, "alice", q, doc, i % 3, note="n " + CONTROL)
        record_grade(db, "bob", q, doc, (i + 1) % 3)
    app = make_app(db, lead=True)
    app.lead_name = "Dana"
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(app, pilot, "f2", ScoreboardScreen)
        _clean(app)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: app.screen.data is not None)
        await settle(app, pilot)
        assert SHOWN[:6] in _clean(app)  # per-query scores list the query titles
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, QueryDetailScreen)
                       and app.screen.data is not None)
        await settle(app, pilot)
        assert "T " + SHOWN[:6] in _clean(app)  # the document titles
        await open_mode(app, pilot, "f4", DisagreementsScreen)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, AdjudicateScreen)
                       and app.screen.item is not None)
        await settle(app, pilot)
        text = _clean(app)
        assert "n " + SHOWN[:6] in text and "N " + SHOWN[:6] in text  # a note, the narrative


async def test_machine_screens_show_names_as_data(sqlite_db, tmp_path):
    """The screens that came with machine assessors: the calibration screen (F9), the
    scoreboard's source menu (a hybrid source named after the machine) show a machine named with markup as it is, never parsed; the assessor picker beside it stays clean."""
    from textual.widgets import Select

    from tests.campaign.machine_campaign import build_machine_campaign
    from tests.tui.helpers import settle_until
    from workbench.tui.screens.assessor_select import AssessorScreen
    from workbench.tui.screens.calibration import CalibrationScreen

    machine = "[bold]llm[red]"  # the helper names a file after it: no slash
    build_machine_campaign(sqlite_db, tmp_path / "f", human_queries=5, machine=machine)
    app = make_app(sqlite_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f9")
        await settle_until(app, pilot, lambda: isinstance(app.screen, CalibrationScreen)
                           and app.screen.data is not None)
        text = _clean(app)
        assert f"machine 1 of 1: {machine}" in text and f"{machine} against" in text
        board = await open_mode(app, pilot, "f2", ScoreboardScreen)
        labels = [str(prompt) for prompt, _ in board.query_one("#sb-source", Select)._options]
        assert f"hybrid:{machine}" in labels
    app = make_app(sqlite_db)  # no assessor given: the picker lists every name
    async with app.run_test(size=SIZE) as pilot:
        await settle_until(app, pilot, lambda: isinstance(app.screen, AssessorScreen))
        await settle(app, pilot)
        text = _clean(app)
        assert "alice" in text and "[red]" not in text.replace(machine, "")


async def test_table_refills_take_str_cells_as_text_never_markup():
    """DataTable parses a str cell as markup ("[/x]" raised MarkupError): fill_table, the one
    way lead screens fill their tables, hands every str cell over as sanitised Text."""
    from textual.app import App
    from textual.widgets import DataTable

    from workbench.tui.tables import fill_table

    class One(App):
        def compose(self):
            yield DataTable()

    app = One()
    async with app.run_test() as pilot:
        table = app.query_one(DataTable)
        table.add_columns("name", "title")
        fill_table(table, [("k", [MARKUP, "T " + CONTROL])])
        await pilot.pause()
        name, title = table.get_row("k")
        assert name.plain == MARKUP, repr(name.plain)
        assert title.plain == "T " + SHOWN, (repr(title.plain), repr("T " + SHOWN))
