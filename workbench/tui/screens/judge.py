"""The judging screen: one query's queue, the current document, the scale, live scores.

It only shows: the rules (the queue and its "later" rule, what is current, undo, marks,
repeats, one session per assessor) are the JudgingSession's (campaign/judging/session.py).
Its workers (judge_workers.py) read and write; its actions are in judge_actions.py; the
live score panel, which exists only in a campaign that is not blind, in judge_scores.py.

Saving: a grade is written on the app's writer thread and shown as saved (the cursor moves
on) only when the commit is reported: on SQLite WAL with synchronous=FULL a commit takes
p50 ~1.5 ms on a quiet machine but 10-20 ms (40+ ms max) on a busy one (bench/tui_bench.py),
so no write runs on the event loop. Keys pressed while a save is in flight are queued and
replayed in order after it ("2 j 3" acts as if each save had been instant); a failed save
drops them and leaves the cursor where it was. Seconds spent count from the moment the
document was shown, up to the campaign's idle cap.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, OptionList

from workbench.campaign.judging.assessing import QueryProgress, QueueItem, ScaleEntry
from workbench.campaign.judging.session import JudgingSession, Saved
from workbench.campaign.settings import DEFAULT_IDLE_CAP, describe_idle_cap
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
from workbench.tui.screens.judge_actions import JUDGE_BINDINGS, help_screen, palette_commands
from workbench.tui.screens.judge_scores import LiveScores
from workbench.tui.screens.judge_workers import JudgeWorkers
from workbench.tui.screens.note import NoteScreen
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


def _release(session: JudgingSession) -> None:
    """(writer thread) Give the assessor's lease back as the screen closes."""
    try:
        session.release()
    except Exception:  # noqa: BLE001 - a lease left behind is taken over by the next session
        pass


