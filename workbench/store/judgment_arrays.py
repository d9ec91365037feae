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

from typing import TYPE_CHECKING

import numpy as np

from workbench.store.bulk import int_arrays
from workbench.store.dbapi import as_reader, in_list
from workbench.store.kinds import HUMAN

if TYPE_CHECKING:  # the grades are SQL text (store.dbapi); the assessor rules build statements
    from sqlalchemy.orm import Session

    from workbench.store.external_ids import AssessorNames


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


# The ids of human assessors (machine assessors' labels are kept apart: a consensus, an
# agreement report or a disagreement list counts people unless a machine is named).
_PEOPLE = f"assessor_id IN (SELECT id FROM assessor WHERE kind = '{HUMAN}')"
# A negative grade (only `import qrels` writes one: a qrels file's "in the pool, unjudged",
# campaign/scale.py `is_unjudged`) is no grade: readers leave it out unless asked.
GRADED = "grade >= 0"


def _grades(conn, columns: str, table: str, conditions: list[tuple[str, dict]]) -> list[np.ndarray]:
    """The int64 columns of `table`'s rows meeting every (SQL condition, parameters)."""
    where = " AND ".join(sql for sql, _ in conditions)
    params = {k: v for _, p in conditions for k, v in p.items()}
    rows = as_reader(conn).rows(f"SELECT {columns} FROM {table}" + (f" WHERE {where}" if where else ""),
                                params)
    return int_arrays(rows, columns.count(",") + 1)


def _in(column: str, name: str, values: Sequence[int]) -> tuple[str, dict]:
    sql, params = in_list(name, [int(v) for v in values])
    return f"{column} IN {sql}", params


def judgment_grades(
    session, *, assessor_id: int | None = None, query_ids: Sequence[int] | None = None,
    people_only: bool = False, unjudged: bool = False,
) -> ItemGrades:
    """Current grades, of one assessor or of all (then an item appears once per assessor;
    `people_only`: every human assessor), of some queries or all; in no particular order.
    `unjudged`: negative grades too (the qrels sources). `session`: a Session, Connection
    or Reader (store.dbapi)."""
    where = [(_PEOPLE, {})] if people_only else []
    if not unjudged:
        where.append((GRADED, {}))
    if assessor_id is not None:
        where.append(("assessor_id = :assessor", {"assessor": int(assessor_id)}))
    if query_ids is not None:
        where.append(_in("query_id", "q", query_ids))
    return ItemGrades(*_grades(session, "query_id, document_id, grade", "judgment", where))


def adjudicated_grades(session, *, query_ids: Sequence[int] | None = None) -> ItemGrades:
    """The lead's final grades, of some queries or all; in no particular order."""
    where = [] if query_ids is None else [_in("query_id", "q", query_ids)]
    return ItemGrades(*_grades(session, "query_id, document_id, grade", "adjudication", where))


def current_judgments(
    session,
    *,
    assessor_ids: Sequence[int] | None = None,
    query_ids: Sequence[int] | None = None,
    people_only: bool = False,
    unjudged: bool = False,
) -> Judgments:
    """Current judgments with their assessor, of some assessors or all (`people_only`:
    humans only), of some queries or all; in no particular order. `unjudged`: negative
    grades too (never an agreement figure's or a consensus's vote)."""
    where = [(_PEOPLE, {})] if people_only else []
    if not unjudged:
        where.append((GRADED, {}))
    if assessor_ids is not None:
        where.append(_in("assessor_id", "a", assessor_ids))
    if query_ids is not None:
        where.append(_in("query_id", "q", query_ids))
    return Judgments(*_grades(session, "query_id, document_id, assessor_id, grade", "judgment", where))


def _statements():
    """SQLAlchemy and the models, for the assessor rules below (imported on use)."""
    import sqlalchemy
    from workbench.store import models

    return sqlalchemy, models


def grading_assessors(session: Session, *, people_only: bool = False) -> list[str]:
    """Names of the assessors (`people_only`: humans) with at least one current grade, by name."""
    sa, m = _statements()
    select, Assessor = sa.select, m.Assessor
    stmt = select(Assessor.name).where(_has_grade())
    if people_only:
        stmt = stmt.where(Assessor.kind == HUMAN)
    return list(session.scalars(stmt.order_by(Assessor.name)))


def assessors_not_only_adjudicating(session: Session, *, people_only: bool = False) -> AssessorNames:
    """Every assessor (`people_only`: every human) except the leads (lead_only_ids), by name."""
    from workbench.store.external_ids import AssessorNames

    sa, m = _statements()
    select, Assessor = sa.select, m.Assessor
    stmt = select(Assessor.id, Assessor.name).where(~_lead_only())
    if people_only:
        stmt = stmt.where(Assessor.kind == HUMAN)
    rows = session.execute(stmt.order_by(Assessor.name)).all()
    return AssessorNames.of_rows(rows)


def lead_only_ids(session: Session) -> set[int]:
    """The rows that stand for a lead, not an assessor: a name that adjudicated (a final
    grade or an `adjudicate` event) and has no grade, assignment, can't-judge mark or other
    event. Adjudication records the lead's own name in an `assessor` row; this rule keeps
    those rows out of `list assessors`, the pace screen, agreement and the judging checks."""
    sa, m = _statements()
    return set(session.scalars(sa.select(m.Assessor.id).where(_lead_only())))


def _lead_only():
    from workbench.store.event_kinds import EventKind

    sa, m = _statements()
    select, or_ = sa.select, sa.or_
    Adjudication, Assessor, Assignment = m.Adjudication, m.Assessor, m.Assignment
    CantJudge, JudgmentEvent = m.CantJudge, m.JudgmentEvent
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
    sa, m = _statements()
    return sa.select(m.Judgment.id).where(m.Judgment.assessor_id == m.Assessor.id,
                                          m.Judgment.grade >= 0).exists()  # GRADED


__all__ = ["GRADED", "ItemGrades", "Judgments", "adjudicated_grades", "assessors_not_only_adjudicating",
           "current_judgments", "grading_assessors", "judgment_grades", "lead_only_ids"]
