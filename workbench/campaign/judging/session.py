"""One assessor's judging session: the rules the judging screen (or a browser) follows.

A `JudgingSession` holds the query being judged, its queue in the order shown, the current
item (the cursor) and the documents put off with `l`. Its commands return the new current
item; a screen only draws what they return. The session owns:

- the queue and its "later" rule: `l` moves the item to the end of this query's queue for
  this session only (nothing is stored; the next session shows the queue in its own order);
- what is current and what is next: after a grade or a mark, the next unjudged item after
  it (wrapping around); `]`/`[` the next or previous query with unjudged items;
- undo, marks, notes, hidden repeats (a repeat is graded as a `repeat` event, and `u`
  undoes the repeat's own grade; the list never pairs a repeat with its first showing);
- one session per assessor, through the lease (campaign/assessors/lease.py, the one
  policy of the terminal, the browser and `grade`): opening a session takes the lease, a
  second session takes over, and the first one's next write (or `poll`) raises
  `SessionEnded` with the notice, so a stale screen never overwrites or undoes the newer
  one's work, and a removed assessor is never re-created.

Threads: the reads and writes (`read`, `save_*`, `poll`, `claim`, `release`) touch no state
and may run on worker threads; the commands that change the session's state (`show`,
`select`, `move`, `later`, `graded`, `marked`, `undone`, `noted`) run on one thread (the
screen's event loop), with the results of those writes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from workbench.campaign.assessors import roster, visibility
from workbench.campaign.assessors.lease import JudgingLease, SessionEnded, removed_message  # noqa: F401
from workbench.campaign.scale import not_on_scale, on_scale
from workbench.campaign.database import Database
from workbench.campaign.judging import assessing
from workbench.campaign.judging.assessing import Queue, QueueItem, ScaleEntry
from workbench.campaign.judging.grades import GradeRecord, undo_last
from workbench.campaign.judging.marks import MarkRecord
from workbench.campaign.settings import DEFAULT_IDLE_CAP, campaign_settings, counted_seconds
from workbench.campaign.writing import write_transaction
from workbench.store.external_ids import assessor_id
from workbench.store.queue_counts import (
    first_query,
    has_history,
    open_query_after,
    overall_counts,
    query_place,
)
from workbench.store.queues import assignment_count


# Up to this many assignments the overall counts are read with the first queue (~10 ms);
# beyond, the first poll counts them, after the first screen (0.7 s at 10^6).
COUNT_AT_ONCE = 20_000


@dataclass(frozen=True)
class Opening:
    """What `read` found: a query's queue and what goes with it, for `show`."""

    queue: Queue
    place: tuple[int, int]  # (the query's place among the assessor's queries, how many)
    levels: list[ScaleEntry]
    blind: bool
    guidelines: str
    idle_cap: int
    first_start: bool  # the assessor has judged nothing yet
    took_over: str = ""  # "" or where the session taken over ran
    overall: tuple[int, int] | None = None  # (settled, assigned) when counted with the queue


@dataclass(frozen=True)
class Saved:
    """A committed grade or mark, and the queue when an adaptive pool grew it."""

    record: GradeRecord | MarkRecord
    queue: Queue | None = None


@dataclass(frozen=True)
class Poll:
    """The database's view of the session now: why it ended ("" while it goes on) and,
    when they were counted this time, the overall counts (settled, assigned)."""

    ended: str
    overall: tuple[int, int] | None = None
    # the shown query's items as stored (position -> grade, note, marked), read while the
    # session's items were at `version`
    states: dict | None = None
    query: str | None = None
    version: int = -1


