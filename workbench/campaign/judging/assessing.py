"""What an assessor sees and does: read models for the judging screens, plus the two
assessor actions judging.py does not cover (a note, a blind repeat grade).

Everything here is BLIND (docs/architecture.md#rules-that-hold-everywhere): no system, original rank, score or other assessor's
grade ever leaves these functions. Records are plain frozen dataclasses.

A queue is an assessor's assignments for one query in assignment order. A repeat item
(Assignment.repeat) is a hidden second showing of a document: its grade is recorded as a
`repeat` event that leaves the judgment alone, and its "judged" mark and grade come from
that event, never from the first grade (which would give the repeat away).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from workbench.campaign.assessors.roster import known_assessor
from workbench.campaign.scale import ScaleEntry
from workbench.campaign.database import Database
from workbench.campaign.judging.grades import (
    GradeRecord,
    Guard,
    assessor_for_write,
    check_grade,
    item_ids,
    record_grade,
)
from workbench.campaign.writing import write_transaction
from workbench.errors import NotFoundError
from workbench.store.cant_judge import queue_marks
from workbench.store.external_ids import assessor_id
from workbench.store.judgment_writes import append_event, current_judgment, set_judgment_note
from workbench.store.event_kinds import EventKind
from workbench.store.models import utcnow
from workbench.store.queue_counts import open_query_after
from workbench.store.queues import (
    OpenItems,
    assessors_with_work,
    assignment_count,
    current_grades,
    open_items,
    pending_notes,
    pool_size,
    progress_page,
    progress_totals,
    query_text,
    queue_rows,
    repeat_grades,
)


@dataclass(frozen=True)
class QueryProgress:
    """One query in an assessor's list: how much of its queue is judged."""

    query: str
    title: str
    judged: int
    pooled: int

    @property
    def done(self) -> bool:
        return self.judged >= self.pooled


@dataclass(frozen=True)
class QueryView:
    query: str
    title: str
    description: str
    narrative: str


@dataclass(frozen=True)
class QueueItem:
    """One document in an assessor's queue. `grade` is THIS assessor's current grade (for a
    repeat item: the grade given at the repeat), None when not judged yet. `cant_judge`:
    the assessor marked it "can't judge / broken" (no grade, but settled)."""

    position: int
    document: str
    title: str
    text: str
    grade: int | None
    repeat: bool = False
    note: str = ""
    cant_judge: bool = False
    # What a screen may show (assessors.visibility.pair_blind): list it without its title / show
    # no grade, so that nothing pairs a hidden repeat with its first showing.
    listed_blind: bool = False
    grade_hidden: bool = False

    @property
    def judged(self) -> bool:
        """Settled: graded, or marked "can't judge"."""
        return self.grade is not None or self.cant_judge


@dataclass(frozen=True)
class Queue:
    query: QueryView
    items: tuple[QueueItem, ...] = field(default_factory=tuple)

    def first_unjudged(self, start: int = 0) -> int | None:
        return first_unjudged(self.items, start)


def first_unjudged(items, start: int = 0) -> int | None:
    """Index of the first unjudged item at or after `start`, wrapping around; None if all
    are judged."""
    n = len(items)
    for k in range(n):
        i = (start + k) % n
        if not items[i].judged:
            return i
    return None


# ---- reads -----------------------------------------------------------------------------


def scale(db: Database) -> list[ScaleEntry]:
    """The campaign's relevance scale, lowest grade first."""
    from workbench.campaign.scale import default_scale, show_scale  # the scale's owner

    levels = show_scale(db)
    if not levels:  # no scale rows: the default preset
        return default_scale()
    return [ScaleEntry(g, label, desc) for g, label, desc in levels]


@dataclass(frozen=True)
class ProgressTotals:
    """An assessor's whole list in four numbers (the query list's header)."""

    queries: int = 0
    judged: int = 0
    pooled: int = 0
    done: int = 0


def query_progress_page(db: Database, assessor: str, after: int = 0,
                        limit: int = 500) -> tuple[list[QueryProgress], int | None]:
    """The queries with assignments for `assessor`, in query import order, one page at a
    time (counted in SQL: store/queues.progress_page): the next `limit` queries after the
    key `after` (0: the first page), and the key of the page after (None: the last)."""
    with db.read() as s:
        aid = assessor_id(s, assessor)
        if aid is None:
            return [], None
        page = progress_page(s, aid, after, limit)
    c = page.counts
    return [QueryProgress(q, title, judged, pooled) for q, title, judged, pooled in zip(
        c.queries, c.titles, c.judged.tolist(), c.pooled.tolist())], page.after


