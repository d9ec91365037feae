"""Imported names and texts with markup-like brackets show literally on every lead screen
(docs/architecture.md#known-pitfalls: `[/x]` crashed Static, DataTable and notify)."""

from __future__ import annotations

from sqlalchemy import update

from tests.tui.factory import MARKUP_TEXT, build_campaign
from tests.tui.helpers import screen_text, settle
from tests.tui.lead_helpers import SIZE, open_mode, wait_for
from workbench.campaign.judging.grades import record_grade
from workbench.store.models import Document, System
from workbench.tui.app import make_app
from workbench.tui.screens.adjudicate import AdjudicateScreen
from workbench.tui.screens.agreement import AgreementScreen
from workbench.tui.screens.disagreements import DisagreementsScreen
from workbench.tui.screens.query_detail import QueryDetailScreen
from workbench.tui.screens.scoreboard import ScoreboardScreen
from workbench.tui.screens.systems import SystemsScreen

ODD = "[b]al[/x]"
TAG = "[/red]sys[link=x]"


async def test_markup_like_names_render_literally(sqlite_db):
    db = sqlite_db
    camp = build_campaign(db, n_queries=2, n_systems=2, depth=5, assessors=(ODD, "bob"))
    q = camp.queries[0]
    first = min(camp.queues[q][ODD])  # disagreements come sorted by document id
    with db.write.begin() as s:
        s.execute(update(System).where(System.id == 1).values(tag=TAG))
        s.execute(update(Document).where(Document.ext_id == first).values(
            text=MARKUP_TEXT, title="[bold]T[/x]"))
    for i, doc in enumerate(camp.queues[q][ODD]):
        record_grade(db, ODD, q, doc, i % 3)
        record_grade(db, "bob", q, doc, (i + 1) % 3)  # every item a disagreement
    app = make_app(db, lead=True)
    app.lead_name = "Dana"  # the lead named themselves earlier in this session
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(app, pilot, "f2", ScoreboardScreen)
        assert TAG in screen_text(app)
        await pilot.press("o")
        await settle(app, pilot)
        assert f"assessor:{ODD}" in screen_text(app)
        await pilot.press("escape")
        screen = app.screen
        from textual.widgets import DataTable

        dt = screen.query_one("#sb-table", DataTable)
        dt.focus()
        dt.move_cursor(row=[str(dt.get_row_at(i)[1]) for i in range(dt.row_count)].index(TAG))
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: app.screen is not screen and app.screen.data is not None)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, QueryDetailScreen)
                       and app.screen.data is not None)
        await settle(app, pilot)
        assert ODD in screen_text(app)
        await open_mode(app, pilot, "f3", AgreementScreen)
        assert ODD in screen_text(app)
        await open_mode(app, pilot, "f5", SystemsScreen)
        assert f"assessor:{ODD}" in screen_text(app)
        await open_mode(app, pilot, "f4", DisagreementsScreen)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, AdjudicateScreen)
                       and app.screen.item is not None)
        await settle(app, pilot)
        text = screen_text(app)
        assert f"{ODD}: " in text
        assert app.screen.document == first
        assert MARKUP_TEXT[:30] in text and "[bold]T[/x]" in text
