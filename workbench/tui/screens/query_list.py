"""An assessor's queries: a progress bar per query (judged / pooled) and the overall count.

Paged from SQL (campaign/judging/assessing.query_progress_page): the first page is drawn,
then the totals are summed, and further pages load as the cursor nears the last row, so a
campaign of 10^6 queries shows its list within 2 s (bench/judge_scale_bench.py)."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, ProgressBar, Static

from workbench.campaign.assessors import roster
from workbench.campaign.judging import assessing
from workbench.campaign.judging.assessing import QueryProgress
from workbench.tui.messages import ProgressLoaded, ProgressSummed, WorkFailed
from workbench.tui.text import safe

BAR_WIDTH = 20
# Columns the query list needs besides the title: a query id and a count of up to 7
# characters, the bar, each column's padding of 2 and a scroll bar.
TITLE_ROOM = 7 + BAR_WIDTH + 9 + 4 * 2 + 2
PAGE = 500  # queries per page read from the database
NEAR_END = 50  # rows from the last loaded one at which the next page loads


def bar(judged: int, pooled: int, width: int = BAR_WIDTH) -> Text:
    filled = round(width * judged / pooled) if pooled else 0
    text = Text("█" * filled, style="green")
    text.append("░" * (width - filled), style="dim")
    return text


class QueryListScreen(Screen):
    """`open_first`: go straight on to the judging screen (`workbench judge`), at the first
    query with unjudged documents, without waiting for this list to load."""

    BINDINGS = [
        Binding("enter", "open", "Judge", show=True),
        Binding("r", "resume", "Resume"),
        Binding("escape", "back", "Assessors"),
        Binding("ctrl+q", "app.quit", "Quit"),
    ]

    def __init__(self, assessor: str, *, open_first: bool = False) -> None:
        super().__init__()
        self.assessor = assessor
        self.open_first = open_first
        self.progress: list[QueryProgress] = []  # the rows loaded so far, in list order
        self._more: int | None = None  # the next page's key (None: every page is loaded)
        self._loading_more = False
        self._first_open: str | None = None
        self._shown: set[str] = set()

    def compose(self) -> ComposeResult:
        yield Static(id="ql-head")
        # Hidden, with a total, until the totals are summed: a bar without a total animates
        # at 15 frames a second, and under the judging screen (`workbench judge` opens it
        # before this list loads) each frame repainted the whole judging screen, competing
        # with every grade (docs/performance.md, "Grading").
        overall = ProgressBar(id="ql-overall", show_eta=False, total=1)
        overall.display = False
        yield overall
        yield DataTable(id="ql-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="ql-empty")
        yield Footer()

    def on_mount(self) -> None:
        from workbench.tui.screens.lead_modes import show_lead_keys

        show_lead_keys(self)  # a lead's footer shows the lead screens' F-keys
        table = self.query_one("#ql-table", DataTable)
        # The title column takes what the others leave (titles are cut with an ellipsis): at
        # 80 columns a 50-character title pushed the judged counts off the right edge.
        table.add_column("query")
        table.add_column("title", width=max(16, self.app.size.width - TITLE_ROOM))
        table.add_column("progress")
        table.add_column("judged")
        self.query_one("#ql-head", Static).update(safe(Text(f"{self.assessor}: loading…")))
        if self.open_first:
            # Straight to judging (the judging screen assigns the pool if needed); this
            # list loads when the assessor comes back to it.
            self.open_first = False
            self._judge_opened = True
            from workbench.tui.screens.judge import JudgeScreen

            self.app.push_screen(JudgeScreen(self.assessor, None, prepare=True))
        else:
            self._load(assign=True)

    _judge_opened = False

    def on_screen_resume(self) -> None:
        # (a resume queued before the judging screen was pushed on top comes after it: the
        # list must not read every query then, 10^6 of them in a big campaign)
        if self.app.screen is not self:
            return
        if self.progress or self._judge_opened:  # back from judging: counts changed
            self._load(assign=False)

    @work(thread=True, group="load", exclusive=True)
    def _load(self, assign: bool) -> None:
        """Page one (or as many pages as the rows shown before, back from judging), then
        the totals; pages up to the first query with work left, when it is further down."""
        db = self.app.db
        keep = len(self.progress)
        try:
            assigned = 0
            if assign:
                roster.create_assessor(db, self.assessor)
                assigned = assessing.ensure_assignments(db, self.assessor)
            rows, more = assessing.query_progress_page(db, self.assessor, 0, max(PAGE, keep))
            self.post_message(ProgressLoaded(rows, assigned, more=more))
            totals, first = assessing.progress_summary(db, self.assessor)
            self.post_message(ProgressSummed(totals, first))
            seen = {p.query for p in rows}
            pages = 0
            while first is not None and first not in seen and more is not None and pages < 20:
                rows, more = assessing.query_progress_page(db, self.assessor, more, PAGE)
                seen.update(p.query for p in rows)
                pages += 1
                self.post_message(ProgressLoaded(rows, append=True, more=more))
        except Exception as exc:
            from workbench.tui.text import describe

            self.post_message(WorkFailed("load", describe(exc)))

    @work(thread=True, group="more", exclusive=True)
    def _load_more(self, after: int) -> None:
        try:
            rows, more = assessing.query_progress_page(self.app.db, self.assessor, after, PAGE)
        except Exception as exc:
            from workbench.tui.text import describe

            self.post_message(WorkFailed("load", describe(exc)))
            return
        self.post_message(ProgressLoaded(rows, append=True, more=more))

    def _add_rows(self, table: DataTable, rows: list[QueryProgress]) -> None:
        for p in rows:
            table.add_row(safe(Text(p.query)), safe(Text(p.title, overflow="ellipsis", no_wrap=True)),
                          safe(bar(p.judged, p.pooled)), safe(Text(f"{p.judged}/{p.pooled}")), key=p.query)

    def on_progress_loaded(self, message: ProgressLoaded) -> None:
        table = self.query_one("#ql-table", DataTable)
        self._more, self._loading_more = message.more, False
        if message.append:
            if message.progress and message.progress[0].query in self._shown:
                return  # a page that raced a reload: already shown
            self.progress.extend(message.progress)
            self._shown.update(p.query for p in message.progress)
            self._add_rows(table, message.progress)
            self._place_cursor(None)
            return
        self.progress = list(message.progress)
        self._shown = {p.query for p in self.progress}
        self._moved = False
        if message.assigned:
            self.notify(f"Assigned the whole pool to {self.assessor}: {message.assigned} documents.",
                        markup=False)
        keep = table.cursor_row
        table.clear()
        self._add_rows(table, self.progress)
        self.query_one("#ql-head", Static).update(safe(Text(f"{self.assessor}: counting…")))
        empty = self.query_one("#ql-empty", Static)
        empty.display = not self.progress
        table.display = bool(self.progress)
        empty.update(safe(Text(
            f"Nothing to judge for {self.assessor}: there is no pool yet. Import queries, documents "
            "and runs, then run `workbench pool --depth 10`."
        )))
        if self.progress:
            self._place_cursor(keep if keep and keep < len(self.progress) else None)
            table.focus()

    def on_progress_summed(self, message: ProgressSummed) -> None:
        t = message.totals
        self.query_one("#ql-head", Static).update(safe(Text(
            f"{self.assessor}: {t.judged}/{t.pooled} items judged · "
            f"{t.done}/{t.queries} queries done   (Enter judges, r resumes)"
        )))
        overall = self.query_one("#ql-overall", ProgressBar)
        overall.update(total=max(t.pooled, 1), progress=t.judged)
        overall.display = True
        self._first_open = message.first_open
        if self.progress and not self._moved:
            self._place_cursor(None)

    _moved = False  # the cursor was placed on a kept row or on the first open query

    def _place_cursor(self, row: int | None) -> None:
        """On `row` (kept from before a reload), else on the first query with work left once
        it is known and loaded, else on the first row."""
        table = self.query_one("#ql-table", DataTable)
        if row is not None:
            self._moved = True
            table.move_cursor(row=row)
            return
        if self._moved:
            return
        ids = [p.query for p in self.progress]
        if self._first_open in ids:
            self._moved = True
            table.move_cursor(row=ids.index(self._first_open))
        elif table.cursor_row is None or table.cursor_row >= len(ids):
            table.move_cursor(row=0)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if (self._more is not None and not self._loading_more
                and event.cursor_row >= len(self.progress) - NEAR_END):
            self._loading_more = True
            self._load_more(self._more)

    def on_work_failed(self, message: WorkFailed) -> None:
        self.notify(message.error, severity="error", markup=False, timeout=8)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self._open(event.row_key.value)

    def action_open(self) -> None:
        table = self.query_one("#ql-table", DataTable)
        if self.progress and table.cursor_row is not None:
            self._open(self.progress[table.cursor_row].query)

    def action_resume(self) -> None:
        if self.progress:
            self._open(None)

    def _open(self, query: str | None) -> None:
        from workbench.tui.screens.judge import JudgeScreen

        self.app.push_screen(JudgeScreen(self.assessor, query))

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        # Started for one assessor this list is the bottom screen: no "back" to offer.
        if action == "back" and self.app.screen_stack[:1] == [self]:
            return False
        return True

    def action_back(self) -> None:
        # In `workbench judge --assessor X` (not a lead) the assessor list stays out of
        # reach: from it X could open another assessor's grades and notes.
        if not getattr(self.app, "lead", True) and self.app.start_assessor:
            self.notify("Ctrl+Q quits.", markup=False)
            return
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()
