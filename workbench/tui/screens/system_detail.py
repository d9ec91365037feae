"""Drill-down 1 (lead): one system's per-query scores under the scoreboard's source.

Same tracker (and so the same numbers) as the scoreboard row it came from. Enter opens
the query's ranked list with every assessor's grade.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Static

from workbench.campaign.catalog.queries import query_titles
from workbench.campaign.scoring.scores import ScoreTable, ScoreTracker
from workbench.campaign.scoring.sources import QrelsSource
from workbench.tui.screens.lead_screen import Changes, LeadScreen
from workbench.tui.tables import cursor_key, fill_table, table_place
from workbench.tui.text import num, safe


@dataclass(frozen=True)
class SystemScores:
    table: ScoreTable
    titles: dict[str, str]


class SystemDetailScreen(LeadScreen):
    BINDINGS = [
        Binding("enter", "open", "Ranked list", show=True),
        Binding("s", "sort", "Sort"),
        Binding("r", "reverse", "Reverse", show=False),
        Binding("escape", "back", "Back"),
        *LeadScreen.BINDINGS,
    ]
    export_formats = {"csv": "csv"}
    AUTO_FOCUS = "#sd-table"

    def __init__(self, system: str, source: QrelsSource, tracker: ScoreTracker) -> None:
        super().__init__()
        self.system = system
        self.source = source
        self.tracker = tracker
        self.export_stem = f"scores-{system}"
        self.sort_column: int | None = None  # None: query order; else a measure index
        self.sort_reverse = False

    def compose(self) -> ComposeResult:
        yield Static(id="sd-head", classes="lead-head")
        yield DataTable(id="sd-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def load(self, changes: Changes) -> SystemScores:
        db = self.app.db
        for query in changes.queries():
            self.tracker.mark_dirty(query)
        table = self.tracker.refresh()  # loads on first use, else only the dirty queries
        return SystemScores(table, query_titles(db))

    def show(self, data: SystemScores) -> None:
        table = data.table
        r = table.row(self.system) if self.system in table.systems else None
        n = int(table.n_queries[r]) if r is not None else 0
        self.query_one("#sd-head", Static).update(safe(Text.assemble(
            (self.system, "bold"), " per query against ", (table.source, "bold"),
            f" · {n} queries averaged · Enter: ranked list with grades · s/r: sort · Esc: back",
        )))
        dt = self.query_one("#sd-table", DataTable)
        place = table_place(dt)
        labels = ["query", "title"] + [
            m + ((" ▲" if self.sort_reverse else " ▼") if i == self.sort_column else "")
            for i, m in enumerate(table.labels)]
        if [str(c.label) for c in dt.columns.values()] != labels:
            dt.clear(columns=True)
            for i, label in enumerate(labels):
                dt.add_column(Text(label, justify="right" if i > 1 else "left"), key=f"c{i}",
                              width=36 if i == 1 else None)
        rows = []
        mean_cells = [Text("mean", style="bold"), Text("")]
        for m in table.measures:
            mean_cells.append(Text(num(float(table.means[m][r]) if n else None, m.is_count),
                                   style="bold", justify="right"))
        for j in (np.flatnonzero(table.present[r]).tolist() if r is not None else ()):
            q = table.queries[j]
            values = [float(table.values[m][r, j]) for m in table.measures]
            cells = [Text(q), Text(data.titles.get(q, ""), overflow="ellipsis", no_wrap=True)]
            cells += [Text(num(v, m.is_count), justify="right") for v, m in zip(values, table.measures)]
            rows.append((q, cells, values))
        if self.sort_column is not None and self.sort_column < len(table.measures):
            k = self.sort_column
            rows.sort(key=lambda r: (r[2][k], r[0]), reverse=not self.sort_reverse)
        out = [(q, cells) for q, cells, _ in rows] + [("\x00mean", mean_cells)]
        fill_table(dt, out, place)

    def action_sort(self) -> None:
        """Next column: query order, then each measure (best first)."""
        if self.data is None:
            return
        n = len(self.data.table.measures)
        self.sort_column = 0 if self.sort_column is None else (
            None if self.sort_column + 1 >= n else self.sort_column + 1)
        self.sort_reverse = False
        self.show(self.data)

    def action_reverse(self) -> None:
        if self.data is not None and self.sort_column is not None:
            self.sort_reverse = not self.sort_reverse
            self.show(self.data)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        index = event.column_index - 2
        if self.data is None or index < 0:
            return
        if self.sort_column == index:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = index, False
        self.show(self.data)

    def action_open(self) -> None:
        query = cursor_key(self.query_one("#sd-table", DataTable))
        if query is None or query.startswith("\x00"):
            return
        from workbench.tui.screens.query_detail import QueryDetailScreen

        self.app.push_screen(QueryDetailScreen(self.system, query, self.source))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_back(self) -> None:
        self.app.pop_screen()

    def export_text(self, fmt: str) -> str:
        import io

        from workbench.formats.csv_cells import csv_writer
        from workbench.formats.score_tables import csv_value  # every score CSV's cells

        table = self.data.table
        out = io.StringIO()
        w = csv_writer(out)
        w.writerow(["system", "query", *table.labels])
        i = table.row(self.system)
        for j in np.flatnonzero(table.present[i]).tolist():
            w.writerow([self.system, table.queries[j],
                        *(csv_value(float(table.values[m][i, j]), m.is_count) for m in table.measures)])
        return out.getvalue()
