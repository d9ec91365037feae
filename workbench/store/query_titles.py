"""Every query's external id and title, in id (import) order."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from workbench.store.models import Query


@dataclass(frozen=True)
class QueryTitles:
    ext_id: tuple[str, ...]  # in id order
    title: tuple[str, ...]  # "" for none


def query_titles(session: Session) -> QueryTitles:
    rows = session.execute(select(Query.ext_id, Query.title).order_by(Query.id)).all()
    return QueryTitles(tuple(r[0] for r in rows), tuple(r[1] or "" for r in rows))


__all__ = ["QueryTitles", "query_titles"]
