"""One system's ranking for one query, with the documents' titles, and every grade given
on that query: what a ranked-list screen shows.

The ranking is cut from the system's `run_arrays` row (already in trec_eval's order,
grouped by query), so a screen lists the documents in the order scoring counts them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from workbench.errors import NotFoundError
from workbench.store.models import Adjudication, Assessor, Document, Judgment, Query, RunArrays, System
from workbench.store.run_arrays import ENCODING


@dataclass(frozen=True)
class Ranking:
    """Rows in trec_eval's order; ids are the database's."""

    query_id: int
    document_id: np.ndarray  # int64
    docno: np.ndarray  # object (str)
    title: np.ndarray  # object (str, "" for none)
    score: np.ndarray  # float64


@dataclass(frozen=True)
class QueryGrades:
    """Every assessor's current grade and the adjudicated grades on one query."""

    document_id: np.ndarray  # int64, one row per (document, assessor)
    assessor: np.ndarray  # object (str)
    grade: np.ndarray  # int64
    adjudicated_document_id: np.ndarray  # int64
    adjudicated_grade: np.ndarray  # int64


def query_id_of(session: Session, query: str) -> int:
    qid = session.scalar(select(Query.id).where(Query.ext_id == query))
    if qid is None:
        raise NotFoundError(f"unknown query {query!r}")
    return qid


def system_ranking(session: Session, system: str, query: str) -> Ranking:
    """`system`'s results for `query`; NotFoundError names an unknown system or query.
    A system without a current `run_arrays` row has no results."""
    sid = session.scalar(select(System.id).where(System.tag == system))
    if sid is None:
        raise NotFoundError(f"unknown system {system!r}")
    qid = query_id_of(session, query)
    row = session.execute(
        select(RunArrays.query_ids, RunArrays.document_ids, RunArrays.scores).where(
            RunArrays.system_id == sid, RunArrays.encoding == ENCODING)
    ).one_or_none()
    if row is None:
        document_id, score = np.empty(0, np.int64), np.empty(0, np.float64)
    else:
        mine = np.frombuffer(row.query_ids, dtype="<i4") == qid
        document_id = np.frombuffer(row.document_ids, dtype="<i4")[mine].astype(np.int64)
        score = np.frombuffer(row.scores, dtype="<f8")[mine].astype(np.float64)
    docs = session.execute(
        select(Document.id, Document.ext_id, Document.title)
        .where(Document.id.in_(np.unique(document_id).tolist()))
    ).all()
    known = np.array([d.id for d in docs], dtype=np.int64)
    order = np.argsort(known)
    at = order[np.searchsorted(known, document_id, sorter=order)] if docs else np.empty(0, np.int64)
    docno = np.array([d.ext_id for d in docs] or [""], dtype=object)[at]
    title = np.array([d.title or "" for d in docs] or [""], dtype=object)[at]
    return Ranking(qid, document_id, docno, title, score)


def query_grades(session: Session, query_id: int) -> QueryGrades:
    """The judgments (with assessor names) and adjudications of one query, in no order."""
    judged = session.execute(
        select(Judgment.document_id, Assessor.name, Judgment.grade)
        .join(Assessor, Assessor.id == Judgment.assessor_id)
        .where(Judgment.query_id == query_id)
    ).all()
    adjudicated = session.execute(
        select(Adjudication.document_id, Adjudication.grade).where(Adjudication.query_id == query_id)
    ).all()
    names = np.empty(len(judged), dtype=object)
    names[:] = [r[1] for r in judged]
    return QueryGrades(
        np.array([r[0] for r in judged], dtype=np.int64), names,
        np.array([r[2] for r in judged], dtype=np.int64),
        np.array([r[0] for r in adjudicated], dtype=np.int64),
        np.array([r[1] for r in adjudicated], dtype=np.int64),
    )


__all__ = ["QueryGrades", "Ranking", "query_grades", "query_id_of", "system_ranking"]
