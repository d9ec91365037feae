"""The lead's screens on a small terminal (80 x 24, what a new lead's terminal often is):
nothing drawn over anything else."""

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
