"""What the judging screen runs off its event loop: the session's reads (a queue, the
poll) and writes (grades, marks, undo, notes). They never touch widgets: each posts one
message with its result, or the failure (SessionEnded stops the screen).

Writes run on the app's one writer thread (`app.background`, in key order); a grade is
on disk before the screen says "saved" (see judge.py)."""

from __future__ import annotations

from textual import work

from workbench.campaign.judging.assessing import QueueItem
from workbench.campaign.judging.session import SessionEnded
from workbench.tui.messages import (
    GradeFailed,
    GradeSaved,
    JudgingStopped,
    MarkSaved,
    NoteSaved,
    QueueLoaded,
    SessionPolled,
    UndoDone,
    WorkFailed,
    WriteWaiting,
)
from workbench.tui.text import describe


class JudgeWorkers:
    """Mixed into JudgeScreen (needs `session`, `assessor`, `panel_on` and the live-score
    helpers)."""

    @work(thread=True, group="load")
    def _load(self, query: str | None, prepare: bool = False, step: int = 0) -> None:
        waiting = lambda: self.post_message(WriteWaiting())  # noqa: E731
        try:
            opening = self.session.read(query, step=step, prepare=prepare, on_wait=waiting)
        except SessionEnded as exc:
            self.post_message(JudgingStopped(str(exc)))
            return
        except Exception as exc:  # any failure is shown, never raised into the app
            self.post_message(WorkFailed("load", describe(exc)))
            return
        if opening is None and step:
            self.post_message(WorkFailed("none", "No other query has unjudged documents."))
            return
        if opening is None:
            self.post_message(WorkFailed("empty", f"nothing is assigned to {self.assessor}"))
            return
        self.post_message(QueueLoaded(opening))

    def _release_job(self) -> None:
        """(writer thread) Give the assessor's lease back as the screen closes."""
        try:
            self.session.release()
        except Exception:  # noqa: BLE001 - a lease left behind is taken over by the next one
            pass

    @work(thread=True, group="poll", exclusive=True)
    def _poll_job(self) -> None:
        try:
            self.post_message(SessionPolled(self.session.poll()))
        except Exception:  # noqa: BLE001 - a missed poll is retried at the next tick
            return

    def _failed(self, index: int, exc: Exception) -> None:
        """(writer thread) A write failed: shown, the cursor stays; SessionEnded stops."""
        if isinstance(exc, SessionEnded):
            self.post_message(JudgingStopped(str(exc)))
        else:
            self.post_message(GradeFailed(index, describe(exc)))

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

    def _mark_job(self, query: str, index: int, item: QueueItem, reason: str | None) -> None:
        """(writer thread) Commit the mark (reason given) or its removal (None)."""
        try:
            saved = self.session.save_mark(query, item, reason)
        except Exception as exc:  # shown in the UI; the cursor stays
            self._failed(index, exc)
            return
        self.post_message(MarkSaved(index, saved.record, queue=saved.queue))

    def _undo_job(self, query: str, cursor: int) -> None:
        try:
            record = self.session.save_undo(query)
        except Exception as exc:
            self._failed(cursor, exc)
            return
        self.post_message(UndoDone(record))

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
