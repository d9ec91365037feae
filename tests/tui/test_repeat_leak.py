"""Issue 36 #3 / 37 #11: a hidden repeat's first showing, not judged yet, said "Judged" in
green on the judging screen (and so in the browser, which serves the same screen): the
assessor could tell which document would come back. Every assessor screen is scanned: an
item says no more about itself than any other item in its state (assessors/visibility.py)."""

from __future__ import annotations

from tests.tui.factory import build_campaign
from tests.tui.helpers import screen_text, settle, settle_until
from workbench.tui.app import make_app
from workbench.tui.screens.assessor_select import AssessorScreen
from workbench.tui.screens.judge import JudgeScreen
from workbench.tui.screens.query_list import QueryListScreen

SIZE = (150, 44)


def _status(text: str) -> str:
    """The document view's status line: what the item says about itself."""
    for word in ("Judged", "Your grade", "You marked it"):
        if word in text:
            return word
    return ""


async def _scan(app, pilot, screen: JudgeScreen) -> None:
    """Each item of the queue in turn: its status is its state's, whoever it is."""
    items = screen.items
    for index, item in enumerate(items):
        screen._set_cursor(index)
        await settle(app, pilot, rounds=2)
        shown = _status(screen_text(app))
        if not item.judged:
            assert shown == "", (index, item.document, shown)  # an unjudged item says nothing
    pending = any(it.repeat and not it.judged for it in items)
    states = set()
    for index, item in enumerate(items):
        if item.judged:
            screen._set_cursor(index)
            await settle(app, pilot, rounds=2)
            states.add(_status(screen_text(app)))
    if pending:  # every judged item alike: none stands out as the repeat's first showing
        assert len(states) <= 1, states


async def test_no_assessor_screen_tells_the_hidden_repeat(sqlite_db):
    db = sqlite_db
    camp = build_campaign(db, n_queries=1, n_systems=2, depth=4, repeat_last=True, markup_doc=False)
    order = camp.queues["q1"]["alice"]
    app = make_app(db)  # the start screen, the query list, then the judging screen
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, AssessorScreen)
        assert "Judged" not in screen_text(app)
        await pilot.press("enter")  # alice
        await settle_until(app, pilot, lambda: isinstance(app.screen, QueryListScreen))
        assert "Judged" not in screen_text(app)
        await pilot.press("enter")  # q1
        await settle_until(app, pilot, lambda: isinstance(app.screen, JudgeScreen))
        screen = app.screen
        assert screen.items[-1].repeat and screen.items[-1].document == screen.items[0].document == order[0]
        # the first document shown is the repeat's first showing, not judged yet
        assert screen.cursor == 0 and "Judged" not in screen_text(app)
        await _scan(app, pilot, screen)
        # judge the first showing and one more: both judged items alike while the repeat waits
        screen._set_cursor(0)
        await settle(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        await pilot.press("1")
        await settle(app, pilot)
        assert sum(it.judged for it in screen.items) == 2
        await _scan(app, pilot, screen)
        await pilot.press("escape")  # back to the query list
        await settle_until(app, pilot, lambda: isinstance(app.screen, QueryListScreen))
        assert "Judged" not in screen_text(app)
