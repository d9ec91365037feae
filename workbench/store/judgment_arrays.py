"""Current grades as integer arrays of database ids: what qrels, consensus, agreement and
the lead's disagreement list compute on.

Only `judgment` rows (each assessor's current grade) and `adjudication` rows (the lead's
final grade) are read here; `judgment_event` (history, repeats) never is. Rows come
through the driver's cursor as plain tuples: numpy reads them several times faster than
SQLAlchemy Row objects (the live score panel reads every grade of the campaign).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from workbench.store.bulk import int_columns
from workbench.store.external_ids import AssessorNames
from workbench.store.models import Adjudication, Assessor, Judgment


@dataclass(frozen=True)
class ItemGrades:
    """One grade per row: query_id[i], document_id[i], grade[i] (int64, database ids)."""

    query_id: np.ndarray
    document_id: np.ndarray
    grade: np.ndarray


@dataclass(frozen=True)
class Judgments:
    """Current judgments: query_id[i], document_id[i], assessor_id[i], grade[i] (int64)."""

    query_id: np.ndarray
    document_id: np.ndarray
    assessor_id: np.ndarray
    grade: np.ndarray


def judgment_grades(
    session: Session, *, assessor_id: int | None = None, query_ids: Sequence[int] | None = None,
    kind: str | None = None,
) -> ItemGrades:
    """Current grades, of one assessor or of all (then an item appears once per assessor)
    or of every assessor of one `kind` (human, machine), of some queries or all; in no
    particular order."""
    stmt = select(Judgment.query_id, Judgment.document_id, Judgment.grade)
    if assessor_id is not None:
        stmt = stmt.where(Judgment.assessor_id == assessor_id)
    if kind is not None:
        stmt = stmt.where(Judgment.assessor_id.in_(select(Assessor.id).where(Assessor.kind == kind)))
    if query_ids is not None:
        stmt = stmt.where(Judgment.query_id.in_(list(query_ids)))
    return ItemGrades(*int_columns(session.connection(), stmt, 3))


def adjudicated_grades(session: Session, *, query_ids: Sequence[int] | None = None) -> ItemGrades:
    """The lead's final grades, of some queries or all; in no particular order."""
    stmt = select(Adjudication.query_id, Adjudication.document_id, Adjudication.grade)
    if query_ids is not None:
        stmt = stmt.where(Adjudication.query_id.in_(list(query_ids)))
    return ItemGrades(*int_columns(session.connection(), stmt, 3))


def current_judgments(
    session: Session,
    *,
    assessor_ids: Sequence[int] | None = None,
    query_ids: Sequence[int] | None = None,
) -> Judgments:
    """Current judgments with their assessor, of some assessors or all, of some queries or
    all; in no particular order."""
    stmt = select(Judgment.query_id, Judgment.document_id, Judgment.assessor_id, Judgment.grade)
    if assessor_ids is not None:
        stmt = stmt.where(Judgment.assessor_id.in_(list(assessor_ids)))
    if query_ids is not None:
        stmt = stmt.where(Judgment.query_id.in_(list(query_ids)))
    return Judgments(*int_columns(session.connection(), stmt, 4))


def grading_assessors(session: Session) -> list[str]:
    """Names of the assessors with at least one current grade, by name."""
    return list(session.scalars(
        select(Assessor.name).where(_has_grade()).order_by(Assessor.name)
    ))


def assessors_not_only_adjudicating(session: Session) -> AssessorNames:
    """Every assessor except those whose only rows are adjudications, by name."""
    adjudicated = select(Adjudication.query_id).where(
        Adjudication.adjudicator_id == Assessor.id
    ).exists()
    rows = session.execute(
        select(Assessor.id, Assessor.name).where(or_(_has_grade(), ~adjudicated))
        .order_by(Assessor.name)
    ).all()
    return AssessorNames.of_rows(rows)


def _has_grade():
    return select(Judgment.id).where(Judgment.assessor_id == Assessor.id).exists()


__all__ = ["ItemGrades", "Judgments", "adjudicated_grades", "assessors_not_only_adjudicating",
           "current_judgments", "grading_assessors", "judgment_grades"]
