"""Live scores on the judging screen: per system, the current query's values and the means.

Only a campaign that is NOT blind has this panel (campaign/settings.py): its assessors own
the systems, so systems appear under their run tags. A blind campaign's judging screen
never builds it.
"""

from __future__ import annotations
from workbench.tui.text import num, safe

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy only when the panel is first used
    from workbench.campaign.scoring.scores import ScoreTable


def _grid(table: ScoreTable, rows: list[tuple[str, list[float] | None]]) -> Text:
    """A fixed-width text grid: plain Text renders far faster than a rich Table, and the
    panel redraws after every grade. Each row: a label and one value per measure."""
    labels = table.labels
    widths = [max(len(m), 6) for m in labels]
    label_w = max([len(label) for label, _ in rows] + [6])
    text = Text(no_wrap=True)
    text.append("system".ljust(label_w), style="bold")
    for m, w in zip(labels, widths):
        text.append("  " + m.rjust(w), style="bold")
    for label, values in rows:
        text.append("\n" + label.ljust(label_w))
        for k, w in enumerate(widths):
            cell = num(values[k], missing="-") if values is not None else "-"
            text.append("  " + cell.rjust(w), style=None if values is not None else "dim")
    return text


def panel_renderable(table: ScoreTable, query: str | None) -> Text:
    """The current query's values per system."""
    j = table.queries.index(query) if query in table.queries else None
    return _grid(table, [
        (tag, [table.values[m][i, j] for m in table.measures]
         if j is not None and table.present[i, j] else None)
        for i, tag in enumerate(table.systems)
    ])


def means_renderable(table: ScoreTable) -> Text:
    """Each system's mean over the queries judged so far."""
    return _grid(table, [
        (tag, [table.means[m][i] for m in table.measures] if table.n_queries[i] else None)
        for i, tag in enumerate(table.systems)
    ])


class ScorePanel(VerticalScroll, can_focus=False):
    def compose(self):
        yield Static(Text("Scores: loading…", style="italic"), id="score-query-head")
        yield Static(id="score-query")
        yield Static(id="score-mean-head")
        yield Static(id="score-mean")

    _shape: tuple | None = None

    def show(self, table: ScoreTable, query: str | None) -> None:
        # Relayout only when the grid's shape changes (first show, other measures): the
        # panel redraws after every grade.
        shape = (table.systems, table.measures)
        layout = shape != self._shape
        self._shape = shape
        n = int(table.n_queries.max(initial=0))
        self.query_one("#score-query-head", Static).update(
            Text("This query, from your grades so far", style="bold"), layout=layout
        )
        self.query_one("#score-query", Static).update(safe(panel_renderable(table, query)), layout=layout)
        self.query_one("#score-mean-head", Static).update(
            safe(Text(f"\nMean over {n} judged quer{'y' if n == 1 else 'ies'}", style="bold")),
            layout=layout,
        )
        self.query_one("#score-mean", Static).update(safe(means_renderable(table)), layout=layout)
