"""Nugget scores (lead, F10): every run with answers × the six nugget scores, under a label
source (`s` cycles: the people's majority, each assessor, hybrid with each machine).
The numbers are `score --nuggets`'s (campaign/answers/scores.py). NOT blind: lead only."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Static

from workbench.tui.screens.lead_screen import Changes, LeadScreen
from workbench.tui.tables import fill_table
from workbench.tui.text import num, safe


class NuggetScoresScreen(LeadScreen):
    BINDINGS = [Binding("s", "next_source", "Source"), *LeadScreen.BINDINGS]
    export_formats = {"csv": "csv"}
    export_stem = "nugget-scores"
    AUTO_FOCUS = "#ns-table"

    def __init__(self) -> None:
        super().__init__()
        self.source_index = 0
        self.table = None

    def compose(self) -> ComposeResult:
        yield Static(id="ns-head", classes="lead-head")
        yield DataTable(id="ns-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def load(self, changes: Changes):
        from workbench.campaign.answers.scores import nugget_sources, nugget_table

        sources = nugget_sources(self.app.db)
        source = sources[self.source_index % len(sources)]
        return nugget_table(self.app.db, source), len(sources)

    def show(self, data) -> None:
        table, n_sources = data
        MEASURES = table.measures
        self.table = table
        self.query_one("#ns-head", Static).update(safe(Text.assemble(
            ("Nugget scores", "bold"), f" · labels: {table.source} ({n_sources} sources: s) · "
            "mean over every topic with nuggets · e: export",
            ("" if table.systems else "\nNo answers or nugget labels yet.", "yellow"))))
        dt = self.query_one("#ns-table", DataTable)
        if not dt.columns:
            dt.add_column("run", key="run")
            dt.add_column(Text("topics", justify="right"), key="topics")
            for m in MEASURES:
                dt.add_column(Text(m, justify="right"), key=m)
        fill_table(dt, [(run, [Text(run), Text(str(int(table.n_queries[i])), justify="right"),
                               *[Text(num(float(table.means[m][i])), justify="right") for m in MEASURES]])
                        for i, run in enumerate(table.systems)])

    def action_next_source(self) -> None:
        self.source_index += 1
        self.reload()

    def export_text(self, fmt: str) -> str:
        if self.table is None:
            return ""
        from workbench.campaign.answers.scores import render_nugget_table

        return render_nugget_table(self.table, fmt, list(self.table.systems))  # the rows as shown
