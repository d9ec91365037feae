"""Internal ids by external id (and back) for queries, documents and assessors.

Users and files name things by external id (`query.ext_id`, `document.ext_id`,
`assessor.name`); the tables join on integer ids. Each lookup is one indexed SELECT, built
once here (a grade does four: building them per call cost more than running them).
"""

from __future__ import annotations

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from workbench.store.locking import insert_ignoring_duplicates
from workbench.store.models import Assessor, Document, Query

_QUERY_ID = select(Query.id).where(Query.ext_id == bindparam("key"))
_DOCUMENT_ID = select(Document.id).where(Document.ext_id == bindparam("key"))
_ASSESSOR_ID = select(Assessor.id).where(Assessor.name == bindparam("key"))
_QUERY_EXT_ID = select(Query.ext_id).where(Query.id == bindparam("key"))
_DOCUMENT_EXT_ID = select(Document.ext_id).where(Document.id == bindparam("key"))


def query_id(session: Session, ext_id: str) -> int | None:
    return session.scalar(_QUERY_ID, {"key": ext_id})


def document_id(session: Session, ext_id: str) -> int | None:
    return session.scalar(_DOCUMENT_ID, {"key": ext_id})


def assessor_id(session: Session, name: str) -> int | None:
    return session.scalar(_ASSESSOR_ID, {"key": name})


def add_assessor(session: Session, name: str) -> int:
    """The id of the assessor `name`, inserting the row when it is missing. Two processes
    may add the same new assessor at once (PostgreSQL): the second insert then does
    nothing, and both read the one row back. The caller checks the name first."""
    session.execute(
        insert_ignoring_duplicates(session.connection(), Assessor.__table__).values(name=name)
    )
    return session.scalar(_ASSESSOR_ID, {"key": name})


def query_ext_id(session: Session, query_id: int) -> str | None:
    return session.scalar(_QUERY_EXT_ID, {"key": query_id})


def document_ext_id(session: Session, document_id: int) -> str | None:
    return session.scalar(_DOCUMENT_EXT_ID, {"key": document_id})
