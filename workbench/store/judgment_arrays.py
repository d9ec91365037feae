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


def _people():
    """The ids of human assessors (machine assessors' labels are kept apart: a consensus,
    an agreement report or a disagreement list counts people unless a machine is named)."""
    return select(Assessor.id).where(Assessor.kind == "human")


def judgment_grades(
    session: Session, *, assessor_id: int | None = None, query_ids: Sequence[int] | None = None,
    people_only: bool = False,
) -> ItemGrades:
    """Current grades, of one assessor or of all (then an item appears once per assessor;
    `people_only`: every human assessor), of some queries or all; in no particular order."""
    stmt = select(Judgment.query_id, Judgment.document_id, Judgment.grade)
    if people_only:
        stmt = stmt.where(Judgment.assessor_id.in_(_people()))
    if assessor_id is not None:
        stmt = stmt.where(Judgment.assessor_id == assessor_id)
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
    people_only: bool = False,
) -> Judgments:
    """Current judgments with their assessor, of some assessors or all (`people_only`:
    humans only), of some queries or all; in no particular order."""
    stmt = select(Judgment.query_id, Judgment.document_id, Judgment.assessor_id, Judgment.grade)
    if people_only:
        stmt = stmt.where(Judgment.assessor_id.in_(_people()))
    if assessor_ids is not None:
        stmt = stmt.where(Judgment.assessor_id.in_(list(assessor_ids)))
    if query_ids is not None:
        stmt = stmt.where(Judgment.query_id.in_(list(query_ids)))
    return Judgments(*int_columns(session.connection(), stmt, 4))


def grading_assessors(session: Session, *, people_only: bool = False) -> list[str]:
    """Names of the assessors (`people_only`: humans) with at least one current grade, by name."""
    stmt = select(Assessor.name).where(_has_grade())
    if people_only:
        stmt = stmt.where(Assessor.kind == "human")
    return list(session.scalars(stmt.order_by(Assessor.name)))


def assessors_not_only_adjudicating(session: Session, *, people_only: bool = False) -> AssessorNames:
    """Every assessor (`people_only`: every human) except those whose only rows are
    adjudications, by name."""
    adjudicated = select(Adjudication.query_id).where(
        Adjudication.adjudicator_id == Assessor.id
    ).exists()
    stmt = select(Assessor.id, Assessor.name).where(or_(_has_grade(), ~adjudicated))
    if people_only:
        stmt = stmt.where(Assessor.kind == "human")
    rows = session.execute(stmt.order_by(Assessor.name)).all()
    return AssessorNames.of_rows(rows)


def _has_grade():
    return select(Judgment.id).where(Judgment.assessor_id == Assessor.id).exists()


__all__ = ["ItemGrades", "Judgments", "adjudicated_grades", "assessors_not_only_adjudicating",
           "current_judgments", "grading_assessors", "judgment_grades"]
