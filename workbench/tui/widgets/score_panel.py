"""Live scores for the assessor: per system, the current query's values and the means.

Systems appear as "System 1..n" (stable order of import), never by run tag: the judging
screen stays blind to system names even with the panel open.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from workbench.campaign.scoring import ScoreTable


def anonymous_labels(table: ScoreTable) -> list[str]:
    return [f"System {i + 1}" for i in range(len(table.systems))]


def panel_renderable(table: ScoreTable, query: str | None) -> Table:
    grid = Table(box=None, pad_edge=False, expand=False, show_edge=False)
    grid.add_column(Text("system"), no_wrap=True)
    for m in table.measures:
        grid.add_column(Text(m), justify="right", no_wrap=True)
    per = table.per_query.get(query or "", {})
    for label, tag in zip(anonymous_labels(table), table.systems):
        row = per.get(tag)
        cells = [Text(f"{row[m]:.4f}") if row else Text("-", style="dim") for m in table.measures]
        grid.add_row(Text(label), *cells)
    return grid


def means_renderable(table: ScoreTable) -> Table:
    grid = Table(box=None, pad_edge=False, show_edge=False)
    grid.add_column(Text("system"), no_wrap=True)
    for m in table.measures:
        grid.add_column(Text(m), justify="right", no_wrap=True)
    for label, tag in zip(anonymous_labels(table), table.systems):
        if table.n_queries.get(tag):
            cells = [Text(f"{table.means[tag][m]:.4f}") for m in table.measures]
        else:
            cells = [Text("-", style="dim") for _ in table.measures]
        grid.add_row(Text(label), *cells)
    return grid


class ScorePanel(VerticalScroll, can_focus=False):
    def compose(self):
        yield Static(Text("Scores: loading…", style="italic"), id="score-query-head")
        yield Static(id="score-query")
        yield Static(id="score-mean-head")
        yield Static(id="score-mean")

    def show(self, table: ScoreTable, query: str | None) -> None:
        n = max(table.n_queries.values(), default=0)
        self.query_one("#score-query-head", Static).update(
            Text(f"This query, your grades so far", style="bold")
        )
        self.query_one("#score-query", Static).update(panel_renderable(table, query))
        self.query_one("#score-mean-head", Static).update(
            Text(f"\nMean over {n} judged quer{'y' if n == 1 else 'ies'}", style="bold")
        )
        self.query_one("#score-mean", Static).update(means_renderable(table))
