"""The judging screen on a phone: at 40 columns (390 CSS px at 16 px in the
browser) it took the "too small" screen; now its narrow layout hides the queue list and
keeps the document and the scale bar, and a click on the scale bar grades (a tap, in the
browser), as the level's digit does."""

from __future__ import annotations

from tests.tui.helpers import judgments, screen_text, settle
from workbench.tui.app import make_app
from workbench.tui.screens.judge import JudgeScreen
from workbench.tui.widgets.scale_legend import GRADE_META


def _cell_of(app, grade: int) -> tuple[int, int]:
    """Screen (x, y) of a cell of the legend that carries `grade`."""
    legend = app.screen.query_one("#legend")
    region = legend.region
    for y in range(region.y, region.bottom):
        for x in range(region.x, region.right):
            if app.screen.get_style_at(x, y).meta.get(GRADE_META) == grade:
                return x, y
    raise AssertionError(f"grade {grade} not on the scale bar: {screen_text(app)}")


async def test_a_phone_width_shows_the_document_and_the_scale_without_the_list(campaign):
    db, camp = campaign
    first = camp.queues["q1"]["alice"][0]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=(40, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        assert screen.has_class("-narrow")
        assert not screen.query_one("#pool").display
        shown = screen_text(app)
        assert f"Document {first}" in shown
        assert "not judged yet" not in shown  # the list's lines
        legend = screen.query_one("#legend")
        assert legend.region.height >= 2 and legend.region.width == 40
        for grade in (0, 1, 2, 3):  # every level on the bar, none cut off
            _cell_of(app, grade)
        await pilot.press("2")
        await settle(app, pilot)
        assert judgments(db, "alice") == {("q1", first): 2}
        await pilot.resize_terminal(100, 30)
        await settle(app, pilot)
        assert not screen.has_class("-narrow") and screen.query_one("#pool").display


async def test_a_click_on_the_scale_bar_grades_the_current_document(campaign):
    db, camp = campaign
    first, second = camp.queues["q1"]["alice"][:2]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        x, y = _cell_of(app, 3)
        await pilot.click(offset=(x, y))
        await settle(app, pilot)
        assert judgments(db, "alice") == {("q1", first): 3}
        x, y = _cell_of(app, 1)
        legend = app.screen.query_one("#legend")
        await pilot.click(offset=(x + 2, y))  # on the level's label, beside its number
        await settle(app, pilot)
        assert judgments(db, "alice") == {("q1", first): 3, ("q1", second): 1}
        await pilot.click(offset=(legend.region.x, legend.region.y))  # the padding: no grade
        await settle(app, pilot)
        assert len(judgments(db, "alice")) == 2