class JudgingSession:
    def __init__(self, db: Database, assessor: str, *, holder: str = "",
                 show_holder: bool = True) -> None:
        self.db = db
        self.show_holder = show_holder  # False in a browser: no server host name or pid
        self.assessor = assessor
        # the lease's policy (take over, with a notice) is assessors/lease.py's
        self.lease = JudgingLease(db, assessor, holder=holder, show_holder=show_holder)
        self.query: str | None = None
        self.items: list[QueueItem] = []
        self.place = (0, 0)  # the query's place among the assessor's queries, how many
        # Overall counts less this query's (None until the first poll counts them): the
        # status shows them plus this query's own, which the session keeps up to date.
        self._elsewhere: tuple[int, int] | None = None
        self._overall_due = 0.0  # monotonic time of the next overall count
        self._version = 0  # bumped whenever the items change (a poll read before is stale)
        self.levels: list[ScaleEntry] = []
        self.idle_cap = DEFAULT_IDLE_CAP
        self.cursor: int | None = None
        # What the last command did, in words for the assessor ("saved 2", "undone: …").
        self.said = ""
        # `l`: per query, the queue positions put off to the end, in the order put off
        self._later: dict[str, list[int]] = {}

    # ---- the lease: one session per assessor (assessors/lease.py) ---------------------

    @property
    def token(self) -> str:
        return self.lease.token

    @property
    def holder(self) -> str:
        return self.lease.holder

    @property
    def claimed(self) -> bool:
        return self.lease.claimed

    def claim(self, *, on_wait: Callable[[], None] | None = None) -> str:
        """Take the assessor's lease (a session already open loses it); returns where the
        session taken over ran, or ""."""
        return self.lease.claim(on_wait=on_wait)

    def guard(self, session) -> int:
        """(inside a write transaction) The assessor's id, or SessionEnded: the write is
        not made."""
        return self.lease.guard(session)

    def release(self) -> None:
        """Give the lease back (the screen closes); a newer session's lease stays."""
        self.lease.release()

    def poll(self) -> Poll:
        """Whether the session still holds the lease, and now and then the overall counts
        as stored (`workbench grade` or an import may have changed them). Counting reads
        every assignment: it runs again only after ten times as long as it took."""
        with self.db.read() as s:
            aid = assessor_id(s, self.assessor)
            ended = self.lease.ended(s, aid)
            if ended:
                return Poll(ended)
            overall = None
            if time.monotonic() >= self._overall_due:
                t0 = time.monotonic()
                overall = overall_counts(s, aid)
                self._overall_due = time.monotonic() + 10 * (time.monotonic() - t0)
        version, query = self._version, self.query
        states = assessing.queue_states(self.db, self.assessor, query) if query else None
        return Poll("", overall, states, query, version)

    # ---- reading a queue (any thread) -----------------------------------------------

    def read(self, query: str | None = None, *, step: int = 0, prepare: bool = False,
             on_wait: Callable[[], None] | None = None) -> Opening | None:
        """Everything needed to show `query` (None: the first query with unjudged items;
        `step` 1 or -1: the next or previous query with unjudged items after the one shown);
        None when there is no such query. `prepare`: create the assessor and assign the
        pool first (opened straight from the command line). The first read takes the
        lease."""
        from workbench.campaign.pooling import adaptive

        if prepare:
            # Writes: they wait for another writer (a long import) like grades do.
            roster.create_assessor(self.db, self.assessor, on_wait=on_wait)
            assessing.ensure_assignments(self.db, self.assessor, on_wait=on_wait)
        took_over = self.claim(on_wait=on_wait) if not self.claimed else ""
        # Never every query: a campaign may have 10^6 (store/queue_counts.py).
        with self.db.read() as s:
            aid = assessor_id(s, self.assessor)
            if aid is None:
                raise SessionEnded(removed_message(self.assessor))
            if step:
                query = open_query_after(s, aid, self.query, step)
            elif query is None:
                query = first_query(s, aid)
            if query is None:
                return None
            place = query_place(s, aid, query)
            first_start = not has_history(s, aid)
            # Small campaigns count everything at once; big ones leave it to the poll.
            overall = (overall_counts(s, aid) if self._elsewhere is None
                       and assignment_count(s, aid) <= COUNT_AT_ONCE else None)
        adaptive.serve_next(self.db, self.assessor, query)  # e.g. after a crash mid-serve
        queue = assessing.load_queue(self.db, self.assessor, query)
        levels = assessing.scale(self.db)
        settings = campaign_settings(self.db)  # one read: blind, guidelines, idle cap
        return Opening(queue, place, levels, settings.blind, settings.guidelines,
                       settings.idle_cap_seconds, first_start, took_over, overall)

    # ---- state: what is shown and what is current -----------------------------------

    def show(self, opening: Opening) -> QueueItem | None:
        """Show the queue read: the items put off in this session at its end, the cursor
        on the first unjudged item (the first item when all are judged)."""
        if opening.overall is not None and self._elsewhere is None:
            new = opening.queue.items
            self._elsewhere = (opening.overall[0] - sum(it.judged for it in new),
                               opening.overall[1] - len(new))
        elif self._elsewhere is not None:  # this query's counts leave, the new one's join
            judged, total = self._here()
            new = opening.queue.items
            self._elsewhere = (self._elsewhere[0] + judged - sum(it.judged for it in new),
                               self._elsewhere[1] + total - len(new))
        self.query = opening.queue.query.query
        self.idle_cap = opening.idle_cap
        self.place = opening.place
        if opening.levels:
            self.levels = opening.levels
        self._set_items(self._put_off(list(opening.queue.items)))
        start = assessing.first_unjudged(self.items)
        self.cursor = (start if start is not None else 0) if self.items else None
        self.said = self.lease.took_over(opening.took_over)
        return self.current

    @property
    def current(self) -> QueueItem | None:
        if self.cursor is None or not self.items:
            return None
        return self.items[self.cursor]

    @property
    def query_done(self) -> bool:
        return assessing.first_unjudged(self.items) is None

    def select(self, index: int | None) -> QueueItem | None:
        """Make item `index` current (a click on the list)."""
        if index is not None and self.items:
            self.cursor = max(0, min(len(self.items) - 1, index))
        return self.current

    def move(self, step: int) -> QueueItem | None:
        """The item `step` places away, stopping at either end."""
        if not self.items:
            return None
        return self.select((self.cursor or 0) + step)

    def later(self) -> QueueItem | None:
        """`l`: the current item goes to the end of this query's queue (this session only);
        the cursor goes to the next unjudged item from the same place. None (nothing moved)
        with fewer than two items."""
        index = self.cursor
        if index is None or len(self.items) < 2:
            return None
        items = list(self.items)
        item = items.pop(index)
        items.append(item)
        later = self._later.setdefault(self.query or "", [])
        if item.position in later:
            later.remove(item.position)
        later.append(item.position)
        self._set_items(items)
        nxt = assessing.first_unjudged(self.items, index)
        self.cursor = nxt if nxt is not None else index
        self.said = f"later: {item.title or item.document} moved to the end of the queue"
        return self.current

    def _put_off(self, items: list[QueueItem]) -> list[QueueItem]:
        later = self._later.get(self.query or "", [])
        if not later:
            return items
        by_position = {it.position: it for it in items}
        moved = [by_position[p] for p in later if p in by_position]
        put_off = set(later)
        return [it for it in items if it.position not in put_off] + moved

    def _set_items(self, items: list[QueueItem]) -> None:
        """The queue, with what each item may show (the hidden-repeat rule below)."""
        self.items = visibility.pair_blind(items)
        self._version += 1

    # ---- counts ------------------------------------------------------------------------

    def _here(self) -> tuple[int, int]:
        return sum(1 for it in self.items if it.judged), len(self.items)

    def counts(self) -> tuple[int, int, str, int | None, int | None]:
        """(judged here, items here, "query i/n", settled overall, assigned overall); the
        overall counts are None until a poll counted them."""
        judged, total = self._here()
        where = f"query {self.place[0]}/{self.place[1]}" if self.place[1] else ""
        if self._elsewhere is None:
            return judged, total, where, None, None
        return (judged, total, where, self._elsewhere[0] + judged,
                self._elsewhere[1] + total)

    def refreshed(self, poll: Poll) -> QueueItem | None:
        """What the database says now (`poll`): the items of the shown query another writer
        changed (`workbench grade`, an import), unless this session changed its items since
        the poll read them; and the overall counts."""
        if poll.states and poll.query == self.query and poll.version == self._version:
            items = [
                replace(it, grade=state[0], cant_judge=state[2])  # (a note stays this screen's)
                if (state := poll.states.get(it.position)) is not None
                and (it.grade, it.cant_judge) != (state[0], state[2]) else it
                for it in self.items
            ]
            if any(a is not b for a, b in zip(items, self.items)):
                self._set_items(items)
        if poll.overall is not None:
            judged, total = self._here()
            self._elsewhere = (poll.overall[0] - judged, poll.overall[1] - total)
        return self.current


    # ---- writes (worker thread; no state changes) -----------------------------------

    def off_scale(self, grade: int) -> str | None:
        """Why `grade` cannot be given (campaign.scale's one message), or None."""
        allowed = [lv.grade for lv in self.levels or ()]
        return None if not allowed or on_scale(grade, allowed) else not_on_scale(grade, allowed)

    def seconds(self, elapsed: float) -> float:
        """Seconds spent on a document shown `elapsed` seconds ago, up to the idle cap."""
        return counted_seconds(elapsed, self.idle_cap)

    @staticmethod
    def first_note(item: QueueItem) -> str | None:
        """A note typed before an item's first grade goes on the new judgment."""
        return item.note if (item.note and not item.judged and not item.repeat) else None

    def save_grade(self, query: str, item: QueueItem, grade: int, *, seconds: float,
                   note: str | None) -> Saved:
        record = assessing.grade_item(self.db, self.assessor, query, item, grade,
                                      seconds=seconds, note=note, guard=self.guard)
        return Saved(record, self._serve_next(query))

    def save_mark(self, query: str, item: QueueItem, reason: str | None) -> Saved:
        """Mark the item "can't judge" (with `reason`), or remove its mark (None)."""
        from workbench.campaign.judging import marks

        if reason is None:
            record = marks.clear_cant_judge(self.db, self.assessor, query, item.document,
                                            guard=self.guard)
        elif item.repeat:
            record = marks.mark_repeat_cant_judge(self.db, self.assessor, query, item.document,
                                                  reason=reason, guard=self.guard)
        else:
            record = marks.mark_cant_judge(self.db, self.assessor, query, item.document,
                                           reason=reason, guard=self.guard)
        return Saved(record, self._serve_next(query) if record.marked else None)

    def save_undo(self, query: str | None) -> GradeRecord | None:
        return undo_last(self.db, self.assessor, query, guard=self.guard)

    def save_note(self, query: str, document: str, note: str) -> GradeRecord:
        return assessing.set_note(self.db, self.assessor, query, document, note,
                                  guard=self.guard)

    def _serve_next(self, query: str) -> Queue | None:
        """With an adaptive pool, the next document once this query's queue is all judged:
        the reloaded queue, or None (nothing served, or serving failed: the write is saved
        either way, and the next read serves again)."""
        from workbench.campaign.pooling import adaptive

        try:
            if adaptive.serve_next(self.db, self.assessor, query):
                return assessing.load_queue(self.db, self.assessor, query)
        except Exception:  # noqa: BLE001 - the grade is on disk; serving is retried on read
            return None
        return None

    # ---- applying what a write did (the screen's thread) ----------------------------

    def take_grown_queue(self, queue: Queue | None) -> bool:
        """An adaptive pool appended the next document: the reloaded queue (it only grows
        at its end, so indexes stay valid). True when the queue was replaced."""
        if queue is None or queue.query.query != self.query:
            return False
        self._set_items(list(queue.items))
        return True

    def graded(self, index: int, saved: Saved) -> QueueItem | None:
        """A grade was committed for item `index`: it is judged (a grade removes a mark),
        and the cursor goes to the next unjudged item (stays when the query is done)."""
        self.take_grown_queue(saved.queue)
        record = saved.record
        self._replace(index, grade=record.new_grade, cant_judge=False)
        nxt = assessing.first_unjudged(self.items, index + 1)
        if nxt is not None:
            self.cursor = nxt
        self.said = f"saved {record.new_grade}{self._done()}"
        return self.current

    def _done(self) -> str:
        return " · query done: ] for the next one" if self.query_done else ""

    def marked(self, index: int, saved: Saved) -> QueueItem | None:
        """A mark (or its removal) was committed for item `index`; after a mark the cursor
        goes to the next unjudged item."""
        self.take_grown_queue(saved.queue)
        record = saved.record
        self._replace(index, grade=None, cant_judge=record.marked)
        if record.marked:
            nxt = assessing.first_unjudged(self.items, index + 1)
            if nxt is not None:
                self.cursor = nxt
            self.said = "marked can't judge"
            if record.cleared_grade is not None:
                self.said += f" (your grade {record.cleared_grade} is cleared; u brings it back)"
            self.said += self._done()
        else:
            self.said = "mark removed: grade it when you can"
        return self.current

    def undone(self, record: GradeRecord) -> QueueItem | None:
        """An undo was committed: its item (a repeat's own item when it took back a
        repeat's grade) shows what it holds now, and becomes current."""
        for i, item in enumerate(self.items):
            if item.document == record.document and item.repeat == record.repeat:
                if item.repeat:
                    self._replace(i, grade=None, cant_judge=False)
                else:
                    # a grade back also removed a can't-judge mark (grades.apply_grade)
                    marked = (item.cant_judge and record.new_grade is None
                              if record.cant_judge is None else record.cant_judge)
                    self._replace(i, grade=record.new_grade, cant_judge=marked)
                self.cursor = i
                break
        shown = "ungraded" if record.new_grade is None else f"back to {record.new_grade}"
        if record.cant_judge is not None:
            shown = ("marked can't judge again" if record.cant_judge
                     else "mark removed" + ("" if record.new_grade is None
                                            else f", back to {record.new_grade}"))
        self.said = f"undone: {record.document} {shown}"
        return self.current

    def noted(self, query: str, index: int, document: str, note: str) -> bool:
        """A note was committed; False when another query is shown by now (nothing to
        redraw: the note is stored)."""
        if query != self.query or index >= len(self.items) or (
                self.items[index].document != document):
            return False
        self._replace(index, note=note)
        return True

    def _replace(self, index: int, **changes) -> None:
        items = list(self.items)
        items[index] = replace(items[index], **changes)
        self._set_items(items)
