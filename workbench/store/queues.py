"""Loaders for an assessor's queues: assignments, this assessor's own grades (current and
repeat), progress per query, and who has work at all.

Everything is filtered by one assessor id: no other assessor's grade, no system, rank or
score leaves these functions (the judging screen is blind, docs/architecture.md#rules-that-hold-everywhere).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import and_, bindparam, case, func, or_, select
from sqlalchemy.orm import Session, aliased

from workbench.store.event_kinds import EventKind
from workbench.store.machine import HUMAN
from workbench.store.models import (
    Assessor,
    Assignment,
    CantJudge,
    Document,
    Judgment,
    JudgmentEvent,
    PoolEntry,
    Query,
)

# The judging screen loads a queue on every query switch: its statements are built once.
_QUERY_TEXT = select(
    Query.id, Query.ext_id, Query.title, Query.description, Query.narrative
).where(Query.ext_id == bindparam("ext_id"))
_QUEUE = (
    select(
        Assignment.position, Assignment.repeat, Document.id, Document.ext_id,
        Document.title, Document.text,
    )
    .join(Document, Document.id == Assignment.document_id)
    .where(
        Assignment.assessor_id == bindparam("assessor_id"),
        Assignment.query_id == bindparam("query_id"),
    )
    .order_by(Assignment.position)
)
# (a negative grade, a qrels file's "in the pool, unjudged", leaves the item to judge)
_JUDGMENTS = select(Judgment.document_id, Judgment.grade, Judgment.note).where(
    Judgment.assessor_id == bindparam("assessor_id"), Judgment.query_id == bindparam("query_id"),
    Judgment.grade >= 0,
)
def kept_repeat(event=JudgmentEvent):
    """`event` is a repeat's grade or mark that no undo took back (an undo of a repeat is
    an `undo` event on the same item naming it; found through the item index)."""
    undo = aliased(JudgmentEvent)
    taken_back = select(undo.id).where(
        undo.query_id == event.query_id, undo.document_id == event.document_id,
        undo.assessor_id == event.assessor_id, undo.reverts_event_id == event.id,
    ).exists()
    return and_(event.kind == EventKind.REPEAT, ~taken_back)


_REPEATS = (
    select(JudgmentEvent.document_id, JudgmentEvent.new_grade)
    .where(
        JudgmentEvent.assessor_id == bindparam("assessor_id"),
        JudgmentEvent.query_id == bindparam("query_id"),
        kept_repeat(),
    )
    .order_by(JudgmentEvent.id)
)

# Notes typed on a document before its first grade: `note` events with no grade.
_PENDING_NOTES = (
    select(JudgmentEvent.document_id, JudgmentEvent.note)
    .where(
        JudgmentEvent.assessor_id == bindparam("assessor_id"),
        JudgmentEvent.query_id == bindparam("query_id"),
        JudgmentEvent.kind == EventKind.NOTE,
        JudgmentEvent.new_grade.is_(None),
    )
    .order_by(JudgmentEvent.id)
)


def item_done(assessor_id):
    """1 where an assignment of `assessor_id` is settled, else 0 (correlated on Assignment):
    a repeat item once it has a repeat event, any other once it has a grade or a can't-judge
    mark. The one rule of progress, shared by the progress counts and the adaptive pool."""
    def of(model):
        return (model.assessor_id == assessor_id, model.query_id == Assignment.query_id,
                model.document_id == Assignment.document_id)

    graded = select(Judgment.id).where(*of(Judgment), Judgment.grade >= 0).exists()
    marked = select(CantJudge.id).where(*of(CantJudge)).exists()
    regraded = select(JudgmentEvent.id).where(*of(JudgmentEvent), kept_repeat()).exists()
    return case(
        (and_(Assignment.repeat.is_(True), regraded), 1),
        (and_(Assignment.repeat.is_(False), or_(graded, marked)), 1),
        else_=0,
    )


def _progress_statement():
    """Per query of the assessor's assignments: (ext_id, title, done, pooled)."""
    aid = bindparam("assessor_id")
    done = item_done(aid)
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
    return (
        select(Query.ext_id, Query.title, counts.c.done, counts.c.pooled)
        .join(counts, counts.c.qid == Query.id)
        .order_by(Query.id)
    )


_PROGRESS = _progress_statement()


def _page_statement():
    """The next page of an assessor's queries (import order, after query id `after`),
    counted like _PROGRESS but over only those queries: the index on (assessor, query,
    position) finds them without reading the others."""
    aid = bindparam("assessor_id")
    page = (
        select(Assignment.query_id)
        .where(Assignment.assessor_id == aid, Assignment.query_id > bindparam("after"))
        .group_by(Assignment.query_id)
        .order_by(Assignment.query_id)
        .limit(bindparam("limit"))
        .scalar_subquery()
    )
    done = item_done(aid)
    counts = (
        select(Assignment.query_id.label("qid"), func.count().label("pooled"),
               func.sum(done).label("done"))
        .where(Assignment.assessor_id == aid, Assignment.query_id.in_(page))
        .group_by(Assignment.query_id)
        .subquery()
    )
    return (
        select(Query.ext_id, Query.title, counts.c.done, counts.c.pooled, Query.id)
        .join(counts, counts.c.qid == Query.id)
        .order_by(Query.id)
    )


