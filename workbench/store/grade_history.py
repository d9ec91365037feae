"""Every grade given, in the order it was given: what an assessor's pace and drift are
computed from (campaign/judging/pace.py). Read from `judgment_event`, the history, not
from `judgment` (which keeps only the current grade and the time summed over changes)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from workbench.store.external_ids import assessors_by_id
from workbench.store.event_kinds import GRADE_KINDS
from workbench.store.models import JudgmentEvent



@dataclass(frozen=True)
class GradeHistory:
    """Every grade given (set, change and repeat events) in time order, one row each:
    assessor index into `assessors` (names in id order; `assessor_ids` their database ids),
    query and document ids, grade, seconds spent (0: untimed), and whether a later undo
    reverted it."""

    assessors: list[str]
    assessor_ids: np.ndarray
    assessor: np.ndarray
    query_id: np.ndarray
    document_id: np.ndarray
    grade: np.ndarray
    seconds: np.ndarray
    reverted: np.ndarray


def grade_history(session: Session) -> GradeHistory:
    assessors = assessors_by_id(session)
    # the driver's plain tuples: numpy reads them several times faster than Row objects
    result = session.connection().execute(
        select(JudgmentEvent.id, JudgmentEvent.assessor_id, JudgmentEvent.query_id,
               JudgmentEvent.document_id, JudgmentEvent.new_grade,
               func.coalesce(JudgmentEvent.seconds, 0.0))
        .where(JudgmentEvent.kind.in_(GRADE_KINDS), JudgmentEvent.new_grade.is_not(None))
        .order_by(JudgmentEvent.id)
    )
    rows = result.cursor.fetchall()
    result.close()
    table = np.array(rows, dtype=np.float64).reshape(-1, 6)
    event_id, assessor_id, query_id, document_id, grade = (table[:, c].astype(np.int64) for c in range(5))
    undone = np.array(session.scalars(
        select(JudgmentEvent.reverts_event_id).where(JudgmentEvent.reverts_event_id.is_not(None))
    ).all(), dtype=np.int64)
    return GradeHistory(
        assessors.names.tolist(), assessors.ids, np.searchsorted(assessors.ids, assessor_id),
        query_id, document_id, grade, table[:, 5].copy(), np.isin(event_id, undone),
    )
