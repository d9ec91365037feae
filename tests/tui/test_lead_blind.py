"""Blindness: `workbench judge` opens the app with lead=False, and then no lead screen (system
names, other assessors' grades) can be reached: no mode, no key, no palette command."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from textual.widgets import DataTable

from tests.tui.helpers import screen_text, settle
from tests.tui.lead_helpers import SIZE, open_mode, sample_db  # noqa: F401
from workbench.tui.app import make_app
from workbench.tui.screens.lead_modes import LEAD_MODES
from workbench.tui.screens.scoreboard import ScoreboardScreen


def _palette_titles(app) -> list[str]:
    return [str(c.title) for c in app.get_system_commands(app.screen)]


async def test_judge_mode_has_no_lead_screens(sample_db):
    app = make_app(sample_db, assessor="alice")  # what `workbench judge` builds
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        start = app.screen
        for key, *_ in LEAD_MODES.values():
            await pilot.press(key)
            await settle(app, pilot)
            assert app.screen is start
        assert app.current_mode == "assess"
        assert set(app._modes) == {"assess"}
        titles = _palette_titles(app)
        assert not any(t.split(" (")[0] in {v[1] for v in LEAD_MODES.values()} for t in titles)
        text = screen_text(app)
        for system in ("bm25", "tfidf", "qld", "doclen"):
            assert system not in text
        with pytest.raises(Exception):
            app.switch_mode("scores")


async def test_lead_app_has_every_lead_screen_and_palette_entry(sample_db):
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        titles = _palette_titles(app)
        for mode, (key, title, *_rest) in LEAD_MODES.items():
            assert f"{title} ({key.upper()})" in titles
        screen = await open_mode(app, pilot, "f2", ScoreboardScreen)
        assert screen.query_one("#sb-table", DataTable).row_count == 4
        await pilot.press("f1")
        await settle(app, pilot)
        assert app.current_mode == "assess"


@pytest.mark.parametrize("args, lead", [
    (["judge", "--assessor", "alice"], False),
    ([], True),
])
def test_cli_opens_judge_blind_and_bare_as_lead(monkeypatch, tmp_path, args, lead):
    import workbench.tui.app as app_module
    from workbench.cli import cli

    seen = {}

    class FakeApp:
        def run(self):
            seen["ran"] = True

    def fake_make_app(db, **kwargs):
        seen.update(kwargs)
        return FakeApp()

    monkeypatch.setattr(app_module, "make_app", fake_make_app)
    (tmp_path / "x.sqlite").touch()  # the TUI asks before it creates a missing database file
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "x.sqlite"), *args])
    assert result.exit_code == 0, result.output
    from workbench.campaign.assessors.visibility import lead_screens

    assert seen["ran"]  # the audience decides, else the lead flag (tui/app.py)
    assert (lead_screens(seen["audience"]) if seen.get("audience") else seen["lead"]) is lead


def test_demo_opens_as_lead(monkeypatch, tmp_path):
    import workbench.tui.app as app_module
    from workbench.cli import cli

    seen = {}

    class FakeApp:
        def run(self):
            pass

    monkeypatch.setattr(app_module, "make_app", lambda db, **kw: (seen.update(kw), FakeApp())[1])
    result = CliRunner().invoke(cli, ["demo", "--dir", str(tmp_path / "demo")])
    assert result.exit_code == 0, result.output
    assert seen["lead"] is True


async def test_help_lists_the_screen_keys(sample_db):
    from tests.tui.helpers import screen_text as text_of

    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(app, pilot, "f2", ScoreboardScreen)
        await pilot.press("question_mark")
        await settle(app, pilot)
        text = text_of(app)
        assert "P–R curve" in text and "Export" in text and "F4" in text and "Disagreements" in text
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, ScoreboardScreen)
