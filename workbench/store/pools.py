"""The pool and the assessors' queues: what pooling and assigning read and write
(campaign/pooling/ holds the rules)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from workbench.store.bulk import bulk_insert, int_columns
from workbench.store.models import (
    Assessor,
    Assignment,
    Campaign,
    CantJudge,
    Document,
    Judgment,
    PoolEntry,
    Query,
)


@dataclass(frozen=True)
class PoolArrays:
    """Pool entries as int64 arrays, sorted by (query id, document id)."""

    query_id: np.ndarray
    document_id: np.ndarray
    best_rank: np.ndarray


def pool_arrays(session: Session) -> PoolArrays:
    """Every pool entry, sorted by (query id, document id)."""
    return PoolArrays(*int_columns(session.connection(), select(
        PoolEntry.query_id, PoolEntry.document_id, PoolEntry.best_rank
    ).order_by(PoolEntry.query_id, PoolEntry.document_id), 3))


INSERT_CHUNK = 100_000  # rows turned into tuples at a time: a million-entry pool stays small


def add_pool_entries(session: Session, query_id, document_id, best_rank) -> None:
    """Insert pool entries given as parallel integer arrays (the driver's bulk path)."""
    columns = ("query_id", "document_id", "best_rank")
    arrays = [np.asarray(a, dtype=np.int64) for a in (query_id, document_id, best_rank)]
    conn = session.connection()
    for at in range(0, arrays[0].size, INSERT_CHUNK):
        part = [a[at:at + INSERT_CHUNK].tolist() for a in arrays]
        bulk_insert(conn, PoolEntry.__table__, columns, list(zip(*part)))


def lower_best_ranks(session: Session, query_id, document_id, best_rank) -> None:
    """Set the best_rank of existing pool entries (parallel integer arrays)."""
    rows = [{"query_id": q, "document_id": d, "best_rank": r} for q, d, r in zip(
        np.asarray(query_id).tolist(), np.asarray(document_id).tolist(), np.asarray(best_rank).tolist())]
    if rows:
        session.execute(update(PoolEntry), rows)


def record_pool_depth(session: Session, depth: int, *, had_pool: bool) -> None:
    """The campaign's pool depth: the largest pooled so far (the pool never shrinks)."""
    campaign = session.get(Campaign, 1)
    if campaign is not None:
        campaign.pool_depth = max(depth, campaign.pool_depth) if had_pool else depth


def pool_sizes(session: Session) -> dict[str, int]:
    """query external id -> pool entries, in query id (external) order."""
    return dict(
        session.execute(
            select(Query.ext_id, func.count())
            .join(PoolEntry, PoolEntry.query_id == Query.id)
            .group_by(Query.ext_id)
            .order_by(Query.ext_id)
        ).all()
    )


def query_names(session: Session) -> dict[int, str]:
    """query id -> external id."""
    return dict(session.execute(select(Query.id, Query.ext_id)).all())


def pool_documents(session: Session) -> list[tuple[int, int, str]]:
    """Every pool entry as (query id, document id, document external id)."""
    return [tuple(r) for r in session.execute(
        select(PoolEntry.query_id, PoolEntry.document_id, Document.ext_id).join(
            Document, Document.id == PoolEntry.document_id
        )
    )]


def assignments_of(session: Session, assessor_ids: list[int]) -> list[tuple[int, int, int, int]]:
    """The assessors' queue items as (assessor id, query id, document id, position)."""
    return [tuple(r) for r in session.execute(
        select(
            Assignment.assessor_id, Assignment.query_id, Assignment.document_id,
            Assignment.position,
        ).where(Assignment.assessor_id.in_(assessor_ids))
    )]


def queue_rows(session: Session, assessor_ids: list[int]) -> list[tuple[int, int, int, int, int, bool, bool]]:
    """The assessors' queue items as (row id, assessor id, query id, document id, position,
    is repeat, settled), settled = the assessor graded or marked that document."""
    settled = (
        select(Judgment.id).where(
            Judgment.assessor_id == Assignment.assessor_id, Judgment.query_id == Assignment.query_id,
            Judgment.document_id == Assignment.document_id, Judgment.grade >= 0,  # GRADED
        ).exists()
        | select(CantJudge.id).where(
            CantJudge.assessor_id == Assignment.assessor_id, CantJudge.query_id == Assignment.query_id,
            CantJudge.document_id == Assignment.document_id,
        ).exists()
    )
    return [tuple(r) for r in session.execute(
        select(
            Assignment.id, Assignment.assessor_id, Assignment.query_id, Assignment.document_id,
            Assignment.position, Assignment.repeat, settled,
        ).where(Assignment.assessor_id.in_(assessor_ids))
    )]


def remove_assignments(session: Session, row_ids: list[int]) -> None:
    """Delete queue items by row id (re-pooling puts them back at new positions)."""
    for at in range(0, len(row_ids), 10_000):  # (bound parameters per statement)
        session.execute(delete(Assignment).where(Assignment.id.in_(row_ids[at:at + 10_000])))


ASSIGNMENT_COLUMNS = ("assessor_id", "query_id", "document_id", "position", "repeat")


def add_assignments(session: Session, rows: list[tuple]) -> None:
    """Queue items: tuples of ASSIGNMENT_COLUMNS (the driver's bulk path)."""
    conn = session.connection()
    for at in range(0, len(rows), INSERT_CHUNK):
        bulk_insert(conn, Assignment.__table__, ASSIGNMENT_COLUMNS, rows[at:at + INSERT_CHUNK])


def queue_sizes(session: Session, assessor_ids: list[int]) -> dict[tuple[int, bool], int]:
    """(assessor id, is repeat) -> queue items, for the given assessors."""
    return {
        (aid, rep): n
        for aid, rep, n in session.execute(
            select(Assignment.assessor_id, Assignment.repeat, func.count())
            .where(Assignment.assessor_id.in_(assessor_ids))
            .group_by(Assignment.assessor_id, Assignment.repeat)
        )
    }


def queue_sizes_by_name(session: Session) -> list[tuple[str, bool, int]]:
    """(assessor name, is repeat, queue items) for every assessor with a queue."""
    return [tuple(r) for r in session.execute(
        select(Assessor.name, Assignment.repeat, func.count())
        .join(Assignment, Assignment.assessor_id == Assessor.id)
        .group_by(Assessor.name, Assignment.repeat)
    ).all()]


__all__ = ["ASSIGNMENT_COLUMNS", "PoolArrays", "add_assignments", "add_pool_entries", "assignments_of",
           "queue_rows", "remove_assignments", "lower_best_ranks", "pool_arrays", "pool_documents", "pool_sizes", "query_names", "queue_sizes", "queue_sizes_by_name",
           "record_pool_depth"]
