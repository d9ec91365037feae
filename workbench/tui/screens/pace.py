"""Pace and drift (lead, F8): how fast each assessor judges and whether their grades move.

The table holds the numbers of `workbench list assessors` (documents per hour, median
seconds per document with idle time capped, grade shares in the first and last quarter of
their grades and the chi-square test between them) and each one's agreement with the other
assessors. Two plots follow the assessors over their grades: seconds per document (rolling
median) and agreement with the others (rolling mean). `a` switches the plots between every
assessor and the highlighted one (then each document's seconds are dots). docs/pace.md
explains the numbers.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Static

from workbench.campaign.judging.pace import DRIFT_ALPHA, LIST_COLUMNS, Watch, list_values, shares_text, watch_assessors
from workbench.tui.screens.lead_screen import Changes, LeadScreen
from workbench.tui.tables import cursor_key, fill_table
from workbench.tui.text import num, safe
from workbench.tui.widgets.trend_plot import TrendPlot

COLUMNS = (("assessor", "assessor"), ("grades", "grades"), ("per_hour", "docs/h"), ("median", "median s"),
           ("capped", "capped"), ("first", "first quarter"), ("last", "last quarter"),
           ("chi2", "chi²"), ("df", "df"), ("p", "p"), ("agreement", "agree w/ others"))


class PaceScreen(LeadScreen):
    BINDINGS = [
        Binding("a", "toggle_one", "All/one assessor"),
        *LeadScreen.BINDINGS,
    ]
    export_formats = {"csv": "csv"}
    export_stem = "pace"
    AUTO_FOCUS = "#pc-table"

    def __init__(self) -> None:
        super().__init__()
        self.one = False  # plot the highlighted assessor only

    def compose(self) -> ComposeResult:
        yield Static(id="pc-head", classes="lead-head")
        yield DataTable(id="pc-table", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="pc-plots"):
            yield TrendPlot(id="pc-seconds")
            yield TrendPlot(id="pc-agreement")
        yield Footer()

    def load(self, changes: Changes) -> Watch:
        from workbench.campaign.settings import idle_cap

        return watch_assessors(self.app.db, idle_cap=idle_cap(self.app.db))

    def show(self, watch: Watch) -> None:
        drifting = [a.name for a in watch.assessors if a.drifting]
        self.query_one("#pc-head", Static).update(safe(Text.assemble(
            ("Pace and drift", "bold"),
            f" · seconds above {watch.idle_cap:g} on one document are idle time: capped"
            f" · trends over {watch.window} grades · a: all/one assessor · e: export",
            (f"\nGrades drift (p < {DRIFT_ALPHA:g}): {', '.join(drifting)}" if drifting else "", "yellow"),
            ("" if watch.assessors else "\nNo assessors yet.", "yellow"))))
        dt = self.query_one("#pc-table", DataTable)
        if not dt.columns:
            for key, label in COLUMNS:
                dt.add_column(Text(label, justify="left" if key in ("assessor", "first", "last") else "right"),
                              key=key)
        rows = []
        for a in watch.assessors:
            t = a.drift.test
            rows.append((a.name, [
                Text(a.name), _right(str(a.grades)), _right(num(a.pace.per_hour, places=1)),
                _right(num(a.pace.median_seconds, places=1)), _right(str(a.pace.capped)),
                Text(shares_text(a.shares("first"))), Text(shares_text(a.shares("last"))),
                _right(num(t.statistic, places=2)), _right(str(t.df)),
                Text(num(t.p_value, places=3), justify="right", style="bold red" if a.drifting else ""),
                _right(num(a.agreement, places=3)),
            ]))
        fill_table(dt, rows)
        self._draw()

    def _draw(self) -> None:
        watch: Watch | None = self.data
        if watch is None:
            return
        chosen = watch.assessors
        points = None
        if self.one and watch.assessors:
            key = cursor_key(self.query_one("#pc-table", DataTable))
            one = next((a for a in watch.assessors if a.name == key), watch.assessors[0])
            chosen, points = [one], (one.seconds_at.tolist(), one.seconds.tolist())
        w = watch.window
        self.query_one("#pc-seconds", TrendPlot).draw(
            {a.name: settled(a.seconds_at, a.seconds_trend, w) for a in chosen},
            f"seconds per document (median of {watch.window})", "seconds", points=points)
        self.query_one("#pc-agreement", TrendPlot).draw(
            {a.name: settled(a.agreement_at, a.agreement_trend, w) for a in chosen},
            f"agreement with the others (mean of {watch.window})", "share equal", ylim=(0, 1))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.one:
            self._draw()

    def action_toggle_one(self) -> None:
        self.one = not self.one
        self._draw()

    def export_text(self, fmt: str) -> str:
        from workbench.tui.exports import csv_text

        def cell(v):
            return shares_text(v) if isinstance(v, dict) else "" if isinstance(v, float) and v != v else v

        return csv_text(["assessor", *LIST_COLUMNS, "agreement"],
                        ([a.name, *map(cell, list_values(a)), cell(a.agreement)] for a in self.data.assessors))


def settled(x, y, window: int) -> tuple[list, list]:
    """The trend from its first full window on (the first points average one, two ...
    grades and swing widely); all of it when there are fewer grades than a window."""
    start = window - 1 if len(x) >= window else 0
    return x[start:].tolist(), y[start:].tolist()


def _right(text: str) -> Text:
    return Text(text, justify="right")
