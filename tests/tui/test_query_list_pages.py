"""The assessor's query list reads its rows a page at a time from SQL, not
every query into a table: the first page, then the totals, then the pages down to the first
query with work left, and more as the cursor nears the last row loaded."""

from __future__ import annotations

from tests.tui.factory import build_campaign
from tests.tui.helpers import screen_text, settle, settle_until
from workbench.campaign.judging.grades import record_grade
from workbench.tui.app import make_app
from workbench.tui.screens import query_list
from workbench.tui.screens.query_list import QueryListScreen

SIZE = (150, 44)


async def test_the_list_pages_to_the_first_open_query_and_loads_more_on_the_way_down(
        sqlite_db, monkeypatch):
    db = sqlite_db
    camp = build_campaign(db, n_queries=12, n_systems=2, depth=3, assessors=("alice",),
                          markup_doc=False)
    for q in camp.queries[:5]:
        for d in camp.queues[q]["alice"]:
            record_grade(db, "alice", q, d, 1)
    monkeypatch.setattr(query_list, "PAGE", 2)
    monkeypatch.setattr(query_list, "NEAR_END", 1)
    pages = []
    real = query_list.assessing.query_progress_page
    monkeypatch.setattr(query_list.assessing, "query_progress_page",
                        lambda *a: pages.append(a[2:]) or real(*a))
    pooled = sum(len(camp.queues[q]["alice"]) for q in camp.queries)
    judged = sum(len(camp.queues[q]["alice"]) for q in camp.queries[:5])
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")  # alice, the only assessor: her query list
        await settle_until(app, pilot, lambda: isinstance(app.screen, QueryListScreen))
        screen = app.screen
        await settle_until(app, pilot, lambda: screen.progress and screen._moved)
        await settle(app, pilot)
        # q6 is the first with work left: pages of 2 down to it (and one more, the
        # cursor being near the end), not all 12
        loaded = [p.query for p in screen.progress]
        assert loaded[:6] == camp.queries[:6] and len(loaded) <= 8
        assert screen.query_one("#ql-table").cursor_row == 5
        assert f"alice: {judged}/{pooled} items judged · 5/12 queries done" in screen_text(app)
        assert pages[0][0] == 0 and len(pages) <= 4
        for _ in range(6):  # down the list: the next pages load on the way
            await pilot.press("down")
            await settle(app, pilot)
        assert [p.query for p in screen.progress] == camp.queries
        assert screen._more is None
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen.query_ext == camp.queries[-1]


async def test_the_overall_bar_does_not_animate_under_the_judging_screen(sqlite_db):
    """`workbench judge` pushes the judging screen before the list beneath loads: the list's
    overall bar stays hidden with a total (a bar without one animates at 15 frames a second,
    each frame repainting the whole judging screen), and shows the totals once back."""
    from textual.widgets import ProgressBar

    from workbench.tui.screens.judge import JudgeScreen

    db = sqlite_db
    camp = build_campaign(db, n_queries=3, n_systems=2, depth=3, assessors=("alice",),
                          markup_doc=False)
    first = camp.queries[0]
    for d in camp.queues[first]["alice"][:2]:
        record_grade(db, "alice", first, d, 1)
    pooled = sum(len(camp.queues[q]["alice"]) for q in camp.queries)
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle_until(app, pilot,
                           lambda: isinstance(app.screen, JudgeScreen) and app.screen.loaded)
        below = app.screen_stack[-2]
        assert isinstance(below, QueryListScreen)
        bar = below.query_one("#ql-overall", ProgressBar)
        assert not bar.display
        assert bar.percentage is not None  # not indeterminate: no animation timer
        assert bar.query_one("Bar").auto_refresh is None
        await pilot.press("escape")
        await settle_until(app, pilot, lambda: app.screen is below and bar.display)
        assert bar.total == pooled and bar.progress == 2
