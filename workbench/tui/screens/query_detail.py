"""Drill-down 2 (lead): a system's ranked list for one query, with the grade the source
gives each document and every assessor's own grade (and the adjudicated one).

Unjudged documents (no grade under the source) show "·": they count as non-relevant in
every measure except bpref. `c` sends the list's grades to the quick calculator.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Static

from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.catalog.queries import query_titles
from workbench.campaign.comparison.ranked_lists import (
    RankedDoc,
    grades_of_ranked_list,
    judged_grades,
    ranked_list,
)
from workbench.tui.screens.lead_screen import Changes, LeadScreen
from workbench.tui.tables import cursor_key, fill_table, table_place
from workbench.tui.text import num, safe

UNJUDGED = "·"


class QueryDetailScreen(LeadScreen):
    BINDINGS = [
        Binding("enter", "adjudicate", "Read / adjudicate", show=True),
        Binding("escape", "back", "Back"),
        Binding("c", "calculator", "Quick scores"),
        *LeadScreen.BINDINGS,
    ]
    export_formats = {"csv": "csv"}

    def __init__(self, system: str, query: str, source: QrelsSource) -> None:
        super().__init__()
        self.system = system
        self.query_id = query
        self.source = source
        self.export_stem = f"ranking-{system}-{query}"
        self._assessors: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static(id="qd-head", classes="lead-head")
        yield DataTable(id="qd-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def load(self, changes: Changes) -> tuple[list[RankedDoc], list[str], str, tuple[int, ...]]:
        db = self.app.db
        from workbench.campaign.assessors.roster import grading

        items = ranked_list(db, self.system, self.query_id, self.source)
        return (items, grading(db), query_titles(db).get(self.query_id, ""),
                judged_grades(db, self.query_id, self.source))

    def show(self, data) -> None:
        items, assessors, title, _ = data
        judged = sum(1 for d in items if d.grade is not None)
        self.query_one("#qd-head", Static).update(safe(Text.assemble(
            (self.system, "bold"), " on query ", (self.query_id, "bold"), " ", (title, "italic"),
            f" · {judged}/{len(items)} retrieved documents judged under ", (self.source.label, "bold"),
            f" ({UNJUDGED} = unjudged) · Enter: read / set the final grade · c: quick scores · Esc: back",
        )))
        dt = self.query_one("#qd-table", DataTable)
        place = table_place(dt)
        if assessors != self._assessors or not dt.columns:
            self._assessors = list(assessors)
            dt.clear(columns=True)
            dt.add_column(Text("rank", justify="right"), key="rank")
            dt.add_column("document", key="doc")
            dt.add_column("title", key="title", width=40)
            dt.add_column(Text("score", justify="right"), key="score", width=10)
            dt.add_column(Text("grade", justify="right"), key="grade")
            for a in assessors:
                dt.add_column(Text(a, justify="right"), key=f"a:{a}")
            dt.add_column(Text("final", justify="right"), key="final")
        rows = []
        for d in items:
            grades = dict(d.grades)
            values = [grades.get(a) for a in assessors]
            split = len({v for v in values if v is not None}) > 1
            cells = [
                Text(str(d.rank), justify="right"), Text(d.document),
                Text(d.title, overflow="ellipsis", no_wrap=True),
                Text(num(d.score), justify="right"),
                Text(UNJUDGED if d.grade is None else str(d.grade), justify="right",
                     style="bold" if d.grade is not None else "dim"),
            ]
            cells += [Text(UNJUDGED if v is None else str(v), justify="right",
                           style="yellow" if split and v is not None else ("dim" if v is None else ""))
                      for v in values]
            cells.append(Text("" if d.final is None else str(d.final), justify="right", style="bold"))
            rows.append((d.document, cells))
        fill_table(dt, rows, place)
        dt.focus()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_adjudicate(self) -> None:
        document = cursor_key(self.query_one("#qd-table", DataTable))
        if document is None:
            return
        from workbench.tui.screens.disagreements import open_adjudication

        open_adjudication(self, self.query_id, document,
                          lambda record: self.reload() if record is not None else None)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_adjudicate()

    def action_calculator(self) -> None:
        if self.data is None:
            return
        from workbench.tui.screens.quick import QuickScreen

        grades = grades_of_ranked_list(self.data[0])
        self.app.push_screen(QuickScreen(
            " ".join(map(str, grades)), standalone=False, k=10, judged=self.data[3],
            origin=f"{self.system}'s ranked list for query {self.query_id} under {self.source.label} "
                   "(unjudged as 0; R and the ideal come from every judged document of the "
                   "query, as in the scoreboard; Esc goes back)"))

    def export_text(self, fmt: str) -> str:
        from workbench.formats.csv_cells import csv_writer
        import io

        items, assessors, _, _ = self.data
        out = io.StringIO()
        w = csv_writer(out)
        w.writerow(["rank", "document", "score", "grade", *assessors, "final"])
        for d in items:
            grades = dict(d.grades)
            w.writerow([d.rank, d.document, d.score, "" if d.grade is None else d.grade,
                        *("" if grades.get(a) is None else grades[a] for a in assessors),
                        "" if d.final is None else d.final])
        return out.getvalue()
