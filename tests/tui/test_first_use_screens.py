"""What a new lead trips over on the screens: the agreement screen at 80 x 24, the palette,
the guidelines, the plots, the footers (quit everywhere, nothing cut at 160 columns), the
F-keys from a text box, and messages kept off the judging status line."""

from __future__ import annotations

from tests.tui.helpers import screen_text
from tests.tui.lead_helpers import open_mode, sample_db  # noqa: F401
from workbench.tui.app import make_app
from workbench.tui.screens.agreement import AgreementScreen


async def test_agreement_at_80x24_stacks_its_panels(sample_db):
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_mode(app, pilot, "f3", AgreementScreen)
        await pilot.pause(0.2)
        lines = screen_text(app).splitlines()
        text = "\n".join(lines)
        # the matrix keeps its header and names; the all-assessors table starts its own lines
        assert any(line.strip().startswith("κ Cohen / κw linear") for line in lines), text
        assert any(line.strip().startswith("all assessors") for line in lines), text
        assert any(line.strip().startswith("Fleiss' κ") for line in lines), text
        assert "κall assessors" not in text and "aFleiss" not in text
        matrix = next(i for i, line in enumerate(lines) if "κ Cohen / κw linear" in line)
        overall = next(i for i, line in enumerate(lines) if line.strip().startswith("all assessors"))
        assert overall > matrix + 3  # under the three assessors' rows, not beside them
        # the reading is whole: "methodology problem (below 2/3)", wrapped at most
        assert "methodology problem (below" in text


async def test_agreement_side_by_side_on_a_wide_terminal(sample_db):
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=(150, 40)) as pilot:
        await open_mode(app, pilot, "f3", AgreementScreen)
        lines = screen_text(app).splitlines()
        assert any("κ Cohen / κw linear" in line and "all assessors" in line for line in lines)


