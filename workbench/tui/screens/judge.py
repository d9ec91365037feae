"""The judging screen: one query's queue, the current document, the scale, live scores.

Saving: a grade is written on a background thread (the app's `Background` writer, see
background.py) and the screen marks it saved (and moves on) only when the job reports the
commit. Measured here (bench/tui_bench.py), `record_grade` on SQLite WAL with
synchronous=FULL takes p50 ~1.5 ms on a quiet machine but 10-20 ms p50 (40+ ms max) when
the disk and CPUs are busy: every commit is an fsync, and PostgreSQL adds a network round
trip. That is not "provably < 5 ms", so the write never runs on the event loop. Keys pressed while a save is in flight are
queued and replayed in order after it, so typing ahead ("2 j 3") acts as if each save had
been instant, and a failed save drops the queued keys and leaves the cursor where it was.

Seconds spent: from the moment the document was (last) shown to the grade key, counted up to
the campaign's idle cap (`workbench campaign --idle-cap`, 5 min by default; shown on the
status line and in the help): longer is idle time, not judging.

Skip and "can't judge": `l` (later) moves the document to the end of this query's queue for
this session only (nothing is stored: the next time the queue opens in its own order); `c`
asks for an optional reason and stores a "can't judge / broken document" mark
(campaign/cant_judge.py): not a grade, but it settles the document, which counts as done;
`c` on a marked document removes the mark.

Blind: nothing here shows a system, original rank, score or another assessor's grade. The
live score panel (key s) exists only when the campaign is not blind (`workbench campaign
--not-blind`, for tuning sessions where the people judging own the systems); in a blind
campaign its key, help row and palette entry are gone, and it never opens.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, OptionList

from workbench.campaign.judging.assessing import QueryProgress, QueueItem, ScaleEntry
from workbench.campaign.judging.session import JudgingSession, Saved, SessionEnded
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
from workbench.tui.screens.help import HelpScreen
from workbench.tui.screens.note import NoteScreen
from workbench.tui.widgets.document_view import DocumentView
from workbench.tui.widgets.pool_list import PoolList
from workbench.tui.widgets.query_panel import QueryPanel
from workbench.tui.widgets.scale_legend import ScaleLegend
from workbench.tui.widgets.score_panel import ScorePanel
from workbench.tui.text import describe
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


class JudgeScreen(Screen):
    """Judge `query` as `assessor` (None query: the first query with unjudged documents)."""

    # The one registry of the screen's actions: footer, help screen and palette use it.
    BINDINGS = [
        *[Binding(str(d), f"grade({d})", f"grade {d}", show=False) for d in range(10)],
        Binding("j,down", "move(1)", "next doc", show=False, priority=True),
        Binding("k,up", "move(-1)", "previous doc", show=False, priority=True),
        Binding("u", "undo", "Undo"),
        Binding("n", "note", "Note"),
        Binding("l", "later", "Later",
                tooltip="later: skip for now, to the end of this query's queue (this session "
                        "only; nothing is stored)"),
        Binding("c", "cant_judge", "Can't judge",
                tooltip="can't judge / broken document: stored as a mark, not a grade; counts "
                        "as done (c again removes it)"),
        Binding("g", "guidelines", "Guidelines"),
        Binding("right_square_bracket", "next_query(1)", "Next query", key_display="]"),
        Binding("left_square_bracket", "next_query(-1)", "Prev query", key_display="["),
        Binding("s", "toggle_scores", "Scores"),
        Binding("question_mark", "help", "Help", key_display="?"),
        # Priority: the queue list has focus and would take these keys to move the cursor
        # to another document, and the next digit would grade one the assessor never read.
        Binding("pagedown,space", "scroll_doc('down')", "scroll document down",
                key_display="PgDn/Space", show=False, priority=True),
        Binding("pageup,b", "scroll_doc('up')", "scroll document up",
                key_display="PgUp/b", show=False, priority=True),
        Binding("home", "scroll_doc('home')", "top of the document", show=False, priority=True),
        Binding("end", "scroll_doc('end')", "end of the document", show=False, priority=True),
        Binding("escape", "back", "Queries"),
    ]

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

    @work(thread=True, group="load")
    def _load(self, query: str | None, prepare: bool = False) -> None:
        waiting = lambda: self.post_message(WriteWaiting())  # noqa: E731
        try:
            opening = self.session.read(query, prepare=prepare, on_wait=waiting)
        except SessionEnded as exc:
            self.post_message(JudgingStopped(str(exc)))
            return
        except Exception as exc:  # any failure is shown, never raised into the app
            self.post_message(WorkFailed("load", describe(exc)))
            return
        if opening is None:
            self.post_message(WorkFailed("empty", f"nothing is assigned to {self.assessor}"))
            return
        self.post_message(QueueLoaded(opening))

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

    @work(thread=True, group="poll", exclusive=True)
    def _poll_job(self) -> None:
        try:
            self.post_message(SessionPolled(self.session.poll()))
        except Exception:  # noqa: BLE001 - a missed poll is retried at the next tick
            return

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

    def _failed(self, index: int, exc: Exception) -> None:
        """(writer thread) A write failed: shown, the cursor stays; SessionEnded stops."""
        if isinstance(exc, SessionEnded):
            self.post_message(JudgingStopped(str(exc)))
        else:
            self.post_message(GradeFailed(index, describe(exc)))

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

    def _save_job(
        self, query: str, index: int, item: QueueItem, grade: int, seconds: float, note: str | None
    ) -> None:
        """(writer thread) Commit one grade, then report it; never touches widgets."""
        try:
            saved = self.session.save_grade(query, item, grade, seconds=seconds, note=note)
        except Exception as exc:  # shown in the UI; the cursor stays
            self._failed(index, exc)
            return
        record = saved.record
        # With the panel open (and its scores loaded), recompute this query's scores here,
        # right after the commit and BEFORE telling the screen: the screen then redraws once
        # for both, instead of redrawing "saved" while this thread computes and the two
        # fight over the GIL (measured: that doubled the key -> panel time).
        tracker = self.app.score_tracker(self.assessor) if self.panel_on else None
        if tracker is not None and tracker.loaded:
            table = self._scores_table([record.query])
            self.post_message(GradeSaved(index, record, table=table, queue=saved.queue))
            return
        self.post_message(GradeSaved(index, record, queue=saved.queue))
        if self.panel_on:
            self._scores_now([record.query])

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

    def _mark_job(self, query: str, index: int, item: QueueItem, reason: str | None) -> None:
        """(writer thread) Commit the mark (reason given) or its removal (None)."""
        try:
            saved = self.session.save_mark(query, item, reason)
        except Exception as exc:  # shown in the UI; the cursor stays
            self._failed(index, exc)
            return
        self.post_message(MarkSaved(index, saved.record, queue=saved.queue))

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

    def _undo_job(self, query: str, cursor: int) -> None:
        try:
            record = self.session.save_undo(query)
        except Exception as exc:
            self._failed(cursor, exc)
            return
        self.post_message(UndoDone(record))

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

    def _save_note_job(self, query: str, index: int, document: str, note: str) -> None:
        try:
            self.session.save_note(query, document, note)
        except SessionEnded as exc:
            self.post_message(JudgingStopped(str(exc)))
            return
        except Exception as exc:
            self.post_message(WorkFailed("note", describe(exc)))
            return
        self.post_message(NoteSaved(index, note, query, document))

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

    # ---- live scores -----------------------------------------------------------------

    @property
    def panel_on(self) -> bool:
        return self._panel_on

    def _set_blind(self, blind: bool) -> None:
        """Apply the campaign's setting (read with each queue, so a lead's change reaches
        an open screen at the next query): blind closes the panel and drops its key."""
        if blind == self.blind:
            return
        self.blind = blind
        if blind and self._panel_on:
            self.query_one("#scores", ScorePanel).display = self._panel_on = False
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.ended and action in _WRITES:
            return False  # stopped: no key writes (the status line says why)
        if action == "toggle_scores" and self.blind:
            return False  # no key, no footer entry: blind judging has no scores at all
        return True

    def action_toggle_scores(self) -> None:
        if self.blind:
            return
        panel = self.query_one("#scores", ScorePanel)
        panel.display = self._panel_on = not panel.display
        if self._panel_on:
            self._refresh_scores()

    def _refresh_scores(self, query: str | None = None) -> None:
        """After a change that did not recompute in the save worker: recompute `query` now
        if the panel is open, else remember it for when the panel opens."""
        dirty = self.app.score_dirty(self.assessor)
        if query is not None:
            dirty.add(query)
        if self._panel_on:
            queries = list(dirty)
            dirty.clear()
            self._compute_scores(queries)

    @work(thread=True, group="scores")
    def _compute_scores(self, queries: list[str]) -> None:
        self._scores_now(queries)

    def _scores_now(self, queries: list[str]) -> None:
        """(worker thread) Recompute `queries` (everything the first time) and post it."""
        table = self._scores_table(queries)
        if table is not None:
            self.post_message(ScoresUpdated(table, self.query_ext))

    def _scores_table(self, queries: list[str]):
        """(worker thread) The recomputed table, or None after posting the error."""
        try:
            tracker = self.app.score_tracker(self.assessor)
            for q in queries:
                tracker.mark_dirty(q)
            return tracker.refresh()
        except Exception as exc:
            self.post_message(WorkFailed("scores", describe(exc)))
            return None

    def on_scores_updated(self, message: ScoresUpdated) -> None:
        self.query_one("#scores", ScorePanel).show(message.table, self.query_ext)
        if self.timings and not self.timings[-1][2]:
            self.timings[-1][2] = time.perf_counter()

    # ---- help and palette ------------------------------------------------------------

    def action_help(self) -> None:
        rows = [  # a binding's tooltip is its longer description
            (b.key_display or b.key, b.tooltip or b.description)
            for b in self.BINDINGS
            if not b.action.startswith("grade(") and self.check_action(b.action, ())
        ]
        grades = ", ".join(f"{lv.grade} {lv.label}" for lv in self.levels)
        extra = [("0-9", f"grade and move to the next unjudged ({grades})")]
        cap = describe_idle_cap(self.idle_cap)
        extra.append(("", f"seconds per document count up to {cap} (idle cap; longer is idle "
                          "time, not counted)"))
        self.app.push_screen(HelpScreen(rows, extra))

    def palette_commands(self) -> list[tuple[str, str, Callable[[], None]]]:
        """Actions for the command palette (App.get_system_commands)."""
        commands = [
            (f"Grade {lv.grade}: {lv.label}", "Grade the current document",
             (lambda g=lv.grade: self.action_grade(g)))
            for lv in self.levels
        ]
        commands += [
            ("Undo last grade", "Revert your last change in this query", self.action_undo),
            ("Add a note", "Write a note on the current document", self.action_note),
            ("Later", "Skip this document for now: to the end of the queue", self.action_later),
            ("Can't judge", "Mark this document can't judge / broken (not a grade)",
             self.action_cant_judge),
            ("Next query", "Next query with unjudged documents", lambda: self.action_next_query(1)),
            ("Previous query", "Previous query with unjudged documents",
             lambda: self.action_next_query(-1)),
        ]
        if not self.blind:
            commands.append(
                ("Toggle live scores", "Show or hide the live score panel", self.action_toggle_scores)
            )
        return commands + [("Back to the query list", "Leave this query", self.action_back)]
