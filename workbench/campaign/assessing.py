"""What an assessor sees and does: read models for the judging screens, plus the two
assessor actions judging.py does not cover (a note, a blind repeat grade).

Everything here is BLIND (DESIGN §5): no system, original rank, score or other assessor's
grade ever leaves these functions. Records are plain frozen dataclasses.

A queue is an assessor's assignments for one query in assignment order. A repeat item
(Assignment.repeat) is a hidden second showing of a document: its grade is recorded as a
`repeat` event that leaves the judgment alone, and its "judged" mark and grade come from
that event, never from the first grade (which would give the repeat away).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.orm import Session

from workbench.campaign.database import Database
from workbench.campaign.judging import (
    GradeRecord,
    _check_grade,
    _current,
    _ids,
    get_or_create_assessor,
    record_grade,
)
from workbench.campaign.writing import write_transaction
from workbench.errors import NotFoundError
from workbench.store.models import (
    Assessor,
    Assignment,
    Document,
    Judgment,
    JudgmentEvent,
    PoolEntry,
    Query,
    ScaleLevel,
    utcnow,
)

# Used when the campaign has no scale rows yet (a fresh database).
DEFAULT_SCALE = ((0, "Not relevant"), (1, "Relevant"), (2, "Highly relevant"), (3, "Perfect"))


@dataclass(frozen=True)
class ScaleEntry:
    grade: int
    label: str
    description: str = ""


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
    repeat item: the grade given at the repeat), None when not judged yet."""

    position: int
    document: str
    title: str
    text: str
    grade: int | None
    repeat: bool = False
    note: str = ""

    @property
    def judged(self) -> bool:
        return self.grade is not None


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


def list_assessors(db: Database) -> list[str]:
    """Assessors with a queue or grades (a lead who only adjudicated is not one)."""
    has_work = or_(
        select(Judgment.id).where(Judgment.assessor_id == Assessor.id).exists(),
        select(Assignment.id).where(Assignment.assessor_id == Assessor.id).exists(),
    )
    with db.read() as s:
        return list(s.scalars(select(Assessor.name).where(has_work).order_by(Assessor.name)))


def scale(db: Database) -> list[ScaleEntry]:
    """The campaign's relevance scale, lowest grade first."""
    with db.read() as s:
        rows = s.execute(
            select(ScaleLevel.grade, ScaleLevel.label, ScaleLevel.description).order_by(
                ScaleLevel.grade
            )
        ).all()
    if not rows:
        return [ScaleEntry(g, label) for g, label in DEFAULT_SCALE]
    return [ScaleEntry(g, label, desc or "") for g, label, desc in rows]


def _assessor_id(s: Session, assessor: str) -> int | None:
    return s.scalar(select(Assessor.id).where(Assessor.name == assessor))


def _repeat_grades(s: Session, aid: int, qid: int | None = None) -> dict[tuple[int, int], int]:
    """(query_id, document_id) -> latest repeat grade of this assessor."""
    stmt = (
        select(JudgmentEvent.query_id, JudgmentEvent.document_id, JudgmentEvent.new_grade)
        .where(JudgmentEvent.assessor_id == aid, JudgmentEvent.kind == "repeat")
        .order_by(JudgmentEvent.id)
    )
    if qid is not None:
        stmt = stmt.where(JudgmentEvent.query_id == qid)
    return {(q, d): g for q, d, g in s.execute(stmt)}


def query_progress(db: Database, assessor: str) -> list[QueryProgress]:
    """Every query with assignments for `assessor`, in query import order.

    Counted in SQL (one grouped pass over the assessor's assignments with indexed EXISTS
    probes): a campaign of 10 000 queries has ~1 M assignments, too many to walk in Python
    before the first screen.
    """
    with db.read() as s:
        aid = _assessor_id(s, assessor)
        if aid is None:
            return []
        same_item = (
            Judgment.assessor_id == aid,
            Judgment.query_id == Assignment.query_id,
            Judgment.document_id == Assignment.document_id,
        )
        graded = select(Judgment.id).where(*same_item).exists()
        regraded = (
            select(JudgmentEvent.id)
            .where(
                JudgmentEvent.assessor_id == aid,
                JudgmentEvent.query_id == Assignment.query_id,
                JudgmentEvent.document_id == Assignment.document_id,
                JudgmentEvent.kind == "repeat",
            )
            .exists()
        )
        done = case(
            (and_(Assignment.repeat.is_(True), regraded), 1),
            (and_(Assignment.repeat.is_(False), graded), 1),
            else_=0,
        )
        counts = (
            select(
                Assignment.query_id.label("qid"),
                func.count().label("pooled"),
                func.sum(done).label("done"),
            )
            .where(Assignment.assessor_id == aid)
            .group_by(Assignment.query_id)
            .subquery()
        )
        rows = s.execute(
            select(Query.ext_id, Query.title, counts.c.done, counts.c.pooled)
            .join(counts, counts.c.qid == Query.id)
            .order_by(Query.id)
        ).all()
    return [QueryProgress(ext, title or "", int(d or 0), int(n)) for ext, title, d, n in rows]