def progress_summary(db: Database, assessor: str) -> tuple[ProgressTotals, str | None]:
    """The totals over every query and the first query with work left (None: all done),
    without building one row per query."""
    with db.read() as s:
        aid = assessor_id(s, assessor)
        if aid is None:
            return ProgressTotals(), None
        return ProgressTotals(*progress_totals(s, aid)), open_query_after(s, aid, None)


def load_queue(db: Database, assessor: str, query: str) -> Queue:
    """`assessor`'s queue for `query`, in assignment order, with this assessor's grades: a
    repeat item shows the grade given at the repeat (its note is ""), any other item the
    judgment's grade and note."""
    with db.read() as s:
        q = query_text(s, query)
        if q is None:
            raise NotFoundError(f"unknown query {query!r}")
        view = QueryView(q.ext_id, q.title, q.description, q.narrative)
        aid = assessor_id(s, assessor)
        if aid is None:
            return Queue(view)
        rows = queue_rows(s, aid, q.id)
        states = _item_states(s, aid, q.id, rows.repeat.tolist(), rows.document_ids.tolist())
    items = [
        QueueItem(pos, ext, title, text, grade, rep, note, marked)
        for pos, rep, ext, title, text, (grade, note, marked) in zip(
            rows.positions.tolist(), rows.repeat.tolist(), rows.documents, rows.titles,
            rows.texts, states,
        )
    ]
    return Queue(view, tuple(items))


def _item_states(s, aid: int, qid: int, repeat: list[bool],
                 document_ids: list[int]) -> list[tuple[int | None, str, bool]]:
    """(grade, note, marked can't judge) of each queue item: a repeat item shows the grade
    given at the repeat (note ""), any other item the judgment's grade and note."""
    grades = _by_document(current_grades(s, aid, qid))
    repeats = _by_document(repeat_grades(s, aid, qid))
    marks = queue_marks(s, aid, qid)
    pending = pending_notes(s, aid, qid)  # a note typed before the first grade: kept
    states = []
    for rep, did in zip(repeat, document_ids):
        if rep:
            grade, note = repeats.get(did, (None, ""))
        else:
            grade, note = grades.get(did, (None, pending.get(did, "")))
        # a repeat without a grade was marked can't judge; otherwise the mark's own row
        marked = (did in repeats and grade is None) if rep else did in marks
        states.append((grade, note, marked))
    return states


def queue_states(db: Database, assessor: str, query: str) -> dict[int, tuple[int | None, str, bool]]:
    """queue position -> (grade, note, marked) as stored now, without the documents' texts
    (what a judging screen reads again to refresh its counts)."""
    from workbench.store.queue_counts import queue_positions

    with db.read() as s:
        aid, q = assessor_id(s, assessor), query_text(s, query)
        if aid is None or q is None:
            return {}
        positions, repeat, document_ids = queue_positions(s, aid, q.id)
        states = _item_states(s, aid, q.id, repeat, document_ids)
    return dict(zip(positions, states))


@dataclass(frozen=True)
class OpenQueue:
    """What `assessor` has left to grade (store.queues.OpenItems, in judging order) and
    the queries those items belong to, in the same order."""

    items: OpenItems
    queries: tuple[QueryView, ...]


def open_queue(db: Database, assessor: str, query: str | None = None,
               limit: int | None = None) -> OpenQueue:
    """The assessor's unsettled items (first showings: hidden repeats are the judging
    screen's), of one query or all, at most `limit`; blind like the judging screen."""
    with db.read() as s:
        qid = None
        if query is not None:
            text = query_text(s, query)
            if text is None:
                raise NotFoundError(f"unknown query {query!r}")
            qid = text.id
        aid = known_assessor(s, assessor)
        items = open_items(s, aid, qid, limit)
        views = tuple(
            QueryView(t.ext_id, t.title, t.description, t.narrative)
            for t in (query_text(s, q) for q in dict.fromkeys(items.queries))
        )
    return OpenQueue(items, views)


