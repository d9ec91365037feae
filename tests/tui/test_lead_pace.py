"""Pace screen (F8): the table holds `workbench list assessors`'s pace and drift numbers,
the plots each assessor's seconds per document and agreement over their grades; `a` plots
the highlighted assessor alone, with every document's seconds as dots."""

from __future__ import annotations

from textual.widgets import DataTable

from tests.tui.helpers import screen_text
from tests.tui.lead_helpers import SIZE, header, open_mode, rows, sample_db, wait_for  # noqa: F401
from workbench.tui.app import make_app
from workbench.tui.screens.pace import PaceScreen
from workbench.tui.widgets.trend_plot import TrendPlot


def _cli(db) -> dict:
    import json

    from click.testing import CliRunner

    from workbench.cli import cli

    result = CliRunner().invoke(cli, ["--db", db.url, "list", "assessors", "--format", "json"])
    assert result.exit_code == 0, result.output
    return {r["assessor"]: r for r in json.loads(result.output)}


async def test_pace_screen_shows_list_assessors_numbers_and_plots(sample_db):
    expected = _cli(sample_db)
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f8", PaceScreen)
        table = screen.query_one("#pc-table", DataTable)
        assert header(table)[:5] == ["assessor", "grades", "docs/h", "median s", "capped"]
        shown = {r[0]: r for r in rows(table)}
        assert set(shown) == set(expected) == {"alice", "bob", "carol"}
        for name, r in shown.items():
            e = expected[name]
            assert r[2:5] == [f"{e['docs_per_hour']:.1f}", f"{e['median_seconds']:.1f}", str(e["capped"])]
            assert r[5] == " ".join(f"{g}:{v:.0%}" for g, v in e["grades_first_quarter"].items())
            assert r[7:10] == [f"{e['drift_chi2']:.2f}", str(e["drift_df"]), f"{e['drift_p']:.3f}"]
        # the sample: alice gave 297 grades (273 set, 14 repeat, 10 change events)
        assert shown["alice"][1] == "297"
        assert "seconds above 300 on one document are idle time: capped" in screen_text(app)
        seconds = screen.query_one("#pc-seconds", TrendPlot)
        agreement = screen.query_one("#pc-agreement", TrendPlot)
        assert set(seconds.shown) == set(agreement.shown) == {"alice", "bob", "carol"}
        alice = screen.data.of("alice")
        # drawn from the first full window of 20 grades on
        assert seconds.shown["alice"] == (alice.seconds_at[19:].tolist(), alice.seconds_trend[19:].tolist())
        assert 0.0 <= min(agreement.shown["bob"][1]) and max(agreement.shown["bob"][1]) <= 1.0
        await pilot.press("down")  # bob highlighted
        await pilot.press("a")
        await wait_for(app, pilot, lambda: set(seconds.shown) == {"bob"})
        assert set(agreement.shown) == {"bob"}
        await pilot.press("down")
        await wait_for(app, pilot, lambda: set(seconds.shown) == {"carol"})
        await pilot.press("a")
        await wait_for(app, pilot, lambda: len(seconds.shown) == 3)
        # e exports the table: list assessors' columns and the agreement
        lines = screen.export_text("csv").splitlines()
        assert lines[0].split(",")[:4] == ["assessor", "docs_per_hour", "median_seconds", "capped"]
        assert lines[0].endswith(",drift_p,agreement") and lines[1].startswith("alice,")
        assert float(lines[1].split(",")[-1]) == screen.data.of("alice").agreement


async def test_pace_screen_uses_the_campaigns_idle_cap(sample_db):
    """`campaign --idle-cap 20`: the header names it, and the numbers are list assessors' at
    that cap (more grades capped, a lower median than at 300)."""
    from workbench.campaign.settings import set_idle_cap

    at_300 = _cli(sample_db)
    set_idle_cap(sample_db, 20)
    expected = _cli(sample_db)
    assert expected["alice"]["capped"] > at_300["alice"]["capped"]
    assert expected["alice"]["median_seconds"] <= 20.0
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f8", PaceScreen)
        assert "seconds above 20 on one document are idle time: capped" in screen_text(app)
        shown = {r[0]: r for r in rows(screen.query_one("#pc-table", DataTable))}
        e = expected["alice"]
        assert shown["alice"][2:5] == [f"{e['docs_per_hour']:.1f}", f"{e['median_seconds']:.1f}", str(e["capped"])]
