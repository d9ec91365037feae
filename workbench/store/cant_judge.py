"""The SQL of "can't judge" marks: an assessor's current mark on an item (a row of
`cant_judge`), its write and removal, and the lists that read them. The rules (what a mark
does to a grade, what settles a queue item) are campaign/judging/marks.py's and grades.py's; every mark and
unmark is appended to `judgment_event` by the caller, as grades are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, delete, insert, select
from sqlalchemy.orm import Session

from workbench.store.judgment_writes import conflicts_raised_as_ours
from workbench.store.models import Assessor, CantJudge, Document, Query

_CURRENT = select(CantJudge.id, CantJudge.reason).where(
    CantJudge.query_id == bindparam("query_id"),
    CantJudge.document_id == bindparam("document_id"),
    CantJudge.assessor_id == bindparam("assessor_id"),
).with_for_update()
_INSERT = insert(CantJudge.__table__)
_DELETE = delete(CantJudge.__table__).where(CantJudge.__table__.c.id == bindparam("mark_id"))
_QUEUE_MARKS = select(CantJudge.document_id, CantJudge.reason).where(
    CantJudge.assessor_id == bindparam("assessor_id"), CantJudge.query_id == bindparam("query_id")
)


@dataclass(frozen=True)
class CurrentMark:
    id: int
    reason: str


@dataclass(frozen=True)
class MarkRows:
    """Every current mark, by query import order, then document id, then assessor name."""

    queries: tuple[str, ...]
    documents: tuple[str, ...]
    assessors: tuple[str, ...]
    reasons: tuple[str, ...]
    at: tuple[datetime, ...]


def current_mark(session: Session, query_id: int, document_id: int, assessor_id: int) -> CurrentMark | None:
    """The assessor's mark on the item, locked until the transaction ends (PostgreSQL)."""
    row = session.execute(
        _CURRENT, {"query_id": query_id, "document_id": document_id, "assessor_id": assessor_id}
    ).first()
    return None if row is None else CurrentMark(row.id, row.reason or "")


def insert_mark(session: Session, query_id: int, document_id: int, assessor_id: int, *,
                reason: str, at: datetime) -> None:
    """A new mark; a concurrent first mark of the same item raises WriteConflict."""
    with conflicts_raised_as_ours():
        session.execute(_INSERT, dict(query_id=query_id, document_id=document_id,
                                      assessor_id=assessor_id, reason=reason, created_at=at))


def delete_mark(session: Session, mark_id: int) -> None:
    session.execute(_DELETE, {"mark_id": mark_id})


def queue_marks(session: Session, assessor_id: int, query_id: int) -> dict[int, str]:
    """document id -> reason, for the assessor's marks in one query."""
    return {d: r or "" for d, r in session.execute(
        _QUEUE_MARKS, {"assessor_id": assessor_id, "query_id": query_id})}


def mark_rows(session: Session, assessor: str | None = None) -> MarkRows:
    """Every current mark (or one assessor's), with external names, for the lead's list."""
    stmt = (
        select(Query.ext_id, Document.ext_id, Assessor.name, CantJudge.reason, CantJudge.created_at)
        .join(Query, Query.id == CantJudge.query_id)
        .join(Document, Document.id == CantJudge.document_id)
        .join(Assessor, Assessor.id == CantJudge.assessor_id)
        .order_by(Query.id, Document.id, Assessor.name)
    )
    if assessor is not None:
        stmt = stmt.where(Assessor.name == assessor)
    rows = session.execute(stmt).all()
    return MarkRows(*(tuple(col) for col in zip(*rows))) if rows else MarkRows((), (), (), (), ())
