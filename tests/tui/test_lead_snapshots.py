"""Snapshots of two lead screens on the sample database (read the SVG diff when one
changes; never wave it through): the scoreboard and the agreement screen."""

from __future__ import annotations

from textual.widgets import DataTable

from tests.tui.helpers import settle
from tests.tui.lead_helpers import sample_db, wait_for  # noqa: F401
from workbench.tui.app import make_app


def _snapshot(db, snap_compare, key: str) -> bool:
    app = make_app(db, lead=True)

    async def run_before(pilot) -> None:
        await pilot.press(key)
        await settle(app, pilot)
        await wait_for(app, pilot, lambda: getattr(app.screen, "data", None) is not None)
        await settle(app, pilot)
        # DataTable sizes its columns on a later refresh: wait until every table has
        # settled its widths, or the snapshot catches label-only widths now and then
        tables = list(app.screen.query(DataTable))
        await wait_for(app, pilot, lambda: not any(t._require_update_dimensions for t in tables))
        await pilot.pause(0.2)
        await settle(app, pilot)

    return snap_compare(app, terminal_size=(150, 40), run_before=run_before)


def test_scoreboard_snapshot(sample_db, snap_compare):
    assert _snapshot(sample_db, snap_compare, "f2")


def test_agreement_snapshot(sample_db, snap_compare):
    assert _snapshot(sample_db, snap_compare, "f3")