def load_queue(db: Database, assessor: str, query: str) -> Queue:
    """`assessor`'s queue for `query`, in assignment order, with this assessor's grades."""
    with db.read() as s:
        q = s.execute(
            select(Query.id, Query.ext_id, Query.title, Query.description, Query.narrative).where(
                Query.ext_id == query
            )
        ).first()
        if q is None:
            raise NotFoundError(f"unknown query {query!r}")
        view = QueryView(q.ext_id, q.title or "", q.description or "", q.narrative or "")
        aid = _assessor_id(s, assessor)
        if aid is None:
            return Queue(view)
        grades = {
            d: (g, note)
            for d, g, note in s.execute(
                select(Judgment.document_id, Judgment.grade, Judgment.note).where(
                    Judgment.assessor_id == aid, Judgment.query_id == q.id
                )
            )
        }
        repeats = _repeat_grades(s, aid, q.id)
        rows = s.execute(
            select(
                Assignment.position, Assignment.repeat, Document.id, Document.ext_id,
                Document.title, Document.text,
            )
            .join(Document, Document.id == Assignment.document_id)
            .where(Assignment.assessor_id == aid, Assignment.query_id == q.id)
            .order_by(Assignment.position)
        ).all()
    items = []
    for pos, rep, did, ext, title, text in rows:
        if rep:
            grade, note = repeats.get((q.id, did)), ""
        else:
            grade, note = grades.get(did, (None, ""))
        items.append(QueueItem(pos, ext, title or "", text or "", grade, bool(rep), note or ""))
    return Queue(view, tuple(items))


def next_query_with_unjudged(
    progress: list[QueryProgress], current: str | None, step: int = 1
) -> str | None:
    """The next (step=1) or previous (step=-1) query after `current` with unjudged items,
    wrapping around; None when every other query is done."""
    ids = [p.query for p in progress]
    n = len(ids)
    start = ids.index(current) if current in ids else (-1 if step > 0 else 0)
    for k in range(1, n + 1):
        p = progress[(start + step * k) % n]
        if not p.done and p.query != current:
            return p.query
    return None


def first_query_with_unjudged(progress: list[QueryProgress]) -> str | None:
    for p in progress:
        if not p.done:
            return p.query
    return None


# ---- writes ----------------------------------------------------------------------------


def record_repeat(
    db: Database, assessor: str, query: str, document: str, grade: int, *, seconds: float = 0.0
) -> GradeRecord:
    """A blind second grade of an item: appended as a `repeat` event (old_grade = the
    current judgment's grade) and never changes the judgment."""
    with write_transaction(db) as s:
        qid, did = _ids(s, query, document)
        _check_grade(s, grade)
        aid = get_or_create_assessor(s, assessor)
        row = _current(s, qid, did, aid)
        event = JudgmentEvent(
            query_id=qid, document_id=did, assessor_id=aid, kind="repeat",
            old_grade=row.grade if row is not None else None, new_grade=grade,
            seconds=seconds, created_at=utcnow(),
        )
        s.add(event)
        s.flush()
        return GradeRecord(
            query, document, assessor, event.old_grade, grade, event.id, "repeat", event.created_at
        )


def set_note(db: Database, assessor: str, query: str, document: str, note: str) -> GradeRecord:
    """Attach `note` to the assessor's judgment (if any) and append a `note` event.

    On a document not judged yet only the event is stored; pass the note again with the
    grade (record_grade(note=...)) to keep it on the judgment.
    """
    with write_transaction(db) as s:
        qid, did = _ids(s, query, document)
        aid = get_or_create_assessor(s, assessor)
        row = _current(s, qid, did, aid)
        grade = row.grade if row is not None else None
        if row is not None:
            row.note = note
            row.updated_at = utcnow()
        event = JudgmentEvent(
            query_id=qid, document_id=did, assessor_id=aid, kind="note",
            old_grade=grade, new_grade=grade, note=note, created_at=utcnow(),
        )
        s.add(event)
        s.flush()
        return GradeRecord(query, document, assessor, grade, grade, event.id, "note", event.created_at)


def grade_item(
    db: Database,
    assessor: str,
    query: str,
    item: QueueItem,
    grade: int,
    *,
    seconds: float = 0.0,
    note: str | None = None,
) -> GradeRecord:
    """Grade a queue item: a repeat item gets a repeat event, anything else a judgment."""
    if item.repeat:
        return record_repeat(db, assessor, query, item.document, grade, seconds=seconds)
    return record_grade(db, assessor, query, item.document, grade, note=note, seconds=seconds)


def ensure_assessor(
    db: Database, assessor: str, *, on_wait: Callable[[], None] | None = None
) -> None:
    """Create the assessor if new (waiting for other writers; `on_wait` as in
    writing.write_transaction)."""
    with write_transaction(db, on_wait=on_wait) as s:
        get_or_create_assessor(s, assessor)


def ensure_assignments(
    db: Database, assessor: str, *, on_wait: Callable[[], None] | None = None
) -> int:
    """Give `assessor` the whole pool when they have no assignments yet (through pooling's
    `assign`, so the order is the campaign's deterministic shuffle); returns how many items
    were assigned (0 when they already had some or there is no pool)."""
    from workbench.campaign.pooling import assign

    with db.read() as s:
        aid = _assessor_id(s, assessor)
        if aid is not None and _assignment_count(s, aid):
            return 0
        if not s.scalar(select(func.count()).select_from(PoolEntry)):
            return 0
    assign(db, [assessor], on_wait=on_wait)
    with db.read() as s:
        return _assignment_count(s, _assessor_id(s, assessor))


def _assignment_count(s: Session, aid: int | None) -> int:
    return s.scalar(
        select(func.count()).select_from(Assignment).where(Assignment.assessor_id == aid)
    ) or 0