async def test_palette_has_judge_and_no_screenshot(sample_db):
    from tests.tui.helpers import settle

    app = make_app(sample_db, lead=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        commands = {str(c.title): c for c in app.get_system_commands(app.screen)}
        assert "Screenshot" not in commands  # Textual's: fails without ~/Downloads
        assert "Judge (F1)" in commands and "Scores (F2)" in commands
        await pilot.press("f2")
        await settle(app, pilot)
        commands["Judge (F1)"].callback()
        await settle(app, pilot)
        assert app.current_mode == "assess"
    judge = make_app(sample_db, assessor="alice")
    async with judge.run_test(size=(120, 40)) as pilot:
        await settle(judge, pilot)
        assert "Screenshot" not in {str(c.title) for c in judge.get_system_commands(judge.screen)}


async def test_guidelines_are_rendered_markdown_in_a_centred_box(campaign):
    from tests.tui.helpers import settle
    from workbench.campaign.settings import set_guidelines
    from workbench.tui.screens.guidelines import GuidelinesScreen

    db, _ = campaign
    set_guidelines(db, "# Guidelines\n\n- **0**: not relevant\n- **3**: [b]answers[/b] it\n")
    app = make_app(db, assessor="alice")
    async with app.run_test(size=(150, 44)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, GuidelinesScreen)
        text = screen_text(app)
        assert "# Guidelines" not in text and "Guidelines" in text
        assert "**0**" not in text and "0: not relevant" in text  # bold, not asterisks
        assert "[b]answers[/b]" in text  # Rich markup in them stays text
        box = app.screen.query_one("#guidelines-dialog").region
        assert abs(box.x - (150 - box.right)) <= 1  # as much room left as right
        assert box.y > 0


async def test_share_plots_end_their_y_axis_at_one():
    """Precision and the share of equal grades are shares: the y axis runs 0 … 1.00 with
    ticks at fifths, never to 1.02."""
    from textual.app import App

    from workbench.tui.widgets.pr_curve import PRCurvePlot
    from workbench.tui.widgets.trend_plot import TrendPlot

    class Plots(App):
        def compose(self):
            yield PRCurvePlot()
            yield TrendPlot()

    app = Plots()
    async with app.run_test(size=(80, 48)) as pilot:
        app.query_one(PRCurvePlot).draw({"a": [1 - i / 10 for i in range(11)]}, "P-R")
        app.query_one(TrendPlot).draw({"ann": ([1, 2, 3], [0.5, 1.0, 0.75])}, "agreement",
                                      "share equal", ylim=(0, 1))
        await pilot.pause(0.2)
        text = app.screen._compositor.render_strips()
        text = "\n".join(strip.text for strip in text)
        assert "1.02" not in text
        assert text.count("1.00┤") == 2 and text.count("0.20┤") == 2


def _footer(app) -> str:
    return screen_text(app).splitlines()[-1]


async def test_judging_footer_fits_160_columns_with_quit(sample_db):
    from tests.tui.helpers import settle
    from workbench.tui.screens.judge import JudgeScreen

    for lead in (False, True):
        app = make_app(sample_db, assessor="carol", lead=lead)
        async with app.run_test(size=(160, 30)) as pilot:
            await settle(app, pilot)
            assert isinstance(app.screen, JudgeScreen)
            footer = _footer(app)
            assert "esc Queries" in footer and "^q Quit" in footer, footer
            assert "f2 Scores" not in footer  # the lead's F-keys: on the lead screens' footers


async def test_quit_is_in_every_footer(sample_db):
    from tests.tui.helpers import settle
    from workbench.tui.screens.lead_modes import LEAD_MODES

    app = make_app(sample_db, lead=True)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(app, pilot)
        assert "^q Quit" in _footer(app)  # the assessor picker
        for key, *_ in LEAD_MODES.values():
            await pilot.press(key)
            await settle(app, pilot)
            footer = _footer(app)
            assert "^q Quit" in footer and "f1 Judge" in footer and "f8 Pace" in footer, (key, footer)


async def test_f7_from_the_quick_screens_grades_box(sample_db):
    from textual.widgets import TextArea

    from tests.tui.helpers import settle
    from workbench.tui.screens.planning import PlanningScreen
    from workbench.tui.screens.quick import QuickScreen

    app = make_app(sample_db, lead=True)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("f6")
        await settle(app, pilot)
        assert isinstance(app.screen, QuickScreen)
        app.screen.query_one("#qk-grades", TextArea).focus()
        await settle(app, pilot)
        assert "f7 Planning" in _footer(app)  # not hidden by the text box's own F6/F7
        await pilot.press("f7")
        await settle(app, pilot)
        assert isinstance(app.screen, PlanningScreen)


async def test_messages_stay_above_the_judging_status_line(sample_db):
    from textual.widgets._toast import Toast

    from tests.tui.helpers import settle

    app = make_app(sample_db, assessor="carol")
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(app, pilot)
        app.notify("a message for the assessor", timeout=30)
        await pilot.pause(0.3)
        toasts = list(app.screen.query(Toast))
        status = app.screen.query_one("#status").region
        assert toasts and all(t.region.bottom <= status.y for t in toasts)


async def test_the_start_and_query_screens_show_the_lead_screens_keys(sample_db):
    """The footers of the start and query screens showed only ^q and ^p."""
    from tests.tui.helpers import settle
    from workbench.tui.screens.assessor_select import AssessorScreen
    from workbench.tui.screens.query_list import QueryListScreen

    def footer(app) -> str:
        return screen_text(app).splitlines()[-1]

    app = make_app(sample_db, lead=True)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, AssessorScreen)
        for key, title in (("f2", "Scores"), ("f3", "Agreement"), ("f5", "Systems")):
            assert f"{key} {title}" in footer(app), footer(app)
        app.push_screen(QueryListScreen("alice"))
        await settle(app, pilot)
        assert isinstance(app.screen, QueryListScreen)
        assert "f2 Scores" in footer(app) and "f4 Disagreements" in footer(app), footer(app)
    blind = make_app(sample_db, assessor="alice")  # an assessor's app: no lead key at all
    async with blind.run_test(size=(160, 30)) as pilot:
        await settle(blind, pilot)
        assert "Scores" not in footer(blind) and "f2" not in footer(blind)
