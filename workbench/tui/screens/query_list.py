"""An assessor's queries: a progress bar per query (judged / pooled) and the overall count."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, ProgressBar, Static

from workbench.campaign.judging import assessing
from workbench.campaign.judging.assessing import QueryProgress
from workbench.tui.messages import ProgressLoaded, WorkFailed
from workbench.tui.text import safe

BAR_WIDTH = 20


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
        self.progress: list[QueryProgress] = []

    def compose(self) -> ComposeResult:
        yield Static(id="ql-head")
        yield ProgressBar(id="ql-overall", show_eta=False)
        yield DataTable(id="ql-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="ql-empty")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#ql-table", DataTable)
        table.add_columns("query", "title", "progress", "judged")
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

    @work(thread=True, group="load")
    def _load(self, assign: bool) -> None:
        db = self.app.db
        try:
            assigned = 0
            if assign:
                assessing.ensure_assessor(db, self.assessor)
                assigned = assessing.ensure_assignments(db, self.assessor)
            progress = assessing.query_progress(db, self.assessor)
        except Exception as exc:
            from workbench.tui.text import describe

            self.post_message(WorkFailed("load", describe(exc)))
            return
        self.post_message(ProgressLoaded(progress, assigned))

    def on_progress_loaded(self, message: ProgressLoaded) -> None:
        self.progress = message.progress
        if message.assigned:
            self.notify(f"Assigned the whole pool to {self.assessor}: {message.assigned} documents.",
                        markup=False)
        table = self.query_one("#ql-table", DataTable)
        keep = table.cursor_row
        table.clear()
        for p in self.progress:
            table.add_row(safe(Text(p.query)), safe(Text(p.title, overflow="ellipsis", no_wrap=True)),
                          safe(bar(p.judged, p.pooled)), safe(Text(f"{p.judged}/{p.pooled}")), key=p.query)
        judged = sum(p.judged for p in self.progress)
        pooled = sum(p.pooled for p in self.progress)
        done = sum(1 for p in self.progress if p.done)
        self.query_one("#ql-head", Static).update(safe(Text(
            f"{self.assessor}: {judged}/{pooled} items judged · "
            f"{done}/{len(self.progress)} queries done   (Enter judges, r resumes)"
        )))
        self.query_one("#ql-overall", ProgressBar).update(total=max(pooled, 1), progress=judged)
        empty = self.query_one("#ql-empty", Static)
        empty.display = not self.progress
        table.display = bool(self.progress)
        empty.update(safe(Text(
            f"Nothing to judge for {self.assessor}: there is no pool yet. Import queries, documents "
            "and runs, then run `workbench pool --depth 10`."
        )))
        if self.progress:
            first = assessing.first_query_with_unjudged(self.progress)
            ids = [p.query for p in self.progress]
            table.move_cursor(row=keep if keep and keep < len(ids) else ids.index(first or ids[0]))
            table.focus()

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