class JudgeScreen(JudgeWorkers, LiveScores, Screen):
    """Judge `query` as `assessor` (None query: the first query with unjudged documents)."""

    BINDINGS = JUDGE_BINDINGS

    def __init__(self, assessor: str, query: str | None = None, *, prepare: bool = False) -> None:
        super().__init__()
        self.assessor = assessor
        self._first_query = query
        # prepare: create the assessor / assign the pool first (opened straight from the CLI)
        self.prepare = prepare
        self.session: JudgingSession | None = None  # made on mount (it needs the app's db)
        self.saving = False
        self.loaded = False
        self.ended = ""  # why the session ended (removed, taken over); "" while it goes on
        self._pending: deque[Callable[[], None]] = deque()
        self._shown_index: int | None = None
        self.shown_at = time.monotonic()
        # Bench/diagnostics: (key pressed, commit reported, panel updated) perf_counter times.
        self.timings: list[list[float]] = []
        self._t_key = 0.0
        self._panel_on = False  # the live panel is off by default
        self.blind = True  # until the campaign's setting is read with the first queue
        self.guidelines = ""
        self._guidelines_shown = False

    # The session holds the queue; these read it (tests and benches use them).
    @property
    def items(self) -> list[QueueItem]:
        return self.session.items if self.session is not None else []

    @property
    def progress(self) -> list[QueryProgress]:
        return self.session.progress if self.session is not None else []

    @property
    def levels(self) -> list[ScaleEntry]:
        return self.session.levels if self.session is not None else []

    @property
    def query_ext(self) -> str | None:
        if self.session is not None and self.session.query is not None:
            return self.session.query
        return self._first_query

    @property
    def idle_cap(self) -> int:
        return self.session.idle_cap if self.session is not None else DEFAULT_IDLE_CAP

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
        self.session = JudgingSession(self.app.db, self.assessor)
        self.query_one("#scores", ScorePanel).display = False
        self.query_one("#pool", PoolList).focus()
        self.query_one("#status", StatusLine).show("loading…")
        prepare, self.prepare = self.prepare, False
        self._load(self._first_query, prepare)
        self.set_interval(POLL_S, self._poll)

    def on_unmount(self) -> None:
        session = self.session
        if session is not None and session.claimed and not self.ended:
            self.app.background.submit(_release, session)  # after the writes in flight

    # ---- loading ---------------------------------------------------------------------

    def on_write_waiting(self, message: WriteWaiting) -> None:
        from workbench.campaign.writing import WAITING

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
        self.loaded = True
        self.saving = False
        took = (f"took over {self.assessor}'s judging from another session "
                f"({opening.took_over}), which stops") if opening.took_over else ""
        self._update_status(took)
        if took:
            self.notify(took[0].upper() + took[1:] + ".", markup=False, timeout=8)
        self._refresh_scores()
        self._drain()

    # ---- the session in the database: counts, takeover, removal ----------------------

    def _poll(self) -> None:
        if self.loaded and not self.saving and not self.ended and self.session.claimed:
            self._poll_job()

    def on_session_polled(self, message: SessionPolled) -> None:
        if message.poll.ended:
            self.on_judging_stopped(JudgingStopped(message.poll.ended))
        elif not self.saving and not self.ended:
            self.session.refreshed(message.poll.progress)
            self._update_status(self._state)

    def on_judging_stopped(self, message: JudgingStopped) -> None:
        """The session ended: say why and stop (no key writes any more)."""
        if self.ended:
            return
        self.ended = message.reason
        self.saving = False
        self.loaded = True
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

    _state = ""

    def _update_status(self, state: str = "", *, error: bool = False) -> None:
        if self.ended:
            return
        self._state = state
        judged, total, where, total_j, total_p = self.session.counts()
        text = (
            f"{self.assessor} · {self.query_ext} {judged}/{total} judged · "
            f"{where} · overall {total_j}/{total_p} · idle cap {describe_idle_cap(self.idle_cap)}"
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
        if not self.session.on_scale(grade):
            self.notify(f"{grade} is not on the scale", severity="warning", markup=False)
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

    def _show_saving(self) -> None:
        if self.saving:
            self._update_status("saving…")

    def on_grade_saved(self, message: GradeSaved) -> None:
        grown = self.session.take_grown_queue(message.queue)
        before = self.session.items
        self.session.graded(message.index, Saved(message.record))
        self._refresh_list(message.index, before, grown)
        self.saving = False
        self.timings.append([self._t_key, time.perf_counter(), 0.0])
        done = " · query done: ] for the next one" if self.session.query_done else ""
        self._follow(redraw=True)
        self._update_status(f"saved {message.record.new_grade}{done}")
        if message.table is not None:  # recomputed by the save job (panel open)
            self.on_scores_updated(ScoresUpdated(message.table, self.query_ext))
        elif not self._panel_on:
            self.app.score_dirty(self.assessor).add(self.query_ext)
        self._drain()

    def _refresh_list(self, index: int, before: list[QueueItem], grown: bool) -> None:
        """Redraw the list lines that changed (all of them when the queue grew or what the
        lines may show changed: see session.hide_repeat_pairs)."""
        pool = self.query_one("#pool", PoolList)
        items = self.items
        if grown or len(before) != len(items):
            pool.show_items(items)
            return
        for i, (old, new) in enumerate(zip(before, items)):
            if old is not new:
                pool.refresh_item(i, new)

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
        item = self.session.current
        if item is None or self.session.later() is None:
            return
        self._redraw_list()
        self._update_status(f"later: {item.title or item.document} moved to the end of the queue")

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

        self.app.push_screen(NoteScreen(
            "", item.title or item.document, placeholder="what is wrong (optional)…",
            heading=f"Can't judge {item.title or item.document}? Reason, optional "
                    "(Enter marks it, Esc cancels)",
        ), done)

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
        grown = self.session.take_grown_queue(message.queue)
        before = self.session.items
        self.session.marked(message.index, Saved(record))
        self._refresh_list(message.index, before, grown)
        self.saving = False
        if record.cleared_grade is not None:  # qrels of this query changed
            self._refresh_scores(record.query)
        self._follow(redraw=True)
        if not record.marked:
            self._update_status("mark removed: grade it when you can")
        else:
            state = "marked can't judge"
            if record.cleared_grade is not None:
                state += f" (your grade {record.cleared_grade} is cleared; u brings it back)"
            done = " · query done: ] for the next one" if self.session.query_done else ""
            self._update_status(state + done)
        self._drain()

    # ---- moving ----------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        if self._busy(lambda: self.action_move(step)):
            return
        if self.session.move(step) is not None:
            self._follow()

    def action_scroll_doc(self, where: str) -> None:
        view = self.query_one("#document", DocumentView)
        {
            "down": view.scroll_page_down, "up": view.scroll_page_up,
            "home": view.scroll_home, "end": view.scroll_end,
        }[where](animate=False)

    def on_resize(self) -> None:
        # Keep the cursor in sight when the terminal changes size.
        pool = self.query_one("#pool", PoolList)
        self.call_after_refresh(pool.scroll_to_highlight)

    def action_next_query(self, step: int) -> None:
        if self._busy(lambda: self.action_next_query(step)):
            return
        target = self.session.next_query(step)
        if target is None:
            self.notify("No other query has unjudged documents.", markup=False)
            return
        self.loaded = False
        self._update_status(f"opening {target}…")
        self._load(target)

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
            before = self.session.items
            self.session.undone(record)
            self._refresh_list(0, before, False)
            self._follow(redraw=True)  # the document's grade changed
            shown = "ungraded" if record.new_grade is None else f"back to {record.new_grade}"
            if record.cant_judge is not None:
                shown = ("marked can't judge again" if record.cant_judge
                         else "mark removed" + ("" if record.new_grade is None
                                                else f", back to {record.new_grade}"))
            self._update_status(f"undone: {record.document} {shown}")
            self._refresh_scores(record.query)
        self._drain()

    def action_guidelines(self) -> None:
        """The campaign's guidelines beside this query's narrative."""
        from workbench.tui.screens.guidelines import GuidelinesScreen

        if isinstance(self.app.screen, GuidelinesScreen):
            return
        view = self.query_one("#query-panel", QueryPanel).view
        self.app.push_screen(GuidelinesScreen(self.guidelines, self.query_ext or "",
                                              view.narrative if view is not None else ""))

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

    def palette_commands(self) -> list[tuple[str, str, Callable[[], None]]]:
        """Actions for the command palette (App.get_system_commands)."""
        return palette_commands(self)
