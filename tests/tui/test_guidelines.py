"""Judging guidelines: set from the CLI, shown to an assessor at their first start and on
`g`, with the query's own narrative; no automatic showing once they have judged."""

from __future__ import annotations

from click.testing import CliRunner

from tests.tui.helpers import judgments, screen_text, settle
from workbench.campaign.settings import guidelines, set_guidelines
from workbench.cli import cli
from workbench.tui.app import make_app
from workbench.tui.screens.guidelines import GuidelinesScreen
from workbench.tui.screens.judge import JudgeScreen

SIZE = (150, 44)
TEXT = "Grade 3 only when the page answers the question [b]fully[/b].\nAds are 0."


async def test_guidelines_at_first_start_and_on_g(campaign_any, tmp_path):
    db, camp = campaign_any
    path = tmp_path / "guide.md"
    path.write_text(TEXT + "\n")
    result = CliRunner().invoke(cli, ["--db", db.url, "guidelines", "set", str(path)])
    assert result.exit_code == 0, result.output
    assert guidelines(db) == TEXT
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, GuidelinesScreen)  # alice has judged nothing yet
        shown = screen_text(app)
        assert "[b]fully[/b]" in shown and "Ads are 0." in shown  # text, never markup
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, JudgeScreen)
        await pilot.press("2")  # keys grade again once it is closed
        await settle(app, pilot)
        await pilot.press("g")
        await settle(app, pilot)
        assert isinstance(app.screen, GuidelinesScreen)
        await pilot.press("g")
        await settle(app, pilot)
        assert isinstance(app.screen, JudgeScreen)
    assert len(judgments(db, "alice")) == 1
    # a second start: alice has judged, the guidelines wait for `g`
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, JudgeScreen)


async def test_no_guidelines_no_dialog(campaign_any):
    db, _ = campaign_any
    set_guidelines(db, "")
    app = make_app(db, assessor="bob")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, JudgeScreen)
        await pilot.press("g")
        await settle(app, pilot)
        assert "No campaign guidelines are set." in screen_text(app)
