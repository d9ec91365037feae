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
from dataclasses import replace

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, OptionList

from workbench.campaign.pooling import adaptive

from workbench.campaign.judging import assessing
from workbench.campaign.judging.assessing import QueryProgress, QueueItem, ScaleEntry
from workbench.campaign.judging.grades import undo_last
from workbench.campaign.settings import (
    DEFAULT_IDLE_CAP,
    campaign_settings,
    counted_seconds,
    describe_idle_cap,
)
from workbench.tui.messages import (
    GradeFailed,
    GradeSaved,
    MarkSaved,
    NoteSaved,
    QueueLoaded,
    ScoresUpdated,
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
        self.query_ext = query
        # prepare: create the assessor / assign the pool first (opened straight from the CLI)
        self.prepare = prepare
        self.items: list[QueueItem] = []
        self.progress: list[QueryProgress] = []
        self.levels: list[ScaleEntry] = []
        self.saving = False
        self.loaded = False
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
        self.idle_cap = DEFAULT_IDLE_CAP
        # `l`: per query, the queue positions put off to the end, in the order put off
        # (this screen's session only: nothing is stored)
        self._later: dict[str, list[int]] = {}

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
        self.query_one("#scores", ScorePanel).display = False
        self.query_one("#pool", PoolList).focus()
        self.query_one("#status", StatusLine).show("loading…")
        prepare, self.prepare = self.prepare, False
        self._load(self.query_ext, prepare)

    # ---- loading ---------------------------------------------------------------------

    @work(thread=True, group="load")
    def _load(self, query: str | None, prepare: bool = False) -> None:
        db = self.app.db
        try:
            if prepare:
                # Writes: they wait for another writer (e.g. a long import) like grades do,
                # and say so on the status line meanwhile.
                waiting = lambda: self.post_message(WriteWaiting())  # noqa: E731
                assessing.ensure_assessor(db, self.assessor, on_wait=waiting)
                assessing.ensure_assignments(db, self.assessor, on_wait=waiting)
            progress = assessing.query_progress(db, self.assessor)
            if query is None:
                query = assessing.first_query_with_unjudged(progress) or (
                    progress[0].query if progress else None
                )
            if query is None:
                self.post_message(WorkFailed("empty", f"nothing is assigned to {self.assessor}"))
                return
            if adaptive.serve_next(db, self.assessor, query):  # e.g. after a crash mid-serve
                progress = assessing.query_progress(db, self.assessor)
            queue = assessing.load_queue(db, self.assessor, query)
            levels = assessing.scale(db)
            settings = campaign_settings(db)  # one read: blind, guidelines, idle cap
        except Exception as exc:  # any failure is shown, never raised into the app
            self.post_message(WorkFailed("load", describe(exc)))
            return
        first = not any(p.judged for p in progress)
        self.post_message(QueueLoaded(queue, progress, levels, settings.blind, settings.guidelines,
                                      first, settings.idle_cap_seconds))

    def on_write_waiting(self, message: WriteWaiting) -> None:
        from workbench.campaign.writing import WAITING

        self.query_one("#status", StatusLine).show(WAITING)

    def on_queue_loaded(self, message: QueueLoaded) -> None:
        queue = message.queue
        self.guidelines = message.guidelines
        if message.first_start and message.guidelines and not self._guidelines_shown:
            self._guidelines_shown = True  # once per screen: at the assessor's first start
            self.call_after_refresh(self.action_guidelines)
        self.query_ext = queue.query.query
        self.idle_cap = message.idle_cap
        self.items = self._put_off(list(queue.items))
        self.progress = message.progress
        self._set_blind(message.blind)
        if message.levels:
            self.levels = message.levels
            self.query_one("#legend", ScaleLegend).show(self.levels)
        self.query_one("#query-panel", QueryPanel).show(queue.query)
        pool = self.query_one("#pool", PoolList)
        self._shown_index = None
        pool.show_items(self.items)
        start = queue.first_unjudged()  # resume at the first unjudged document
        if self.items:
            pool.highlighted = start if start is not None else 0
        self._show_current()
        self.loaded = True
        self.saving = False
        self._update_status()
        self._refresh_scores()
        self._drain()

    # ---- cursor and display ----------------------------------------------------------

    @property
    def cursor(self) -> int | None:
        return self.query_one("#pool", PoolList).highlighted

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_current()

    def _show_current(self) -> None:
        index = self.cursor
        if index == self._shown_index and index is not None:
            return
        self._shown_index = index
        self.shown_at = time.monotonic()  # seconds spent count from here
        item = self.items[index] if index is not None and self.items else None
        self.query_one("#document", DocumentView).show(
            item, (index or 0) + 1, len(self.items)
        )

    def _set_cursor(self, index: int) -> None:
        self.query_one("#pool", PoolList).highlighted = index
        self._show_current()

    def _update_status(self, state: str = "", *, error: bool = False) -> None:
        judged = sum(1 for it in self.items if it.judged)
        total_j = sum(p.judged for p in self.progress)
        total_p = sum(p.pooled for p in self.progress)
        ids = [p.query for p in self.progress]
        where = f"query {ids.index(self.query_ext) + 1}/{len(ids)}" if self.query_ext in ids else ""
        text = (
            f"{self.assessor} · {self.query_ext} {judged}/{len(self.items)} judged · "
            f"{where} · overall {total_j}/{total_p} items · idle cap {describe_idle_cap(self.idle_cap)}"
        )
        self.query_one("#status", StatusLine).show(text, state, error=error)

    def _sync_progress(self) -> None:
        judged = sum(1 for it in self.items if it.judged)
        self.progress = [
            replace(p, judged=judged, pooled=len(self.items)) if p.query == self.query_ext else p
            for p in self.progress
        ]

    # ---- the queue of keys pressed while a save is in flight -------------------------

    def _busy(self, action: Callable[[], None]) -> bool:
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
        if self.levels and grade not in {lv.grade for lv in self.levels}:
            self.notify(f"{grade} is not on the scale", severity="warning", markup=False)
            return
        item = self.items[index]
        seconds = counted_seconds(time.monotonic() - self.shown_at, self.idle_cap)
        # A note typed before the first grade is attached to the new judgment.
        note = item.note if (item.note and not item.judged and not item.repeat) else None
        self.saving = True
        self._t_key = time.perf_counter()
        # "saving…" only if the commit is slow: redrawing it for every fast grade would
        # compete with the write for the CPU.
        self.set_timer(0.15, self._show_saving)
        self.app.background.submit(self._save_job, self.query_ext, index, item, grade, seconds, note)

    def _save_job(
        self, query: str, index: int, item: QueueItem, grade: int, seconds: float, note: str | None
    ) -> None:
        """(writer thread) Commit one grade, then report it; never touches widgets."""
        try:
            record = assessing.grade_item(
                self.app.db, self.assessor, query, item, grade, seconds=seconds, note=note
            )
        except Exception as exc:  # shown in the UI; the cursor stays
            self.post_message(GradeFailed(index, describe(exc)))
            return
        queue = self._serve_next(query)
        # With the panel open (and its scores loaded), recompute this query's scores here,
        # right after the commit and BEFORE telling the screen: the screen then redraws once
        # for both, instead of redrawing "saved" while this thread computes and the two
        # fight over the GIL (measured: that doubled the key -> panel time).
        tracker = self.app.score_tracker(self.assessor) if self.panel_on else None
        if tracker is not None and tracker.loaded:
            table = self._scores_table([record.query])
            self.post_message(GradeSaved(index, record, table=table, queue=queue))
            return
        self.post_message(GradeSaved(index, record, queue=queue))
        if self.panel_on:
            self._scores_now([record.query])

    def _serve_next(self, query: str):
        """(writer thread) With an adaptive pool, the next document once this query's queue
        is all judged: the reloaded queue, or None (nothing served, or serving failed: the
        grade is saved either way, and the next load serves again)."""
        try:
            if adaptive.serve_next(self.app.db, self.assessor, query):
                return assessing.load_queue(self.app.db, self.assessor, query)
        except Exception:  # noqa: BLE001 - the grade is on disk; serving is retried on load
            return None
        return None

    def _show_saving(self) -> None:
        if self.saving:
            self._update_status("saving…")

    def _take_grown_queue(self, queue) -> None:
        """An adaptive pool appended the next document (after a grade or a mark): show the
        reloaded queue; it only grows at its end, so indexes stay valid."""
        if queue is not None and queue.query.query == self.query_ext:
            self.items = list(queue.items)
            self.query_one("#pool", PoolList).show_items(self.items)

    def on_grade_saved(self, message: GradeSaved) -> None:
        index = message.index
        self._take_grown_queue(message.queue)
        # (a grade removes a can't-judge mark: judging.apply_grade)
        self.items[index] = replace(self.items[index], grade=message.record.new_grade, cant_judge=False)
        self.query_one("#pool", PoolList).refresh_item(index, self.items[index])
        self.saving = False
        self.timings.append([self._t_key, time.perf_counter(), 0.0])
        self._sync_progress()
        nxt = assessing.first_unjudged(self.items, index + 1)
        if nxt is None:
            self._shown_index = None  # redraw the document: it shows its new grade
            self._show_current()
            self._update_status(
                f"saved {message.record.new_grade} · query done: ] for the next one"
            )
        else:
            self._set_cursor(nxt)
            self._update_status(f"saved {message.record.new_grade}")
        if message.table is not None:  # recomputed by the save job (panel open)
            self.on_scores_updated(ScoresUpdated(message.table, self.query_ext))
        elif not self._panel_on:
            self.app.score_dirty(self.assessor).add(self.query_ext)
        self._drain()

    def on_grade_failed(self, message: GradeFailed) -> None:
        self.saving = False
        self._pending.clear()
        self._update_status(f"NOT SAVED: {message.error}", error=True)
        self.notify(f"Grade not saved: {message.error}", severity="error", markup=False, timeout=8)

    # ---- later and can't judge -------------------------------------------------------

    def _put_off(self, items: list[QueueItem]) -> list[QueueItem]:
        """The queue with the documents put off (`l`) in this session moved to its end."""
        later = self._later.get(self.query_ext or "", [])
        if not later:
            return items
        by_position = {it.position: it for it in items}
        moved = [by_position[p] for p in later if p in by_position]
        return [it for it in items if it.position not in set(later)] + moved

    def action_later(self) -> None:
        """Skip the document for now: it goes to the end of this query's queue."""
        if self._busy(self.action_later):
            return
        index = self.cursor
        if index is None or len(self.items) < 2:
            return
        item = self.items.pop(index)
        self.items.append(item)
        later = self._later.setdefault(self.query_ext or "", [])
        if item.position in later:
            later.remove(item.position)
        later.append(item.position)
        self.query_one("#pool", PoolList).show_items(self.items)
        self._shown_index = None
        nxt = assessing.first_unjudged(self.items, index)
        self._set_cursor(nxt if nxt is not None else index)
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
        if query != self.query_ext or index >= len(self.items) or self.items[index] is not item:
            return  # the queue changed while the reason was typed
        self.saving = True
        self.set_timer(0.15, self._show_saving)
        self.app.background.submit(self._mark_job, query, index, item, reason)

    def _mark_job(self, query: str, index: int, item: QueueItem, reason: str | None) -> None:
        """(writer thread) Commit the mark (reason given) or its removal (None)."""
        from workbench.campaign.judging import marks as cant_judge

        db = self.app.db
        try:
            if reason is None:
                record = cant_judge.clear_cant_judge(db, self.assessor, query, item.document)
            elif item.repeat:
                record = cant_judge.mark_repeat_cant_judge(db, self.assessor, query, item.document,
                                                           reason=reason)
            else:
                record = cant_judge.mark_cant_judge(db, self.assessor, query, item.document,
                                                    reason=reason)
        except Exception as exc:  # shown in the UI; the cursor stays
            self.post_message(GradeFailed(index, describe(exc)))
            return
        queue = self._serve_next(query) if record.marked else None
        self.post_message(MarkSaved(index, record, queue=queue))

    def on_mark_saved(self, message: MarkSaved) -> None:
        index, record = message.index, message.record
        self._take_grown_queue(message.queue)
        self.items[index] = replace(self.items[index], grade=None, cant_judge=record.marked)
        self.query_one("#pool", PoolList).refresh_item(index, self.items[index])
        self.saving = False
        self._sync_progress()
        if record.cleared_grade is not None:  # qrels of this query changed
            self._refresh_scores(record.query)
        if not record.marked:
            self._shown_index = None
            self._show_current()
            self._update_status("mark removed: grade it when you can")
            self._drain()
            return
        nxt = assessing.first_unjudged(self.items, index + 1)
        state = "marked can't judge"
        if record.cleared_grade is not None:
            state += f" (your grade {record.cleared_grade} is cleared; u brings it back)"
        if nxt is None:
            self._shown_index = None
            self._show_current()
            self._update_status(f"{state} · query done: ] for the next one")
        else:
            self._set_cursor(nxt)
            self._update_status(state)
        self._drain()

    # ---- moving ----------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        if self._busy(lambda: self.action_move(step)):
            return
        if not self.items:
            return
        index = self.cursor or 0
        self._set_cursor(max(0, min(len(self.items) - 1, index + step)))

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
        target = assessing.next_query_with_unjudged(self.progress, self.query_ext, step)
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
            record = undo_last(self.app.db, self.assessor, query)
        except Exception as exc:
            self.post_message(GradeFailed(cursor, describe(exc)))
            return
        self.post_message(UndoDone(record))

    def on_undo_done(self, message: UndoDone) -> None:
        self.saving = False
        record = message.record
        if record is None:
            self._update_status("nothing to undo in this query")
        else:
            for i, item in enumerate(self.items):
                if item.document == record.document and not item.repeat:
                    # a grade back also removed a can't-judge mark (judging.apply_grade)
                    marked = (item.cant_judge and record.new_grade is None
                              if record.cant_judge is None else record.cant_judge)
                    self.items[i] = replace(item, grade=record.new_grade, cant_judge=marked)
                    self.query_one("#pool", PoolList).refresh_item(i, self.items[i])
                    self._shown_index = None  # redraw: the document's grade changed
                    self._set_cursor(i)
                    break
            self._sync_progress()
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
        self.app.background.submit(self._save_note_job, self.query_ext, index, document, note)

    def _save_note_job(self, query: str, index: int, document: str, note: str) -> None:
        try:
            assessing.set_note(self.app.db, self.assessor, query, document, note)
        except Exception as exc:
            self.post_message(WorkFailed("note", describe(exc)))
            return
        self.post_message(NoteSaved(index, note, query, document))

    def on_note_saved(self, message: NoteSaved) -> None:
        self.notify("Note saved.", markup=False)
        index = message.index
        if message.query != self.query_ext or index >= len(self.items) or (
            self.items[index].document != message.document
        ):
            return  # another query is shown by now: the note is stored, nothing to redraw
        self.items[index] = replace(self.items[index], note=message.note)
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
