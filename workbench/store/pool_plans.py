"""The campaign's pool plan (PoolPlan, id 1) and what an adaptive queue reads and writes
per query: its pool, everyone's queue items on it, one assessor's progress on it
(campaign/pooling/plan.py and campaign/pooling/adaptive.py hold the rules)."""

from __future__ import annotations

from sqlalchemy import bindparam, func, insert, select
from sqlalchemy.orm import Session

from workbench.store.models import Assignment, PoolEntry, PoolPlan
from workbench.store.queues import item_done

PLAN_COLUMNS = ("method", "depth", "budget", "seed", "overlap", "repeat")


def read_pool_plan(session: Session) -> dict[str, object] | None:
    """The plan as {column: value}; None before any `pool --method`."""
    row = session.execute(
        select(*(getattr(PoolPlan, c) for c in PLAN_COLUMNS)).where(PoolPlan.id == 1)
    ).first()
    return None if row is None else dict(zip(PLAN_COLUMNS, row))


def write_pool_plan(session: Session, **values: object) -> None:
    """Replace the plan's columns (the row is created when missing)."""
    unknown = set(values) - set(PLAN_COLUMNS)
    if unknown:
        raise ValueError(f"unknown pool plan columns: {sorted(unknown)}")
    row = session.get(PoolPlan, 1)
    if row is None:
        row = PoolPlan(id=1)
        session.add(row)
    for name, value in values.items():
        setattr(row, name, value)
    session.flush()


def pooled_documents(session: Session, query_id: int) -> list[int]:
    """The document ids pooled for one query."""
    return list(session.scalars(
        select(PoolEntry.document_id).where(PoolEntry.query_id == query_id)
    ))


def pooled_counts(session: Session) -> dict[int, int]:
    """query id -> pooled documents, for every query with a pool."""
    return dict(session.execute(
        select(PoolEntry.query_id, func.count()).group_by(PoolEntry.query_id)
    ).all())


def add_pool_entry(session: Session, query_id: int, document_id: int, best_rank: int) -> None:
    session.execute(insert(PoolEntry), [
        {"query_id": query_id, "document_id": document_id, "best_rank": best_rank}])


def query_assignments(session: Session, query_id: int) -> list[tuple[int, int, int, bool]]:
    """Everyone's queue items on one query as (assessor id, document id, position, repeat)."""
    return [(a, d, p, bool(r)) for a, d, p, r in session.execute(
        select(Assignment.assessor_id, Assignment.document_id, Assignment.position,
               Assignment.repeat).where(Assignment.query_id == query_id)
    )]


def assessors_with_queues(session: Session) -> list[int]:
    """Ids of the assessors with any queue item: the judging group."""
    return list(session.scalars(
        select(Assignment.assessor_id).distinct().order_by(Assignment.assessor_id)
    ))


def _open_items_statement():
    """How many of one assessor's items on one query are not settled yet (queues.item_done,
    the rule of the progress count)."""
    aid, qid = bindparam("assessor_id"), bindparam("query_id")
    return select(func.count() - func.coalesce(func.sum(item_done(aid)), 0)).where(
        Assignment.assessor_id == aid, Assignment.query_id == qid
    )


_OPEN_ITEMS = _open_items_statement()


def open_items(session: Session, assessor_id: int, query_id: int) -> int:
    return int(session.scalar(_OPEN_ITEMS, {"assessor_id": assessor_id, "query_id": query_id}) or 0)


__all__ = ["PLAN_COLUMNS", "add_pool_entry", "assessors_with_queues",
           "open_items", "pooled_counts", "pooled_documents", "query_assignments",
           "read_pool_plan", "write_pool_plan"]
