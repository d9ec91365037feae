"""The SQL of adjudication: what the lead reads about one item, and the write of a final
grade with its `adjudicate` event (the rules are campaign/agreement/adjudication.py's).

NOT blind: these records carry every assessor's grade and note; lead screens only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from workbench.errors import DatabaseError, one_line
from workbench.store.models import (
    Adjudication,
    Assessor,
    Document,
    Judgment,
    JudgmentEvent,
    Query,
    ScaleLevel,
    utcnow,
)


class ConcurrentAdjudication(DatabaseError):
    """Another transaction wrote the same item's first final grade meanwhile (PostgreSQL:
    two leads adjudicating one new item race on its primary key); nothing was written, and
    trying again finds that row."""


@dataclass(frozen=True)
class ItemText:
    """What the lead reads of one item: the query's texts and the document's."""

    query: str
    query_title: str
    query_description: str
    query_narrative: str
    document: str
    title: str
    text: str
    url: str | None


@dataclass(frozen=True)
class FinalGrade:
    grade: int
    note: str
    adjudicator: str


@dataclass(frozen=True)
class AdjudicationWrite:
    """What a write did: the final grade before it, and the event that records it."""

    old_grade: int | None
    event_id: int
    at: datetime


def item_text(session: Session, query_id: int, document_id: int) -> ItemText:
    """The texts of query `query_id` and document `document_id` (both exist)."""
    q = session.execute(
        select(Query.ext_id, Query.title, Query.description, Query.narrative)
        .where(Query.id == query_id)
    ).one()
    d = session.execute(
        select(Document.ext_id, Document.title, Document.text, Document.url)
        .where(Document.id == document_id)
    ).one()
    return ItemText(q[0], q[1] or "", q[2] or "", q[3] or "", d[0], d[1] or "", d[2] or "", d[3])


def item_grades(session: Session, query_id: int, document_id: int) -> tuple[tuple[str, int, str], ...]:
    """Every assessor's current (name, grade, note) of the item, by name (a negative grade,
    a qrels file's "in the pool, unjudged", is no grade: left out)."""
    rows = session.execute(
        select(Assessor.name, Judgment.grade, Judgment.note)
        .join(Assessor, Assessor.id == Judgment.assessor_id)
        .where(Judgment.query_id == query_id, Judgment.document_id == document_id,
               Judgment.grade >= 0)
        .order_by(Assessor.name)
    ).all()
    return tuple((a, g, n or "") for a, g, n in rows)


def final_grade(session: Session, query_id: int, document_id: int) -> FinalGrade | None:
    """The item's final grade, None when it has none."""
    row = session.execute(
        select(Adjudication.grade, Adjudication.note, Assessor.name)
        .join(Assessor, Assessor.id == Adjudication.adjudicator_id)
        .where(Adjudication.query_id == query_id, Adjudication.document_id == document_id)
    ).first()
    return None if row is None else FinalGrade(row[0], row[1] or "", row[2])


def scale_grades(session: Session) -> list[int]:
    """The grades of the campaign's relevance scale, ascending."""
    return list(session.scalars(select(ScaleLevel.grade).order_by(ScaleLevel.grade)))


def write_adjudication(
    session: Session,
    query_id: int,
    document_id: int,
    adjudicator_id: int,
    grade: int | None,
    note: str,
    kind: str,
) -> AdjudicationWrite:
    """Set (grade None: remove) the item's final grade and append the judgment_event `kind`
    that records it, in the caller's transaction. The item's row is locked first, so
    concurrent writers of an existing final grade queue; a race on a new one raises
    ConcurrentAdjudication."""
    where = (Adjudication.query_id == query_id, Adjudication.document_id == document_id)
    row = session.scalars(select(Adjudication).where(*where).with_for_update()).first()
    old = row.grade if row is not None else None
    now = utcnow()
    if grade is None:
        if row is not None:
            session.execute(delete(Adjudication).where(*where))
    elif row is None:
        session.add(Adjudication(query_id=query_id, document_id=document_id, grade=grade,
                                 adjudicator_id=adjudicator_id, note=note, updated_at=now))
    else:
        row.grade, row.adjudicator_id, row.note, row.updated_at = grade, adjudicator_id, note, now
    event = JudgmentEvent(
        query_id=query_id, document_id=document_id, assessor_id=adjudicator_id, kind=kind,
        old_grade=old, new_grade=grade, note=note, seconds=0.0, created_at=now,
    )
    session.add(event)
    try:
        session.flush()
    except IntegrityError as exc:
        raise ConcurrentAdjudication(one_line(exc)) from exc
    return AdjudicationWrite(old, event.id, now)


__all__ = ["AdjudicationWrite", "ConcurrentAdjudication", "FinalGrade", "ItemText",
           "final_grade", "item_grades", "item_text", "scale_grades", "write_adjudication"]
