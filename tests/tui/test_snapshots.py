"""A snapshot of the judging screen (read the SVG diff when it changes; never wave it
through): two grades given, `s` pressed (a blind campaign: no panel opens), markup-like
document text shown literally, the queue list with marks and numbers only."""

from __future__ import annotations

from tests.tui.helpers import settle
from workbench.tui.app import make_app


def test_judging_screen_snapshot(campaign, snap_compare):
    db, camp = campaign
    app = make_app(db, assessor="alice")

    async def run_before(pilot) -> None:
        await settle(app, pilot)
        await pilot.press("2", "0")
        await settle(app, pilot)
        await pilot.press("s")
        await settle(app, pilot)
        # land on the markup-like document
        target = camp.queues["q1"]["alice"].index("d001")
        app.screen.query_one("#pool").highlighted = target
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=(150, 40), run_before=run_before)


def test_narrow_judging_screen_snapshot(campaign, snap_compare):
    """The narrow layout (a phone's browser, 390 CSS px = 40 columns): no
    queue list, the document over the whole width, every level of the scale bar shown."""
    db, _camp = campaign
    app = make_app(db, assessor="alice")

    async def run_before(pilot) -> None:
        await settle(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=(40, 40), run_before=run_before)
