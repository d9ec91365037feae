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
from workbench.store.event_kinds import EventKind
from workbench.store.external_ids import AssessorNames
from workbench.store.models import (
    Adjudication,
    Assessor,
    Assignment,
    CantJudge,
    Judgment,
    JudgmentEvent,
)


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
    """Every assessor (`people_only`: every human) except the leads (lead_only_ids), by name."""
    stmt = select(Assessor.id, Assessor.name).where(~_lead_only())
    if people_only:
        stmt = stmt.where(Assessor.kind == "human")
    rows = session.execute(stmt.order_by(Assessor.name)).all()
    return AssessorNames.of_rows(rows)


def lead_only_ids(session: Session) -> set[int]:
    """The rows that stand for a lead, not an assessor: a name that adjudicated (a final
    grade or an `adjudicate` event) and has no grade, assignment, can't-judge mark or other
    event. Adjudication records the lead's own name in an `assessor` row; this rule keeps
    those rows out of `list assessors`, the pace screen, agreement and the judging checks."""
    return set(session.scalars(select(Assessor.id).where(_lead_only())))


def _lead_only():
    mine = Assessor.id
    adjudicated = or_(
        select(Adjudication.query_id).where(Adjudication.adjudicator_id == mine).exists(),
        select(JudgmentEvent.id).where(JudgmentEvent.assessor_id == mine,
                                       JudgmentEvent.kind == EventKind.ADJUDICATE).exists(),
    )
    other = or_(
        _has_grade(),
        select(Assignment.id).where(Assignment.assessor_id == mine).exists(),
        select(CantJudge.id).where(CantJudge.assessor_id == mine).exists(),
        select(JudgmentEvent.id).where(JudgmentEvent.assessor_id == mine,
                                       JudgmentEvent.kind != EventKind.ADJUDICATE).exists(),
    )
    return adjudicated & ~other


def _has_grade():
    return select(Judgment.id).where(Judgment.assessor_id == Assessor.id).exists()


__all__ = ["ItemGrades", "Judgments", "adjudicated_grades", "assessors_not_only_adjudicating",
           "current_judgments", "grading_assessors", "judgment_grades", "lead_only_ids"]