_PAGE = _page_statement()


def _totals_statement():
    """(queries, judged, pooled, queries done) over the assessor's assignments."""
    per_query = _PROGRESS.subquery()
    return select(
        func.count(),
        func.coalesce(func.sum(per_query.c.done), 0),
        func.coalesce(func.sum(per_query.c.pooled), 0),
        func.coalesce(func.sum(case((per_query.c.done >= per_query.c.pooled, 1), else_=0)), 0),
    ).select_from(per_query)


_TOTALS = _totals_statement()

@dataclass(frozen=True)
class QueryText:
    """What an assessor reads about a query (None columns as "")."""

    id: int
    ext_id: str
    title: str
    description: str
    narrative: str


@dataclass(frozen=True)
class QueueRows:
    """An assessor's assignments for one query, in position order, with the documents."""

    positions: np.ndarray  # int64
    repeat: np.ndarray  # bool: a hidden second showing
    document_ids: np.ndarray  # int64
    documents: tuple[str, ...]  # external ids
    titles: tuple[str, ...]
    texts: tuple[str, ...]


@dataclass(frozen=True)
class ItemGrades:
    """One grade per document (the document ids are distinct)."""

    document_ids: np.ndarray  # int64
    grades: np.ndarray  # int64; meaningless where `graded` is False
    graded: np.ndarray  # bool: False where the stored grade is NULL
    notes: tuple[str, ...]


@dataclass(frozen=True)
class ProgressCounts:
    """Per query with assignments for the assessor, in query import order."""

    queries: tuple[str, ...]  # external ids
    titles: tuple[str, ...]
    judged: np.ndarray  # int64
    pooled: np.ndarray  # int64


def assessors_with_work(session: Session) -> tuple[str, ...]:
    """Names of the people with a queue or grades, sorted: who may open the judging screen
    (a machine assessor's labels are not a person's work, and its name is not offered)."""
    has_work = or_(
        select(Judgment.id).where(Judgment.assessor_id == Assessor.id).exists(),
        select(Assignment.id).where(Assignment.assessor_id == Assessor.id).exists(),
    )
    return tuple(session.scalars(
        select(Assessor.name).where(has_work, Assessor.kind == HUMAN).order_by(Assessor.name)
    ))


def query_text(session: Session, ext_id: str) -> QueryText | None:
    row = session.execute(_QUERY_TEXT, {"ext_id": ext_id}).first()
    if row is None:
        return None
    return QueryText(
        row.id, row.ext_id, row.title or "", row.description or "", row.narrative or ""
    )


def queue_rows(session: Session, assessor_id: int, query_id: int) -> QueueRows:
    rows = session.execute(_QUEUE, {"assessor_id": assessor_id, "query_id": query_id}).all()
    return QueueRows(
        np.array([r[0] for r in rows], dtype=np.int64),
        np.array([bool(r[1]) for r in rows], dtype=bool),
        np.array([r[2] for r in rows], dtype=np.int64),
        tuple(r[3] for r in rows),
        tuple(r[4] or "" for r in rows),
        tuple(r[5] or "" for r in rows),
    )


def _item_grades(rows) -> ItemGrades:
    return ItemGrades(
        np.array([r[0] for r in rows], dtype=np.int64),
        np.array([0 if r[1] is None else r[1] for r in rows], dtype=np.int64),
        np.array([r[1] is not None for r in rows], dtype=bool),
        tuple(r[2] or "" for r in rows),
    )


def current_grades(session: Session, assessor_id: int, query_id: int) -> ItemGrades:
    """The assessor's judgments (grade and note) for the query."""
    rows = session.execute(_JUDGMENTS, {"assessor_id": assessor_id, "query_id": query_id}).all()
    return _item_grades(rows)


def repeat_grades(session: Session, assessor_id: int, query_id: int) -> ItemGrades:
    """The assessor's latest `repeat` grade per document of the query (notes are "")."""
    rows = session.execute(_REPEATS, {"assessor_id": assessor_id, "query_id": query_id}).all()
    latest = {d: g for d, g in rows}  # a later event overwrites an earlier one
    return _item_grades([(d, g, "") for d, g in latest.items()])


def pending_notes(session: Session, assessor_id: int, query_id: int) -> dict[int, str]:
    """document id -> the latest note the assessor typed on it while it had no grade (the
    caller keeps it only for documents that still have none: it goes on the first grade)."""
    rows = session.execute(_PENDING_NOTES, {"assessor_id": assessor_id, "query_id": query_id})
    return {d: note or "" for d, note in rows}  # a later event overwrites an earlier one


def pending_note(session: Session, assessor_id: int, query_id: int, document_id: int) -> str | None:
    """The latest note the assessor typed on the document while it had no grade, or None
    (the caller asks only while the item has no judgment: the note goes on its first grade)."""
    rows = session.execute(_PENDING_NOTES.where(JudgmentEvent.document_id == document_id),
                           {"assessor_id": assessor_id, "query_id": query_id}).all()
    return (rows[-1][1] or "") if rows else None


