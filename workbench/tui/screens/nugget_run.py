"""Drill-down of the scoreboard's nugget view (lead, F2 `v`, Enter): one run's nugget
scores per topic under the view's label source, the numbers of `score --nuggets -q`
(campaign/answers/scores.py); a topic the run did not answer scores 0 and says so.
NOT blind: lead only."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Static

from workbench.campaign.scoring.sources import QrelsSource
from workbench.tui.screens.lead_screen import Changes, LeadScreen
from workbench.tui.tables import fill_table, table_place
from workbench.tui.text import num, safe


class NuggetRunScreen(LeadScreen):
    BINDINGS = [Binding("escape", "back", "Back"), *LeadScreen.BINDINGS]
    export_formats = {"csv": "csv"}
    AUTO_FOCUS = "#nr-table"

    def __init__(self, run: str, source: QrelsSource, measures: tuple[str, ...] | None) -> None:
        super().__init__()
        self.run = run
        self.source = source
        self.measures = measures
        self.export_stem = f"nugget-scores-{run}"

    def compose(self) -> ComposeResult:
        yield Static(id="nr-head", classes="lead-head")
        yield DataTable(id="nr-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def load(self, changes: Changes):
        from workbench.campaign.answers.scores import nugget_table, run_topic_rows

        table = nugget_table(self.app.db, self.source, self.measures)
        return table, run_topic_rows(table, self.run)

    def show(self, data) -> None:
        table, topics = data
        answered = sum(1 for _, a, _ in topics if a)
        self.query_one("#nr-head", Static).update(safe(Text.assemble(
            (self.run, "bold"), " per topic under ", (table.source, "bold"),
            f" · {answered} of {len(topics)} topics answered (an unanswered one scores 0) · Esc: back")))
        dt = self.query_one("#nr-table", DataTable)
        if not dt.columns:
            dt.add_column("topic", key="topic")
            dt.add_column("answered", key="answered")
            for m in table.measures:
                dt.add_column(Text(m, justify="right"), key=m)
        place = table_place(dt)
        fill_table(dt, [(topic, [Text(topic), Text("yes" if a else "no", style="" if a else "yellow"),
                                 *[Text(num(values[m]), justify="right") for m in table.measures]])
                        for topic, a, values in topics], place)

    def action_back(self) -> None:
        self.app.pop_screen()

    def export_text(self, fmt: str) -> str:
        from workbench.campaign.answers.scores import run_topic_csv

        return run_topic_csv(self.data[0], self.run)
