"""Writing a qrels file's grades as one assessor's judgments: their current grades and
marks as arrays, then new judgments, changed grades, removed marks and one judgment_event
per written row, in bulk (store/bulk.py). Which rows are written and with which event kind
is decided by the judging rules (campaign/judging/grades.py, `write_imported_grades`)."""

from __future__ import annotations

from itertools import repeat

import numpy as np
from sqlalchemy import Table, bindparam, delete, select, update
from sqlalchemy.orm import Session

from workbench.store.bulk import bulk_insert
from workbench.store.models import Assignment, CantJudge, Judgment, JudgmentEvent, utcnow

_JUDGMENT: Table = Judgment.__table__  # type: ignore[assignment]
_EVENT: Table = JudgmentEvent.__table__  # type: ignore[assignment]
_MARK: Table = CantJudge.__table__  # type: ignore[assignment]
_JUDGMENT_COLUMNS = ("query_id", "document_id", "assessor_id", "grade", "note", "seconds",
                     "created_at", "updated_at")
_EVENT_COLUMNS = ("query_id", "document_id", "assessor_id", "kind", "old_grade", "new_grade",
                  "note", "seconds", "reverts_event_id", "created_at")


def assessor_judgments(session: Session, assessor_id: int) -> np.ndarray:
    """The assessor's judgments as rows (query_id, document_id, grade, judgment id), int64."""
    return np.array(session.execute(
        select(_JUDGMENT.c.query_id, _JUDGMENT.c.document_id, _JUDGMENT.c.grade, _JUDGMENT.c.id)
        .where(_JUDGMENT.c.assessor_id == assessor_id)
    ).all(), dtype=np.int64).reshape(-1, 4)


def assessor_assignment(session: Session, assessor_id: int) -> np.ndarray:
    """The (query_id, document_id) pairs of the assessor's queue, int64 (a pair may repeat:
    a hidden repeat)."""
    return np.array(session.execute(
        select(Assignment.query_id, Assignment.document_id)
        .where(Assignment.assessor_id == assessor_id)
    ).all(), dtype=np.int64).reshape(-1, 2)


def assessor_marks(session: Session, assessor_id: int) -> tuple[np.ndarray, list[str]]:
    """The assessor's "can't judge" marks as rows (query_id, document_id, mark id), int64,
    and their reasons in the same order."""
    rows = session.execute(
        select(_MARK.c.query_id, _MARK.c.document_id, _MARK.c.id, _MARK.c.reason)
        .where(_MARK.c.assessor_id == assessor_id).order_by(_MARK.c.id)
    ).all()
    ids = np.array([r[:3] for r in rows], dtype=np.int64).reshape(-1, 3)
    return ids, [r[3] or "" for r in rows]


class GradeWriter:
    """Writes batches of one import's grades for one assessor, all stamped with one time."""

    def __init__(self, session: Session, assessor_id: int, note: str) -> None:
        self.conn = session.connection()
        self.assessor_id, self.note = assessor_id, note
        self.now = utcnow()
        # Rows go to the driver as plain tuples: render the time as the column type would.
        to_db = _JUDGMENT.c.created_at.type.dialect_impl(self.conn.dialect).bind_processor(self.conn.dialect)
        self.stamp = to_db(self.now) if to_db else self.now
        self.change_stmt = (
            update(_JUDGMENT)
            .where(_JUDGMENT.c.id == bindparam("b_id"))
            .values(grade=bindparam("b_grade"), updated_at=self.now)
        )

    def remove_marks(self, marks: np.ndarray, reasons: list[str], kind: str) -> None:
        """Delete marks (rows query_id, document_id, mark id) and append an event `kind`
        for each, its reason as the note."""
        if not len(marks):
            return
        self.conn.execute(delete(_MARK).where(_MARK.c.id.in_(marks[:, 2].tolist())))
        m = len(marks)
        bulk_insert(self.conn, _EVENT, _EVENT_COLUMNS, list(zip(
            marks[:, 0].tolist(), marks[:, 1].tolist(), repeat(self.assessor_id, m), repeat(kind, m),
            repeat(None, m), repeat(None, m), reasons, repeat(0.0, m), repeat(None, m),
            repeat(self.stamp, m),
        )))

    def write(self, q: np.ndarray, d: np.ndarray, g: np.ndarray, fresh: np.ndarray,
              change: np.ndarray, old_grade: np.ndarray, old_id: np.ndarray,
              kinds: list[str]) -> None:
        """Rows (query, document, grade): `fresh` ones become judgments, `change` ones
        overwrite judgment `old_id` (grade `old_grade`); each written row gets its event,
        of the kind given in `kinds` (one per written row, in order)."""
        aid, stamp, note = self.assessor_id, self.stamp, self.note
        k = int(fresh.sum())
        bulk_insert(self.conn, _JUDGMENT, _JUDGMENT_COLUMNS, list(zip(
            q[fresh].tolist(), d[fresh].tolist(), repeat(aid, k), g[fresh].tolist(),
            repeat("", k), repeat(0.0, k), repeat(stamp, k), repeat(stamp, k),
        )))
        if change.any():
            self.conn.execute(self.change_stmt, [
                {"b_id": j, "b_grade": v}
                for j, v in zip(old_id[change].tolist(), g[change].tolist())
            ])
        written = fresh | change
        m = int(written.sum())
        olds = [None if f else o for f, o in zip(fresh[written].tolist(), old_grade[written].tolist())]
        bulk_insert(self.conn, _EVENT, _EVENT_COLUMNS, list(zip(
            q[written].tolist(), d[written].tolist(), repeat(aid, m), kinds, olds,
            g[written].tolist(), repeat(note, m), repeat(0.0, m), repeat(None, m), repeat(stamp, m),
        )))


__all__ = ["GradeWriter", "assessor_judgments", "assessor_marks"]
