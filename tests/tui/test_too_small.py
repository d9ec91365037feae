"""At 20×6 the document was invisible but the digits still graded it: the
app is covered by a "terminal too small" screen that takes the keys until it is larger."""

from __future__ import annotations

from tests.tui.helpers import judgments, screen_text, settle
from workbench.tui.app import make_app
from workbench.tui.screens.judge import JudgeScreen
from workbench.tui.screens.too_small import TooSmallScreen


async def test_a_tiny_terminal_grades_nothing_until_it_is_large_enough(campaign):
    db, camp = campaign
    first = camp.queues["q1"]["alice"][0]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=(20, 6)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, TooSmallScreen)
        assert "too small" in screen_text(app)
        await pilot.press("2", "3")
        await settle(app, pilot)
        assert judgments(db, "alice") == {}
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        assert isinstance(app.screen, JudgeScreen)
        assert f"Document {first}" in screen_text(app)
        await pilot.press("2")
        await settle(app, pilot)
        assert judgments(db, "alice") == {("q1", first): 2}
