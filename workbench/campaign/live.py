"""A cheap "has anything changed?" probe for screens that refresh while others write.

Lead screens poll `data_version` about once a second in a thread worker and reload only
when the value differs from the one they drew. Every grade, clear, undo, note, repeat and
adjudication appends a `judgment_event` (so its max id moves); the counts catch deletions
and imports (new systems, queries, documents, results). All are index-only aggregates:
a few milliseconds even on a campaign with a million results.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from workbench.campaign.database import Database
from workbench.store.models import (
    Adjudication,
    Assessor,
    Document,
    Judgment,
    JudgmentEvent,
    Query,
    System,
)


@dataclass(frozen=True)
class DataVersion:
    """Compare with ==; `judgments_changed` / `runs_changed` say what a screen must reload."""

    last_event: int
    judgments: int
    adjudications: int
    assessors: int
    systems: int
    queries: int
    documents: int

    def runs_changed(self, other: "DataVersion | None") -> bool:
        """Systems, queries or documents were added or removed (an import): reload runs."""
        return other is None or (self.systems, self.queries, self.documents) != (
            other.systems, other.queries, other.documents
        )


def data_version(db: Database) -> DataVersion:
    """One read transaction of aggregates (see the module docstring)."""
    with db.read() as s:
        row = s.execute(
            select(
                select(func.coalesce(func.max(JudgmentEvent.id), 0)).scalar_subquery(),
                select(func.count()).select_from(Judgment).scalar_subquery(),
                select(func.count()).select_from(Adjudication).scalar_subquery(),
                select(func.count()).select_from(Assessor).scalar_subquery(),
                select(func.count()).select_from(System).scalar_subquery(),
                select(func.count()).select_from(Query).scalar_subquery(),
                select(func.count()).select_from(Document).scalar_subquery(),
            )
        ).one()
    return DataVersion(*(int(v) for v in row))


def queries_changed_since(db: Database, event_id: int) -> set[str]:
    """External ids of the queries with a judgment event after `event_id`: what a screen
    must recompute (every grade, clear, undo, import and adjudication appends one)."""
    with db.read() as s:
        return set(s.scalars(
            select(Query.ext_id).where(
                Query.id.in_(select(JudgmentEvent.query_id).where(JudgmentEvent.id > event_id))
            )
        ))
