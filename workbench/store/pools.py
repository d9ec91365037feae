"""The pool and the assessors' queues: what pooling and assigning read and write
(campaign/pooling.py holds the rules)."""

from __future__ import annotations

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from workbench.store.models import Assessor, Assignment, Campaign, Document, PoolEntry, Query


def pool_best_ranks(session: Session) -> dict[tuple[int, int], int]:
    """(query id, document id) -> best rank, for every pool entry."""
    return {
        (qid, did): rank
        for qid, did, rank in session.execute(
            select(PoolEntry.query_id, PoolEntry.document_id, PoolEntry.best_rank)
        )
    }


def add_pool_entries(session: Session, new: list[dict], better: list[dict]) -> None:
    """Insert `new` entries and lower the best_rank of `better` ones (dicts of
    query_id, document_id, best_rank)."""
    if new:
        session.execute(insert(PoolEntry), new)
    if better:
        session.execute(update(PoolEntry), better)


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


def add_assignments(session: Session, rows: list[dict]) -> None:
    """Queue items: dicts of assessor_id, query_id, document_id, position, repeat."""
    if rows:
        session.execute(insert(Assignment), rows)


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


__all__ = ["add_assignments", "add_pool_entries", "assignments_of", "pool_best_ranks",
           "pool_documents", "pool_sizes", "query_names", "queue_sizes", "queue_sizes_by_name",
           "record_pool_depth"]
