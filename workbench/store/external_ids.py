"""Internal ids by external id (and back) for queries, documents and assessors, one at a
time or as arrays.

Users and files name things by external id (`query.ext_id`, `document.ext_id`,
`assessor.name`); the tables join on integer ids. Each lookup is one indexed SELECT, built
once here (a grade does four: building them per call cost more than running them).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from typing import TYPE_CHECKING

import numpy as np

from workbench.store.dbapi import as_reader, in_list

if TYPE_CHECKING:  # reads are SQL text on a Session, Connection or Reader (store.dbapi)
    from sqlalchemy.orm import Session

_IN_LIST = 5_000  # more ids than this: read the judged ones instead (binding costs more)

_QUERY_ID = "SELECT id FROM query WHERE ext_id = :key"
_DOCUMENT_ID = "SELECT id FROM document WHERE ext_id = :key"
_ASSESSOR_ID = "SELECT id FROM assessor WHERE name = :key"
_QUERY_EXT_ID = "SELECT ext_id FROM query WHERE id = :key"
_DOCUMENT_EXT_ID = "SELECT ext_id FROM document WHERE id = :key"


def query_id(session: Session, ext_id: str) -> int | None:
    return as_reader(session).scalar(_QUERY_ID, {"key": ext_id})


def document_id(session: Session, ext_id: str) -> int | None:
    return as_reader(session).scalar(_DOCUMENT_ID, {"key": ext_id})


def query_ids(session: Session, ext_ids: Iterable[str]) -> list[int]:
    """The database ids of the queries among `ext_ids` that exist (unknown ones are left out)."""
    among, params = in_list("e", list(ext_ids))
    return [r[0] for r in as_reader(session).rows(f"SELECT id FROM query WHERE ext_id IN {among}", params)]


def assessor_id(session: Session, name: str) -> int | None:
    return as_reader(session).scalar(_ASSESSOR_ID, {"key": name})


def add_assessor(session: Session, name: str) -> int:
    """The id of the assessor `name`, inserting the row when it is missing. Two processes
    may add the same new assessor at once (PostgreSQL): the second insert then does
    nothing, and both read the one row back. The caller checks the name first."""
    from workbench.store.locking import insert_ignoring_duplicates
    from workbench.store.models import Assessor

    session.execute(
        insert_ignoring_duplicates(session.connection(), Assessor.__table__).values(name=name)
    )
    return assessor_id(session, name)


def query_ext_id(session: Session, query_id: int) -> str | None:
    return as_reader(session).scalar(_QUERY_EXT_ID, {"key": query_id})


def document_ext_id(session: Session, document_id: int) -> str | None:
    return as_reader(session).scalar(_DOCUMENT_EXT_ID, {"key": document_id})


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
    return AssessorNames.of_rows(as_reader(session).rows("SELECT id, name FROM assessor ORDER BY name"))


def assessors_by_id(session: Session) -> AssessorNames:
    """Every assessor's id and name, by id (the order histories index assessors in)."""
    return AssessorNames.of_rows(as_reader(session).rows("SELECT id, name FROM assessor ORDER BY id"))


def query_ext_ids(session: Session, ids: np.ndarray) -> np.ndarray:
    """The external id (str, object array) of each query id in `ids`, which are ids of
    judged or adjudicated items."""
    return _ext_ids(session, "query", "query_id", ids)


def document_ext_ids(session: Session, ids: np.ndarray) -> np.ndarray:
    """The external id (str, object array) of each document id in `ids`, which are ids of
    judged or adjudicated items."""
    return _ext_ids(session, "document", "document_id", ids)


def _ext_ids(session: Session, table: str, column: str, ids: np.ndarray) -> np.ndarray:
    """Few ids: looked up with IN lists. Many (a whole campaign): every id that has a
    judgment or an adjudication, in one query (long IN lists cost more to bind than to run)."""
    ids = np.asarray(ids, dtype=np.int64)
    wanted = np.unique(ids)
    if wanted.size > _IN_LIST:
        among, params = f"(SELECT {column} FROM judgment UNION SELECT {column} FROM adjudication)", {}
    else:
        among, params = in_list("i", wanted.tolist())
    pairs = as_reader(session).rows(f"SELECT id, ext_id FROM {table} WHERE id IN {among}", params)
    known = np.fromiter((p[0] for p in pairs), dtype=np.int64, count=len(pairs))
    ext = np.empty(len(pairs), dtype=object)
    ext[:] = [p[1] for p in pairs]
    order = np.argsort(known)
    known, ext = known[order], ext[order]
    return ext[np.searchsorted(known, ids)]


__all__ = ["AssessorNames", "add_assessor", "assessor_id", "assessor_names", "assessors_by_id",
           "document_ext_ids",
           "document_id", "query_ext_ids", "query_id", "query_ids"]
