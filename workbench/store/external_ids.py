"""Database ids by external id (query, document, assessor name) and back, as arrays.

Use cases name things by external ids; the grade loaders (judgment_arrays.py) speak
database ids. These lookups translate at the edges, one SELECT per direction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from workbench.store.locking import insert_ignoring_duplicates
from workbench.store.models import Adjudication, Assessor, Document, Judgment, Query

_IN_LIST = 5_000  # more ids than this: read the judged ones instead (binding costs more)


def query_id(session: Session, ext_id: str) -> int | None:
    """The database id of query `ext_id`, None when there is none."""
    return session.scalar(select(Query.id).where(Query.ext_id == ext_id))


def document_id(session: Session, ext_id: str) -> int | None:
    """The database id of document `ext_id`, None when there is none."""
    return session.scalar(select(Document.id).where(Document.ext_id == ext_id))


def query_ids(session: Session, ext_ids: Iterable[str]) -> list[int]:
    """The database ids of the queries among `ext_ids` that exist (unknown ones are left out)."""
    return list(session.scalars(select(Query.id).where(Query.ext_id.in_(list(ext_ids)))))


def assessor_id(session: Session, name: str) -> int | None:
    """The database id of assessor `name`, None when there is none."""
    return session.scalar(select(Assessor.id).where(Assessor.name == name))


def add_assessor(session: Session, name: str) -> int:
    """The id of assessor `name` (already checked by the caller), inserting the row when it
    is new. Two processes may add the same name at once (PostgreSQL): the second insert
    then does nothing, and both read the one row back."""
    session.execute(insert_ignoring_duplicates(session.connection(), Assessor.__table__)
                    .values(name=name))
    return session.scalar(select(Assessor.id).where(Assessor.name == name))


@dataclass(frozen=True)
class AssessorNames:
    """Every assessor: database ids and names (str, object array), ordered by name."""

    ids: np.ndarray  # int64
    names: np.ndarray  # object (str)

    @classmethod
    def of_rows(cls, rows) -> "AssessorNames":
        """From (id, name) rows."""
        names = np.empty(len(rows), dtype=object)
        names[:] = [r[1] for r in rows]
        return cls(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)), names)


def assessor_names(session: Session) -> AssessorNames:
    """Every assessor's id and name, by name."""
    return AssessorNames.of_rows(
        session.execute(select(Assessor.id, Assessor.name).order_by(Assessor.name)).all()
    )


def query_ext_ids(session: Session, ids: np.ndarray) -> np.ndarray:
    """The external id (str, object array) of each query id in `ids`, which are ids of
    judged or adjudicated items."""
    return _ext_ids(session, Query, "query_id", ids)


def document_ext_ids(session: Session, ids: np.ndarray) -> np.ndarray:
    """The external id (str, object array) of each document id in `ids`, which are ids of
    judged or adjudicated items."""
    return _ext_ids(session, Document, "document_id", ids)


def _ext_ids(session: Session, table, column: str, ids: np.ndarray) -> np.ndarray:
    """Few ids: looked up with IN lists. Many (a whole campaign): every id that has a
    judgment or an adjudication, in one query (long IN lists cost more to bind than to run)."""
    ids = np.asarray(ids, dtype=np.int64)
    wanted = np.unique(ids)
    if wanted.size > _IN_LIST:
        among = select(getattr(Judgment, column)).union(select(getattr(Adjudication, column)))
    else:
        among = wanted.tolist()
    pairs = session.connection().execute(select(table.id, table.ext_id).where(table.id.in_(among))).all()
    known = np.fromiter((p[0] for p in pairs), dtype=np.int64, count=len(pairs))
    ext = np.empty(len(pairs), dtype=object)
    ext[:] = [p[1] for p in pairs]
    order = np.argsort(known)
    known, ext = known[order], ext[order]
    return ext[np.searchsorted(known, ids)]


__all__ = ["AssessorNames", "add_assessor", "assessor_id", "assessor_names", "document_ext_ids",
           "document_id", "query_ext_ids", "query_id", "query_ids"]
