"""Interpolated precision–recall curves of the chosen systems (lead; from the scoreboard).

Values are trec_eval's iprec_at_recall means (campaign.scoring.curves), also listed
in a table under the plot so they can be read exactly."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Static

from workbench.campaign.scoring.curves import pr_curves
from workbench.campaign.scoring.sources import QrelsSource
from workbench.tui.screens.lead_screen import Changes, LeadScreen
from workbench.tui.tables import fill_table
from workbench.tui.text import num, safe
from workbench.tui.widgets.pr_curve import RECALL, PRCurvePlot


class PRCurveScreen(LeadScreen):
    BINDINGS = [Binding("escape", "back", "Back"), *LeadScreen.BINDINGS]
    export_formats = {"csv": "csv"}
    export_stem = "pr-curves"
    plots = True

    def __init__(self, systems: list[str], source: QrelsSource) -> None:
        super().__init__()
        self.systems = systems
        self.source = source

    def compose(self) -> ComposeResult:
        yield Static(id="pr-head", classes="lead-head")
        yield PRCurvePlot(id="pr-plot")
        yield DataTable(id="pr-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def load(self, changes: Changes) -> dict[str, list[float]]:
        curves = pr_curves(self.app.db, self.source)
        return {s: curves[s] for s in self.systems if s in curves}

    def show(self, curves: dict[str, list[float]]) -> None:
        self.query_one("#pr-head", Static).update(safe(Text.assemble(
            ("Interpolated precision–recall", "bold"), " (mean over queries) against ",
            (self.source.label, "bold"), " · mark systems with Space on the scoreboard · Esc: back")))
        self.query_one("#pr-plot", PRCurvePlot).draw(curves, f"P–R against {self.source.label}")
        dt = self.query_one("#pr-table", DataTable)
        if not dt.columns:
            dt.add_column("system", key="system")
            for r in RECALL:
                dt.add_column(Text(f"{r:.1f}", justify="right"), key=f"{r:.1f}")
        fill_table(dt, [(s, [Text(s), *(Text(num(v, places=3), justify="right") for v in values)])
                        for s, values in curves.items()])

    def action_back(self) -> None:
        self.app.pop_screen()

    def export_text(self, fmt: str) -> str:
        from workbench.tui.exports import csv_text

        return csv_text(["system", *(f"{r:.1f}" for r in RECALL)],
                        ([s, *map(float, values)] for s, values in self.data.items()))

    def export_plot(self, path: str) -> None:
        """The curves shown, as `eval --plot` draws them."""
        from workbench.campaign.plotting import plot_pr_curves

        plot_pr_curves(path, self.data, title=f"Interpolated precision-recall against {self.source.label}")
