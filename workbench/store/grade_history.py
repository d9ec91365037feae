"""Every grade given, in the order it was given: what an assessor's pace and drift are
computed from (campaign/assessor_watch.py). Read from `judgment_event`, the history, not
from `judgment` (which keeps only the current grade and the time summed over changes)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from workbench.store.models import Assessor, JudgmentEvent

GRADE_KINDS = ("set", "change", "repeat")  # the events that give a grade (undo restores one)


@dataclass(frozen=True)
class GradeHistory:
    """Every grade given (set, change and repeat events) in time order, one row each:
    assessor index into `assessors` (names in id order; `assessor_ids` their database ids), query and document ids, grade,
    seconds spent (0: untimed), whether a later undo reverted it, and when (seconds since
    the epoch)."""

    assessors: list[str]
    assessor_ids: np.ndarray
    assessor: np.ndarray
    query_id: np.ndarray
    document_id: np.ndarray
    grade: np.ndarray
    seconds: np.ndarray
    reverted: np.ndarray
    at: np.ndarray


def grade_history(session: Session) -> GradeHistory:
    names = session.execute(select(Assessor.id, Assessor.name).order_by(Assessor.id)).all()
    index = {aid: i for i, (aid, _) in enumerate(names)}
    rows = session.execute(
        select(JudgmentEvent.id, JudgmentEvent.assessor_id, JudgmentEvent.query_id,
               JudgmentEvent.document_id, JudgmentEvent.new_grade, JudgmentEvent.seconds,
               JudgmentEvent.created_at)
        .where(JudgmentEvent.kind.in_(GRADE_KINDS), JudgmentEvent.new_grade.is_not(None))
        .order_by(JudgmentEvent.id)
    ).all()
    undone = np.array(session.scalars(
        select(JudgmentEvent.reverts_event_id).where(JudgmentEvent.reverts_event_id.is_not(None))
    ).all(), dtype=np.int64)

    def ints(c: int) -> np.ndarray:
        return np.array([r[c] for r in rows], dtype=np.int64)

    return GradeHistory(
        [name for _, name in names],
        np.array([aid for aid, _ in names], dtype=np.int64),
        np.array([index[r[1]] for r in rows], dtype=np.int64),
        ints(2), ints(3), ints(4),
        np.array([r[5] or 0.0 for r in rows], dtype=np.float64),
        np.isin(ints(0), undone),
        np.array([r[6].timestamp() for r in rows], dtype=np.float64),
    )