def progress_counts(session: Session, assessor_id: int) -> ProgressCounts:
    """Judged and assigned items per query. A repeat item counts as judged once it has a
    repeat event, any other item once it has a judgment or a "can't judge" mark.

    Counted in SQL (one grouped pass over the assessor's assignments with indexed EXISTS
    probes): a campaign of 10 000 queries has ~1 M assignments, too many to walk in Python
    before the first screen.
    """
    rows = session.execute(_PROGRESS, {"assessor_id": assessor_id}).all()
    return ProgressCounts(
        tuple(r[0] for r in rows),
        tuple(r[1] or "" for r in rows),
        np.array([int(r[2] or 0) for r in rows], dtype=np.int64),
        np.array([int(r[3]) for r in rows], dtype=np.int64),
    )


@dataclass(frozen=True)
class ProgressPage:
    """One page of progress_counts; `after` is the key of the next page (None: the last)."""

    counts: ProgressCounts
    after: int | None


def progress_page(session: Session, assessor_id: int, after: int = 0,
                  limit: int = 500) -> ProgressPage:
    """progress_counts for the assessor's next `limit` queries after the key `after` (0:
    from the first): a list of 10^6 queries shows its first screen without counting the
    rest."""
    rows = session.execute(_PAGE, {"assessor_id": assessor_id, "after": after,
                                   "limit": limit}).all()
    counts = ProgressCounts(
        tuple(r[0] for r in rows),
        tuple(r[1] or "" for r in rows),
        np.array([int(r[2] or 0) for r in rows], dtype=np.int64),
        np.array([int(r[3]) for r in rows], dtype=np.int64),
    )
    return ProgressPage(counts, int(rows[-1][4]) if len(rows) == limit else None)


def progress_totals(session: Session, assessor_id: int) -> tuple[int, int, int, int]:
    """(queries, items judged, items assigned, queries done) over all the assessor's
    assignments, summed in SQL (item_done's rule)."""
    n, judged, pooled, done = session.execute(_TOTALS, {"assessor_id": assessor_id}).one()
    return int(n), int(judged), int(pooled), int(done)


@dataclass(frozen=True)
class OpenItems:
    """An assessor's first showings not settled yet, in judging order: queries in import
    order, then queue position (0-based, counting hidden repeats), with what the assessor
    reads of each document."""

    queries: tuple[str, ...]  # external ids
    positions: np.ndarray  # int64
    documents: tuple[str, ...]  # external ids
    titles: tuple[str, ...]
    texts: tuple[str, ...]


def open_items(session: Session, assessor_id: int, query_id: int | None = None,
               limit: int | None = None) -> OpenItems:
    """The assessor's unsettled first showings (item_done's rule), of one query or all,
    the first `limit` of them. Hidden repeats are left out: they are second showings,
    which only the judging screen presents."""
    stmt = (
        select(Query.ext_id, Assignment.position, Document.ext_id, Document.title, Document.text)
        .join(Query, Query.id == Assignment.query_id)
        .join(Document, Document.id == Assignment.document_id)
        .where(Assignment.assessor_id == assessor_id, Assignment.repeat.is_(False),
               item_done(assessor_id) == 0)
        .order_by(Query.id, Assignment.position)
    )
    if query_id is not None:
        stmt = stmt.where(Assignment.query_id == query_id)
    if limit is not None:
        stmt = stmt.limit(limit)
    rows = session.execute(stmt).all()
    return OpenItems(
        tuple(r[0] for r in rows),
        np.array([r[1] for r in rows], dtype=np.int64),
        tuple(r[2] for r in rows),
        tuple(r[3] or "" for r in rows),
        tuple(r[4] or "" for r in rows),
    )


def assignment_count(session: Session, assessor_id: int | None) -> int:
    """How many items are assigned to the assessor (0 for None: no such assessor)."""
    return session.scalar(
        select(func.count()).select_from(Assignment).where(Assignment.assessor_id == assessor_id)
    ) or 0


def pool_size(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(PoolEntry)) or 0


def assignment_state(session: Session, assessor: str, query: str, document: str) -> tuple[bool, bool, bool]:
    """(the campaign has a pool, the item is in it, it is in `assessor`'s assignment), by
    external ids."""
    has_pool = session.scalar(select(select(PoolEntry.query_id).exists()))
    if not has_pool:
        return False, False, False
    q = select(Query.id).where(Query.ext_id == query).scalar_subquery()
    d = select(Document.id).where(Document.ext_id == document).scalar_subquery()
    pooled = session.scalar(select(select(PoolEntry.query_id).where(
        PoolEntry.query_id == q, PoolEntry.document_id == d).exists()))
    mine = session.scalar(select(select(Assignment.id).join(Assessor, Assessor.id == Assignment.assessor_id).where(
        Assessor.name == assessor, Assignment.query_id == q, Assignment.document_id == d).exists()))
    return True, bool(pooled), bool(mine)
