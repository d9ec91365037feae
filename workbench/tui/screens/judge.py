"""The judging screen: one query's queue, the current document, the scale, live scores.

It only shows: the rules (queue, "later", what is current, undo, marks, repeats, one
session per assessor) are the JudgingSession's (campaign/judging/session.py). Workers:
judge_workers.py; actions: judge_actions.py; live scores (not blind only): judge_scores.py.

A grade is written on the app's writer thread and shown as saved only when the commit is
reported (a commit takes 1.5 ms p50 quiet, 10-40 ms busy: bench/tui_bench.py). Keys pressed
meanwhile are queued and replayed in order ("2 j 3" acts as if each save were instant); a
failed save drops them and leaves the cursor where it was.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, OptionList

from workbench.campaign.judging.assessing import QueueItem
from workbench.campaign.judging.session import JudgingSession, Saved
from workbench.campaign.settings import DEFAULT_IDLE_CAP, describe_idle_cap
from workbench.campaign.writing import WAITING
from workbench.tui.messages import (
    GradeFailed,
    GradeSaved,
    JudgingStopped,
    MarkSaved,
    NoteSaved,
    QueueLoaded,
    ScoresUpdated,
    SessionPolled,
    UndoDone,
    WorkFailed,
    WriteWaiting,
)
from workbench.tui.screens.judge_actions import (
    JUDGE_BINDINGS,
    cant_judge_dialog,
    guidelines_screen,
    help_screen,
    palette_commands,
)
from workbench.tui.screens.judge_scores import LiveScores
from workbench.tui.screens.judge_workers import JudgeWorkers
from workbench.tui.screens.note import NoteScreen
from workbench.tui.text import describe  # noqa: F401 - errors shown as the workers show them
from workbench.tui.widgets.document_view import DocumentView
from workbench.tui.widgets.pool_list import PoolList
from workbench.tui.widgets.query_panel import QueryPanel
from workbench.tui.widgets.scale_legend import ScaleLegend
from workbench.tui.widgets.score_panel import ScorePanel
from workbench.tui.widgets.status_line import StatusLine


# The actions that write: gone from the keys and the footer once the session ended.
_WRITES = frozenset({"grade", "undo", "note", "cant_judge", "later", "next_query"})
# How often an open screen reads its counts and its session's lease from the database.
POLL_S = 2.0
# Below this many columns (a phone's browser: 390 CSS px at 16 px is 40 columns) the screen
# takes its narrow layout (app.tcss, "-narrow"): the queue list hidden, the document over
# the whole width, the scale bar wrapped over as many lines as it needs.
NARROW_BELOW = 64
# A note on a document not graded yet is kept (here and in a later session) and goes on the
# judgment with the first grade: only then does `export judgments` list it.
UNGRADED_NOTE = "Note saved; it is exported with this document's grade once you grade it."


class JudgeScreen(JudgeWorkers, LiveScores, Screen):
    """Judge `query` as `assessor` (None query: the first query with unjudged documents)."""

    BINDINGS = JUDGE_BINDINGS
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_BELOW, "-wide")]

    def __init__(self, assessor: str, query: str | None = None, *, prepare: bool = False) -> None:
        super().__init__()
        self.assessor, self._first_query = assessor, query
        self.prepare = prepare  # create the assessor / assign the pool first (from the CLI)
        self.session: JudgingSession | None = None  # made on mount (it needs the app's db)
        self.saving = self.loaded = False
        self.ended = ""  # why the session ended (removed, taken over); "" while it goes on
        self._pending: deque[Callable[[], None]] = deque()
        self._shown_index: int | None = None
        self.shown_at = time.monotonic()
        # Bench/diagnostics: (key pressed, commit reported, panel updated) perf_counter times.
        self.timings: list[list[float]] = []
        self._t_key = 0.0
        self._panel_on = False  # the live panel is off by default
        self.blind = True  # until the campaign's setting is read with the first queue
        self.guidelines, self._guidelines_shown = "", False
        self._state = ""  # the status line's last message (kept when the counts refresh)

    # The session holds the queue; these read it (tests and benches use them).
    items = property(lambda self: self.session.items if self.session else [])
    levels = property(lambda self: self.session.levels if self.session else [])
    idle_cap = property(lambda self: self.session.idle_cap if self.session else DEFAULT_IDLE_CAP)
    query_ext = property(lambda self: (self.session and self.session.query) or self._first_query)

    # ---- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield QueryPanel(id="query-panel")
        with Horizontal(id="judge-main"):
            yield PoolList(id="pool")
            yield DocumentView(id="document")
            yield ScorePanel(id="scores")
        yield StatusLine(id="status")
        yield ScaleLegend(id="legend")
        yield Footer()

    def on_mount(self) -> None:
        served = getattr(self.app, "served", False)
        self.session = JudgingSession(self.app.db, self.assessor, show_holder=not served,
                                      holder="a browser (workbench serve)" if served else "")
        self.query_one("#scores", ScorePanel).display = False
        self.query_one("#pool", PoolList).focus()
        self.query_one("#status", StatusLine).show("loading…")
        prepare, self.prepare = self.prepare, False
        self._load(self._first_query, prepare)
        self.set_interval(POLL_S, self._poll)

    def on_unmount(self) -> None:
        if self.session is not None and self.session.claimed and not self.ended:
            try:
                self.app.background.submit(self._release_job)  # after the writes in flight
            except RuntimeError:  # the writer already stopped (the app is closing)
                self._release_job()

    # ---- loading ---------------------------------------------------------------------

    def on_write_waiting(self, message: WriteWaiting) -> None:
        self.query_one("#status", StatusLine).show(WAITING)

    def on_queue_loaded(self, message: QueueLoaded) -> None:
        opening = message.opening
        self.guidelines = opening.guidelines
        if opening.first_start and opening.guidelines and not self._guidelines_shown:
            self._guidelines_shown = True  # once per screen: at the assessor's first start
            self.call_after_refresh(self.action_guidelines)
        self.session.show(opening)
        self._set_blind(opening.blind)
        if opening.levels:
            self.query_one("#legend", ScaleLegend).show(self.levels)
        self.query_one("#query-panel", QueryPanel).show(opening.queue.query)
        self._redraw_list()
        self.loaded, self.saving = True, False
        self._update_status(self.session.said)
        self.set_timer(0.5, self._poll)  # the overall counts, once the screen is drawn
        if opening.took_over:
            self.notify(self.session.said, markup=False, timeout=8)
        self._refresh_scores()
        self._drain()

    # ---- the session in the database: counts, takeover, removal ----------------------

    def _poll(self) -> None:
        self.loaded and not self.saving and not self.ended and self.session.claimed and (
            self._poll_job())

    def on_session_polled(self, message: SessionPolled) -> None:
        if message.poll.ended:
            self.on_judging_stopped(JudgingStopped(message.poll.ended))
        elif not self.saving and not self.ended:
            current = self.session.current  # (its document redrawn only if it changed)
            self._redraw_changed(self.items, lambda: self.session.refreshed(message.poll))
            self.session.current is not current and self._follow(redraw=True)
            self._update_status(self._state)

    def _redraw_changed(self, before: list[QueueItem], command: Callable[[], object]) -> None:
        """Run `command`, then redraw the list lines it changed (all when the queue grew)."""
        command()
        pool, items = self.query_one("#pool", PoolList), self.items
        if len(before) != len(items):
            return pool.show_items(items)
        for i, (old, new) in enumerate(zip(before, items)):
            if old is not new:
                pool.refresh_item(i, new)

    def on_judging_stopped(self, message: JudgingStopped) -> None:
        """The session ended: say why and stop (no key writes any more)."""
        if self.ended:
            return
        self.ended = message.reason
        self.saving, self.loaded = False, True
        self._pending.clear()
        self.query_one("#status", StatusLine).show(f"STOPPED: {message.reason}", error=True)
        self.notify(message.reason, severity="error", markup=False, timeout=30)
        self.refresh_bindings()

    # ---- cursor and display ----------------------------------------------------------

    @property
    def cursor(self) -> int | None:
        return self.query_one("#pool", PoolList).highlighted

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if self.session is not None:
            self.session.select(self.cursor)
        self._show_current()

    def _show_current(self) -> None:
        index = self.cursor
        if index == self._shown_index and index is not None:
            return
        self._shown_index = index
        self.shown_at = time.monotonic()  # seconds spent count from here
        item = self.items[index] if index is not None and self.items else None
        self.query_one("#document", DocumentView).show(item, (index or 0) + 1, len(self.items))

    def _set_cursor(self, index: int | None) -> None:
        """Show the session's current item (`index`)."""
        if index is None:
            return
        self.session.select(index)
        self.query_one("#pool", PoolList).highlighted = index
        self._show_current()

    def _follow(self, *, redraw: bool = False) -> None:
        """Put the list's cursor where the session's is (redraw: the document changed)."""
        if redraw:
            self._shown_index = None
        if self.session.cursor is not None:
            self._set_cursor(self.session.cursor)
        else:
            self._show_current()

    def _redraw_list(self) -> None:
        self.query_one("#pool", PoolList).show_items(self.items)
        self._follow(redraw=True)

    def _update_status(self, state: str = "", *, error: bool = False) -> None:
        if self.ended:
            return
        self._state = state
        judged, total, where, total_j, total_p = self.session.counts()
        overall = "…" if total_j is None else f"{total_j}/{total_p}"
        text = (
            f"{self.assessor} · {self.query_ext} {judged}/{total} judged · "
            f"{where} · overall {overall} items · idle cap {describe_idle_cap(self.idle_cap)}"
        )
        self.query_one("#status", StatusLine).show(text, state, error=error)

    # ---- the queue of keys pressed while a save is in flight -------------------------

    def _busy(self, action: Callable[[], None]) -> bool:
        if self.ended:
            return True  # stopped: keys do nothing (the status line says why)
        if self.saving or not self.loaded:
            self._pending.append(action)
            return True
        return False

    def _drain(self) -> None:
        while self._pending and not self.saving and self.loaded:
            self._pending.popleft()()

    # ---- grading ---------------------------------------------------------------------

    def action_grade(self, grade: int) -> None:
        if self._busy(lambda: self.action_grade(grade)):
            return
        index = self.cursor
        if index is None or not self.items:
            return
        if refusal := self.session.off_scale(grade):
            self.notify(refusal, severity="warning", markup=False)
            return
        item = self.items[index]
        seconds = self.session.seconds(time.monotonic() - self.shown_at)
        self.saving = True
        self._t_key = time.perf_counter()
        # "saving…" only if the commit is slow: redrawing it for every fast grade would
        # compete with the write for the CPU.
        self.set_timer(0.15, self._show_saving)
        self.app.background.submit(self._save_job, self.query_ext, index, item, grade, seconds,
                                   self.session.first_note(item))

    def on_scale_legend_picked(self, message: ScaleLegend.Picked) -> None:
        """A click or tap on the scale bar grades, as the level's digit does."""
        message.stop()
        if self.check_action("grade", (message.grade,)) is not False:
            self.action_grade(message.grade)

    def _show_saving(self) -> None:
        self.saving and self._update_status("saving…")

    def on_grade_saved(self, message: GradeSaved) -> None:
        self._applied(lambda: self.session.graded(message.index, Saved(message.record,
                                                                       message.queue)))
        self.timings.append([self._t_key, time.perf_counter(), 0.0])
        if message.table is not None:  # recomputed by the save job (panel open)
            self.on_scores_updated(ScoresUpdated(message.table, self.query_ext))
        elif not self._panel_on:
            self.app.score_dirty(self.assessor).add(self.query_ext)
        self._drain()

    def _applied(self, command: Callable[[], object]) -> None:
        """Run a session command that applies a committed write; redraw the list lines
        that changed (all when the queue grew), follow the cursor, say what it did."""
        self._redraw_changed(self.items, command)
        self.saving = False
        self._follow(redraw=True)  # the document's grade or mark changed
        self._update_status(self.session.said)

    def on_grade_failed(self, message: GradeFailed) -> None:
        self.saving = False
        self._pending.clear()
        self._update_status(f"NOT SAVED: {message.error}", error=True)
        self.notify(f"Grade not saved: {message.error}", severity="error", markup=False, timeout=8)

    # ---- later and can't judge -------------------------------------------------------

    def action_later(self) -> None:
        """Skip the document for now: it goes to the end of this query's queue."""
        if self._busy(self.action_later):
            return
        if self.session.later() is not None:
            self._redraw_list()
            self._update_status(self.session.said)

    def action_cant_judge(self) -> None:
        """Mark the document "can't judge / broken" (asks for a reason), or remove the mark."""
        if self._busy(self.action_cant_judge):
            return
        index = self.cursor
        if index is None or not self.items:
            return
        item = self.items[index]
        query = self.query_ext
        if item.cant_judge and not item.repeat:
            self._start_mark(index, item, query, None)
            return

        def done(reason: str | None) -> None:
            if reason is not None:
                self._start_mark(index, item, query, reason)

        self.app.push_screen(cant_judge_dialog(item), done)

    def _start_mark(self, index: int, item: QueueItem, query: str, reason: str | None) -> None:
        if self._busy(lambda: self._start_mark(index, item, query, reason)):
            return
        if query != self.query_ext or index >= len(self.items) or (
                self.items[index].position != item.position):
            return  # the queue changed while the reason was typed
        self.saving = True
        self.set_timer(0.15, self._show_saving)
        self.app.background.submit(self._mark_job, query, index, item, reason)

    def on_mark_saved(self, message: MarkSaved) -> None:
        record = message.record
        self._applied(lambda: self.session.marked(message.index, Saved(record, message.queue)))
        if record.cleared_grade is not None:  # qrels of this query changed
            self._refresh_scores(record.query)
        self._drain()

    # ---- moving ----------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        if self._busy(lambda: self.action_move(step)):
            return
        if self.session.move(step) is not None:
            self._follow()

    def action_scroll_doc(self, where: str) -> None:
        view = self.query_one("#document", DocumentView)
        scroll = {"down": "scroll_page_down", "up": "scroll_page_up"}.get(where, f"scroll_{where}")
        getattr(view, scroll)(animate=False)

    def on_resize(self) -> None:
        # Keep the cursor in sight when the terminal changes size.
        pool = self.query_one("#pool", PoolList)
        self.call_after_refresh(pool.scroll_to_highlight)

    def action_next_query(self, step: int) -> None:
        if self._busy(lambda: self.action_next_query(step)):
            return
        self.loaded = False
        self._load(None, step=step)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    # ---- undo and notes --------------------------------------------------------------

    def action_undo(self) -> None:
        if self._busy(self.action_undo):
            return
        self.saving = True
        self._update_status("undoing…")
        self.app.background.submit(self._undo_job, self.query_ext, self.cursor or 0)

    def on_undo_done(self, message: UndoDone) -> None:
        self.saving = False
        record = message.record
        if record is None:
            self._update_status("nothing to undo in this query")
        else:
            self._applied(lambda: self.session.undone(record))
            self._refresh_scores(record.query)
        self._drain()

    def action_guidelines(self) -> None:
        """The campaign's guidelines beside this query's narrative (once at a time)."""
        guidelines = guidelines_screen(self)
        if guidelines is not None:
            self.app.push_screen(guidelines)

    def action_note(self) -> None:
        index = self.cursor
        if index is None or not self.items:
            return
        item = self.items[index]

        def done(text: str | None) -> None:
            if text is not None:
                self._save_note(index, item.document, text)

        self.app.push_screen(NoteScreen(item.note, item.title or item.document), done)

    def _save_note(self, index: int, document: str, note: str) -> None:
        if self.ended:
            return
        self.app.background.submit(self._save_note_job, self.query_ext, index, document, note)

    def on_note_saved(self, message: NoteSaved) -> None:
        items = self.items if message.query == self.query_ext else []
        item = items[message.index] if message.index < len(items) else None
        if item is not None and not item.judged and not item.repeat:
            # stored as an event and kept on the item: the grade carries it into the export
            self.notify(UNGRADED_NOTE, markup=False)
        else:
            self.notify("Note saved.", markup=False)
        if not self.session.noted(message.query, message.index, message.document, message.note):
            return  # another query is shown by now: the note is stored, nothing to redraw
        if self.cursor == message.index:
            self._shown_index = None
            self._show_current()

    def on_work_failed(self, message: WorkFailed) -> None:
        if message.what == "empty":  # back to the query list, which says what to do
            self.action_back()
            return
        if message.what == "none":  # `]` or `[` with every other query done
            self.loaded = True
            self._update_status()
            self.notify(message.error, markup=False)
            self._drain()
            return
        if message.what == "load":
            self.loaded = True  # keys work again, on the query still shown
            self._drain()
        self._update_status(f"{message.what} failed: {message.error}", error=True)
        self.notify(message.error, severity="error", markup=False, timeout=8)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.ended and action in _WRITES:
            return False  # stopped: no key writes (the status line says why)
        return self.scores_allowed(action)

    def action_help(self) -> None:
        self.app.push_screen(help_screen(self))

    palette_commands = palette_commands  # for the command palette (App.get_system_commands)
