"""The lead's calibration screen (F9) shows what `workbench calibrate` prints, switches
machine with `n`, and its export is `calibrate --format json`."""

from __future__ import annotations

import json

from tests.campaign.machine_campaign import build_machine_campaign
from tests.campaign.machine_campaign import write_qrels
from tests.tui.helpers import screen_text, settle_until
from tests.tui.lead_helpers import SIZE, cli_json
from workbench.campaign.catalog.importing import import_qrels
from workbench.campaign.machine.provenance import make_provenance
from workbench.tui.app import make_app
from workbench.tui.screens.calibration import CalibrationScreen


async def test_calibration_screen_shows_the_cli_numbers(sqlite_db, tmp_path):
    c = build_machine_campaign(sqlite_db, tmp_path / "f", human_queries=5)
    expected = cli_json(sqlite_db, "calibrate", "--machine", "llm")
    app = make_app(sqlite_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f9")
        await settle_until(app, pilot, lambda: isinstance(app.screen, CalibrationScreen)
                           and app.screen.data is not None)
        screen = app.screen
        assert isinstance(screen, CalibrationScreen)
        text = screen_text(app)
        assert "machine 1 of 1: llm" in text
        assert f"kappa binary    {expected['kappa_binary']:.3f}" in text
        assert f"kappa weighted  {expected['kappa_weighted']:.3f}" in text
        assert "human vs machine" in text
        assert json.loads(screen.export_text("json")) == expected


async def test_next_machine_and_no_machine(sqlite_db, tmp_path):
    app = make_app(sqlite_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f9")
        await settle_until(app, pilot, lambda: getattr(app.screen, "data", None) is not None)
        assert "no machine assessor yet" in screen_text(app)
    c = build_machine_campaign(sqlite_db, tmp_path / "f", human_queries=5)
    import_qrels(sqlite_db, write_qrels(tmp_path / "m2.qrels", {k: 3 - v for k, v in c.machine.items()}),
                 assessor="m2", machine=make_provenance("other"))
    app = make_app(sqlite_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f9")
        await settle_until(app, pilot, lambda: getattr(app.screen, "data", None) is not None)
        assert "machine 1 of 2: llm" in screen_text(app)
        await pilot.press("n")
        await settle_until(app, pilot, lambda: app.screen.data.machine == "m2")
        assert "machine 2 of 2: m2" in screen_text(app)


async def test_scoreboard_offers_and_scores_a_hybrid_source(sqlite_db, tmp_path):
    from textual.widgets import Select

    from tests.tui.lead_helpers import open_mode, wait_for
    from workbench.campaign.scoring.sources import QrelsSource
    from workbench.tui.screens.scoreboard import ScoreboardScreen

    build_machine_campaign(sqlite_db, tmp_path / "f", human_queries=5)
    expected = cli_json(sqlite_db, "score", "--source", "hybrid:llm", "-m", "P@5")
    app = make_app(sqlite_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f2", ScoreboardScreen)
        hybrid = QrelsSource.hybrid("llm")
        assert hybrid in screen.data.sources and QrelsSource.assessor("llm") in screen.data.sources
        screen.measures = ("P@5",)  # what typing P@5 in the measures box sets
        screen.query_one("#sb-source", Select).value = hybrid  # the menu's choice reloads
        await wait_for(app, pilot, lambda: screen.data.table.source == "hybrid:llm"
                       and screen.data.measures == ("P@5",))
        table = screen.data.table
        m = table.measures[0]
        got = {s: round(float(table.means[m][i]), 6) for i, s in enumerate(table.systems)}
        assert got == {row["system"]: round(row["mean"]["P@5"], 6) for row in expected["systems"]}
        assert "hybrid:llm" in screen_text(app)


async def test_scoreboard_offers_and_scores_a_judge_panel(sqlite_db, tmp_path):
    """A judge panel and its hybrid are in the scoreboard's source menu, scored as
    `score --source panel:NAME` scores them."""
    from textual.widgets import Select

    from tests.cli.helpers import cli_ok
    from tests.tui.lead_helpers import open_mode, wait_for
    from workbench.campaign.scoring.sources import QrelsSource
    from workbench.tui.screens.scoreboard import ScoreboardScreen

    c = build_machine_campaign(sqlite_db, tmp_path / "f", human_queries=5)
    import_qrels(sqlite_db, write_qrels(tmp_path / "m2.qrels", {k: 3 - v for k, v in c.machine.items()}),
                 assessor="m2", machine=make_provenance("other"))
    cli_ok(sqlite_db.url, "panel", "create", "jury", "--member", "llm", "--member", "m2",
           "--aggregate", "mean")
    app = make_app(sqlite_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f2", ScoreboardScreen)
        for source in (QrelsSource.panel("jury"), QrelsSource.hybrid("panel:jury")):
            assert source in screen.data.sources
            expected = cli_json(sqlite_db, "score", "--source", source.label, "-m", "P@5")
            screen.measures = ("P@5",)
            screen.query_one("#sb-source", Select).value = source
            await wait_for(app, pilot, lambda: screen.data.table.source == source.label
                           and screen.data.measures == ("P@5",))
            table = screen.data.table
            m = table.measures[0]
            got = {s: round(float(table.means[m][i]), 6) for i, s in enumerate(table.systems)}
            assert got == {row["system"]: round(row["mean"]["P@5"], 6) for row in expected["systems"]}