def _by_document(grades) -> dict[int, tuple[int | None, str]]:
    """document id -> (grade or None, note), for picking a queue item's grade."""
    return {
        d: (g if ok else None, note)
        for d, g, ok, note in zip(
            grades.document_ids.tolist(), grades.grades.tolist(), grades.graded.tolist(),
            grades.notes,
        )
    }


# ---- writes ----------------------------------------------------------------------------


def record_repeat(
    db: Database, assessor: str, query: str, document: str, grade: int | None, *,
    seconds: float = 0.0, note: str = "", guard: Guard | None = None,
) -> GradeRecord:
    """A blind second grade of an item: appended as a `repeat` event (old_grade = the
    current judgment's grade) and never changes the judgment. grade None: the repeat
    showing was marked "can't judge" (campaign/judging/marks.py)."""
    with write_transaction(db) as s:
        qid, did = item_ids(s, query, document)
        check_grade(s, grade)
        aid = assessor_for_write(s, assessor, guard)
        row = current_judgment(s, qid, did, aid)
        old = row.grade if row is not None else None
        now = utcnow()
        event_id = append_event(
            s, qid, did, aid, kind=EventKind.REPEAT, old_grade=old, new_grade=grade, seconds=seconds,
            note=note, at=now,
        )
        return GradeRecord(query, document, assessor, old, grade, event_id, EventKind.REPEAT, now,
                           repeat=True)


def set_note(db: Database, assessor: str, query: str, document: str, note: str, *,
             guard: Guard | None = None) -> GradeRecord:
    """Attach `note` to the assessor's judgment (if any) and append a `note` event.

    On a document not judged yet only the event is stored: the queue shows it on the item
    (load_queue, also in a later session), and the first grade carries it onto the
    judgment (record_grade(note=...); JudgingSession.first_note), so it is exported then.
    """
    with write_transaction(db) as s:
        qid, did = item_ids(s, query, document)
        aid = assessor_for_write(s, assessor, guard)
        row = current_judgment(s, qid, did, aid)
        grade = row.grade if row is not None else None
        now = utcnow()
        if row is not None:
            set_judgment_note(s, row.id, note, now)
        event_id = append_event(
            s, qid, did, aid, kind=EventKind.NOTE, old_grade=grade, new_grade=grade, note=note, at=now,
        )
        return GradeRecord(query, document, assessor, grade, grade, event_id, EventKind.NOTE, now)


def grade_item(
    db: Database,
    assessor: str,
    query: str,
    item: QueueItem,
    grade: int,
    *,
    seconds: float = 0.0,
    note: str | None = None,
    guard: Guard | None = None,
) -> GradeRecord:
    """Grade a queue item: a repeat item gets a repeat event, anything else a judgment."""
    if item.repeat:
        return record_repeat(db, assessor, query, item.document, grade, seconds=seconds,
                             guard=guard)
    return record_grade(db, assessor, query, item.document, grade, note=note, seconds=seconds,
                        guard=guard)


def ensure_assignments(
    db: Database, assessor: str, *, on_wait: Callable[[], None] | None = None
) -> int:
    """Give `assessor` the whole pool when they have no assignments yet (through pooling's
    `assign`, so the order is the campaign's deterministic shuffle); returns how many items
    were assigned (0 when they already had some or there is no pool)."""
    from workbench.campaign.pooling.assign import assign

    with db.read() as s:
        aid = assessor_id(s, assessor)
        if aid is not None and assignment_count(s, aid):
            return 0
        if not pool_size(s):
            return 0
    assign(db, [assessor], on_wait=on_wait)
    with db.read() as s:
        return assignment_count(s, assessor_id(s, assessor))


def outside_assignment(db: Database, assessor: str, query: str, document: str) -> str | None:
    """Why grading this item would be outside the assessor's work, or None: once a pool
    exists, a grade belongs to a document of the pool assigned to this assessor. (Before
    any pool, grades are free: a campaign judged from scratch.) One message whether or not
    the document is pooled: "not in the pool" against "not in your assignment" told an
    assessor whether some system ranked the document high (a leak of what is blind)."""
    from workbench.store.queues import assignment_state

    with db.read() as s:
        has_pool, pooled, mine = assignment_state(s, assessor, query, document)
    if not has_pool or mine:
        return None
    return f"{query} {document} is not in {assessor}'s assignment"
