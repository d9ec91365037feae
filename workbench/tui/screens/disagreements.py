"""Disagreements (lead, F4): every item two or more assessors graded differently, with each
assessor's grade, the spread, the majority and the final (adjudicated) grade.

Filter by query (type its id), by spread (`1`/`2`/`3` = at least that), or pending only
(`u`). Enter opens the item to read the document and set the final grade; the
"adjudicated" qrels source (scoreboard, `workbench score --consensus adjudicated`) uses it.
"""

from __future__ import annotations

import os

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Input, Static

from workbench.campaign.agreement import adjudication
from workbench.campaign.assessors import roster
from workbench.names import InvalidName, check_name, id_problem
from workbench.tui.screens.lead_screen import Changes, LeadScreen
from workbench.tui.tables import cursor_key, fill_table, table_place
from workbench.tui.text import safe


def open_adjudication(screen, query: str, document: str, done) -> None:
    """Push the adjudication screen for (query, document) as the lead. The lead's name is
    asked once per session (LeadNameScreen), prefilled from $WORKBENCH_LEAD; a
    $WORKBENCH_LEAD that could not be stored is a notification instead."""
    from workbench.tui.screens.adjudicate import AdjudicateScreen
    from workbench.tui.screens.lead_name import LeadNameScreen

    app = screen.app
    if app.lead_name is not None:
        app.push_screen(AdjudicateScreen(query, document, app.lead_name,
                                         same_person=app.lead_same_person), done)
        return
    preset = (os.environ.get("WORKBENCH_LEAD") or "").strip()
    if preset:
        try:
            check_name(preset)
        except InvalidName as exc:
            screen.notify(f"WORKBENCH_LEAD: {exc}", severity="error", markup=False)
            return

    def named(answer) -> None:
        if answer is None:
            return  # cancelled: no adjudication without a name
        app.lead_name, app.lead_same_person = answer
        open_adjudication(screen, query, document, done)

    app.push_screen(LeadNameScreen(preset), named)


class DisagreementsScreen(LeadScreen):
    BINDINGS = [
        Binding("enter", "open", "Adjudicate", show=True),
        Binding("1", "spread(1)", "Spread ≥1", show=False),
        Binding("2", "spread(2)", "Spread ≥2", show=False),
        Binding("3", "spread(3)", "Spread ≥3", show=False),
        Binding("u", "pending", "Pending only"),
        Binding("slash", "filter", "Query filter"),
        *LeadScreen.BINDINGS,
    ]
    export_formats = {"csv": "csv", "judgments with history": "csv", "adjudicated qrels": "qrels"}
    export_stem = "disagreements"
    AUTO_FOCUS = "#dg-table"

    def __init__(self) -> None:
        super().__init__()
        self.query_filter: str | None = None
        self.min_spread = 1
        self.pending_only = False
        self._assessors: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static(id="dg-head", classes="lead-head")
        with Horizontal(id="dg-controls"):
            yield Input(placeholder="query id (/ to type, empty = all)", id="dg-query")
            yield Static(id="dg-filters", classes="lead-hint")
        yield DataTable(id="dg-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def load(self, changes: Changes):
        db = self.app.db
        items = adjudication.list_disagreements(
            db, query=self.query_filter, min_spread=self.min_spread, pending_only=self.pending_only)
        return items, roster.grading(db)

    def show(self, data) -> None:
        items, assessors = data
        pending = sum(1 for i in items if i.final is None)
        self.query_one("#dg-head", Static).update(safe(Text.assemble(
            ("Disagreements", "bold"), f": {len(items)} items graded differently, {pending} not "
            "adjudicated yet · Enter: read and set the final grade (used by the "
            "consensus:adjudicated source)",
            ("" if items else "\nNothing to adjudicate with these filters: items two or more "
             "assessors graded differently show up here as they are judged.", "yellow"))))
        self.query_one("#dg-filters", Static).update(safe(Text(
            f"query: {self.query_filter or 'all'} · spread ≥ {self.min_spread} (keys 1 2 3) · "
            f"{'pending only' if self.pending_only else 'adjudicated too'} (u)")))
        dt = self.query_one("#dg-table", DataTable)
        place = table_place(dt)
        if assessors != self._assessors or not dt.columns:
            self._assessors = list(assessors)
            dt.clear(columns=True)
            dt.add_column("query", key="query")
            dt.add_column("document", key="document")
            for a in assessors:
                dt.add_column(Text(a, justify="right"), key=f"a:{a}")
            for col in ("spread", "majority", "final"):
                dt.add_column(Text(col, justify="right"), key=col)
        rows = []
        for item in items:
            grades = dict(item.grades)
            cells = [Text(item.query), Text(item.document)]
            cells += [Text("·" if grades.get(a) is None else str(grades[a]), justify="right",
                           style="dim" if grades.get(a) is None else "") for a in assessors]
            cells += [
                Text(str(item.spread), justify="right", style="bold red" if item.spread >= 2 else ""),
                Text(str(item.majority), justify="right"),
                Text("" if item.final is None else str(item.final), justify="right", style="bold green"),
            ]
            rows.append((f"{item.query}\x1f{item.document}", cells))
        fill_table(dt, rows, place)
        if not self.query_one("#dg-query", Input).has_focus:
            dt.focus()

    def action_open(self) -> None:
        key = cursor_key(self.query_one("#dg-table", DataTable))
        if key is None:
            return
        query, document = key.split("\x1f")
        open_adjudication(self, query, document, self._adjudicated)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def _adjudicated(self, record) -> None:
        if record is not None:
            final = "cleared" if record.new_grade is None else f"set to {record.new_grade}"
            self.notify(f"{record.query} / {record.document}: final grade {final}", markup=False)
            if not self.pending_only:  # pending only: the row leaves, the next one moves up
                dt = self.query_one("#dg-table", DataTable)
                if dt.cursor_row + 1 < dt.row_count:
                    dt.move_cursor(row=dt.cursor_row + 1)  # on to the next item
            self.reload()

    def action_spread(self, n: int) -> None:
        self.min_spread = n
        self.reload()

    def action_pending(self) -> None:
        self.pending_only = not self.pending_only
        self.reload()

    def action_filter(self) -> None:
        self.query_one("#dg-query", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        query = event.value.strip() or None
        problem = id_problem(query, "query id") if query else None
        if problem is not None:  # (no such query can exist: say why)
            self.notify(problem, severity="error", markup=False)
            return
        self.filter_query(query)

    def filter_query(self, query: str | None) -> None:
        """Show only `query`'s disagreements (None: all); also used by the agreement screen."""
        self.query_filter = query
        self.query_one("#dg-query", Input).value = query or ""
        self.query_one("#dg-table", DataTable).focus()
        self.reload()

    def export_text(self, fmt: str) -> str:
        import io

        from workbench.campaign.catalog.exporting import export_judgments, export_qrels
        from workbench.campaign.scoring.sources import QrelsSource
        from workbench.tui.exports import csv_text

        if fmt != "csv":
            out = io.StringIO()
            if fmt.startswith("judgments"):
                export_judgments(self.app.db, out, history=True)
            else:
                export_qrels(self.app.db, out, QrelsSource.consensus("adjudicated"))
            return out.getvalue()

        items, assessors = self.data
        return csv_text(
            ["query", "document", *assessors, "spread", "majority", "final"],
            ([item.query, item.document, *(dict(item.grades).get(a, "") for a in assessors),
              item.spread, item.majority, "" if item.final is None else item.final]
             for item in items),
        )
