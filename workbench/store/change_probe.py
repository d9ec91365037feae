"""Aggregates that move whenever the campaign's data changes, for screens that poll.

Every grade, clear, undo, note, repeat and adjudication appends a `judgment_event` (so its
max id moves), every nugget label a `nugget_event`; the row counts catch deletions,
imports and nugget bank edits. All are index-only aggregates:
a few milliseconds even on a campaign with a million results.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from workbench.store.models import (
    Adjudication,
    Assessor,
    Document,
    Judgment,
    JudgmentEvent,
    Nugget,
    NuggetEvent,
    Query,
    System,
)


@dataclass(frozen=True)
class RowCounts:
    last_event: int  # the highest judgment_event id, 0 when there is none
    judgments: int
    adjudications: int
    assessors: int
    systems: int
    queries: int
    documents: int
    nugget_event: int = 0  # the highest nugget_event id (nugget labels, their undos, failures)
    nuggets: int = 0  # the nuggets of every bank (a bank edited on the nugget screen)


def row_counts(session: Session) -> RowCounts:
    """All counts in one statement (one snapshot)."""
    row = session.execute(
        select(
            select(func.coalesce(func.max(JudgmentEvent.id), 0)).scalar_subquery(),
            select(func.count()).select_from(Judgment).scalar_subquery(),
            select(func.count()).select_from(Adjudication).scalar_subquery(),
            select(func.count()).select_from(Assessor).scalar_subquery(),
            select(func.count()).select_from(System).scalar_subquery(),
            select(func.count()).select_from(Query).scalar_subquery(),
            select(func.count()).select_from(Document).scalar_subquery(),
            select(func.coalesce(func.max(NuggetEvent.id), 0)).scalar_subquery(),
            select(func.count()).select_from(Nugget).scalar_subquery(),
        )
    ).one()
    return RowCounts(*(int(v) for v in row))


def queries_with_events_after(session: Session, event_id: int) -> tuple[str, ...]:
    """External ids of the queries with a judgment event whose id is above `event_id`."""
    return tuple(session.scalars(
        select(Query.ext_id).where(
            Query.id.in_(select(JudgmentEvent.query_id).where(JudgmentEvent.id > event_id))
        )
    ))
