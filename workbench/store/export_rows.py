"""Judgments as rows for an export, streamed: the current ones sorted for reading, or the
whole judgment_event history in the order it happened.

Rows are plain tuples of external ids, names and values, fetched _STREAM_ROWS at a time, so
an export of millions of judgments never holds them all; the caller's read transaction
must stay open while it iterates.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from workbench.store.models import Assessor, Document, Judgment, JudgmentEvent, Query

_STREAM_ROWS = 5_000  # rows fetched per round trip when streaming an export

# (query, document, assessor, grade, note, seconds, updated_at); note and seconds may be None
CurrentRow = tuple[str, str, str, int, "str | None", "float | None", datetime]
# (query, document, assessor, new grade, note, seconds, created_at, kind); grade None = cleared
EventRow = tuple[str, str, str, "int | None", "str | None", "float | None", datetime, str]


def current_judgment_rows(session: Session, assessor_id: int | None = None) -> Iterator[CurrentRow]:
    """Current judgments (of one assessor or all) sorted by (query, document, assessor)."""
    stmt = (
        select(Query.ext_id, Document.ext_id, Assessor.name, Judgment.grade, Judgment.note,
               Judgment.seconds, Judgment.updated_at)
        .join(Query, Query.id == Judgment.query_id)
        .join(Document, Document.id == Judgment.document_id)
        .join(Assessor, Assessor.id == Judgment.assessor_id)
        .order_by(Query.ext_id, Document.ext_id, Assessor.name)
    )
    if assessor_id is not None:
        stmt = stmt.where(Judgment.assessor_id == assessor_id)
    for row in session.execute(stmt.execution_options(yield_per=_STREAM_ROWS)):
        yield tuple(row)


def judgment_event_rows(session: Session, assessor_id: int | None = None) -> Iterator[EventRow]:
    """Every judgment_event (of one assessor or all), in the order it happened."""
    stmt = (
        select(Query.ext_id, Document.ext_id, Assessor.name, JudgmentEvent.new_grade,
               JudgmentEvent.note, JudgmentEvent.seconds, JudgmentEvent.created_at,
               JudgmentEvent.kind)
        .join(Query, Query.id == JudgmentEvent.query_id)
        .join(Document, Document.id == JudgmentEvent.document_id)
        .join(Assessor, Assessor.id == JudgmentEvent.assessor_id)
        .order_by(JudgmentEvent.id)
    )
    if assessor_id is not None:
        stmt = stmt.where(JudgmentEvent.assessor_id == assessor_id)
    for row in session.execute(stmt.execution_options(yield_per=_STREAM_ROWS)):
        yield tuple(row)


__all__ = ["CurrentRow", "EventRow", "current_judgment_rows", "judgment_event_rows"]
