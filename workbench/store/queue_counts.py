"""What the judging screen needs about an assessor's queries without reading them all: the
first or next query with work left, a query's place among them, and the overall counts.

A campaign of 10^6 queries has 10^6 assignments per assessor: reading every query's
progress took 20 s before the first screen. These statements walk the assignment index
(assessor, query, position) in order and stop at the first query with an item not settled
(store.queues.item_done: the one rule of progress), or count in SQL.
"""

from __future__ import annotations

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from workbench.store.models import Assignment, JudgmentEvent, Query
from workbench.store.queues import item_done

_AID = bindparam("assessor_id")
_OPEN = Assignment.assessor_id == _AID, item_done(_AID) == 0
_AFTER = (select(Assignment.query_id).where(*_OPEN, Assignment.query_id > bindparam("after"))
          .order_by(Assignment.query_id).limit(1))
_BEFORE = (select(Assignment.query_id).where(*_OPEN, Assignment.query_id < bindparam("before"))
           .order_by(Assignment.query_id.desc()).limit(1))
_FIRST_ANY = (select(Assignment.query_id).where(Assignment.assessor_id == _AID)
              .order_by(Assignment.query_id).limit(1))
_QUERIES_UP_TO = select(func.count(func.distinct(Assignment.query_id))).where(
    Assignment.assessor_id == _AID, Assignment.query_id <= bindparam("upto"))
_OVERALL = select(func.count(), func.sum(item_done(_AID))).where(Assignment.assessor_id == _AID)
_POSITIONS = (select(Assignment.position, Assignment.repeat, Assignment.document_id)
              .where(Assignment.assessor_id == _AID, Assignment.query_id == bindparam("qid"))
              .order_by(Assignment.position))
_HISTORY = select(JudgmentEvent.id).where(JudgmentEvent.assessor_id == _AID).limit(1)
_EXT = select(Query.ext_id).where(Query.id == bindparam("qid"))
_ID = select(Query.id).where(Query.ext_id == bindparam("ext"))
_LAST = 2**31 - 1  # above every id (INTEGER columns on PostgreSQL)


def _ext(session: Session, qid: int | None) -> str | None:
    return None if qid is None else session.scalar(_EXT, {"qid": qid})


def open_query_after(session: Session, assessor_id: int, query: str | None,
                     step: int = 1) -> str | None:
    """The next (step 1) or previous (-1) query after `query` (None: from the start, or the
    end) in import order with an item not settled, wrapping around; never `query` itself.
    None when no other query has work left."""
    here = session.scalar(_ID, {"ext": query}) if query is not None else None
    stmt, bound = (_AFTER, "after") if step > 0 else (_BEFORE, "before")
    start = here if here is not None else (0 if step > 0 else _LAST)
    found = session.scalar(stmt, {"assessor_id": assessor_id, bound: start})
    if found is None and here is not None:  # wrap around
        found = session.scalar(stmt, {"assessor_id": assessor_id, bound: 0 if step > 0 else _LAST})
    return None if found is None or found == here else _ext(session, found)


def first_query(session: Session, assessor_id: int) -> str | None:
    """The first query with work left, else the first with assignments; None: nothing."""
    found = open_query_after(session, assessor_id, None)
    if found is not None:
        return found
    return _ext(session, session.scalar(_FIRST_ANY, {"assessor_id": assessor_id}))


def query_place(session: Session, assessor_id: int, query: str) -> tuple[int, int]:
    """(the query's place among the assessor's queries, 1-based; how many there are)."""
    qid = session.scalar(_ID, {"ext": query})
    upto = session.scalar(_QUERIES_UP_TO, {"assessor_id": assessor_id, "upto": qid or 0})
    total = session.scalar(_QUERIES_UP_TO, {"assessor_id": assessor_id, "upto": _LAST})
    return int(upto or 0), int(total or 0)


def overall_counts(session: Session, assessor_id: int) -> tuple[int, int]:
    """(items settled, items assigned) over all the assessor's queries."""
    pooled, done = session.execute(_OVERALL, {"assessor_id": assessor_id}).one()
    return int(done or 0), int(pooled or 0)


def has_history(session: Session, assessor_id: int) -> bool:
    """The assessor has done anything at all (a grade, mark, repeat or note)."""
    return session.scalar(_HISTORY, {"assessor_id": assessor_id}) is not None


def queue_positions(session: Session, assessor_id: int,
                    query_id: int) -> tuple[list[int], list[bool], list[int]]:
    """The assessor's queue on a query without the documents: positions, repeat flags and
    document ids, in position order."""
    rows = session.execute(_POSITIONS, {"assessor_id": assessor_id, "qid": query_id}).all()
    return [r[0] for r in rows], [bool(r[1]) for r in rows], [r[2] for r in rows]
