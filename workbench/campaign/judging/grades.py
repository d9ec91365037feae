"""Recording grades: one transaction per grade, every change appended to the history.

This is the only code path that writes judgments: the TUI, `workbench grade` and the
batch mode all call it, so that "on disk before the screen says so" (docs/architecture.md#rules-that-hold-everywhere) holds
everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from workbench.campaign.assessors.roster import get_or_create_assessor
from workbench.campaign.database import Database
from workbench.campaign.writing import write_transaction
from workbench.errors import NotFoundError, UsageError, WriteConflict
from workbench.store.cant_judge import current_mark, delete_mark, insert_mark
from workbench.store.external_ids import (
    document_ext_id,
    document_id,
    query_ext_id,
    query_id,
)
from workbench.store.judgment_writes import (
    append_event,
    current_judgment,
    delete_judgment,
    event_before,
    insert_judgment,
    last_undoable_event,
    update_judgment,
)
from workbench.store.event_kinds import UNDOABLE_ACTIONS, EventKind
from workbench.store.imported_grades import GradeWriter, assessor_marks
from workbench.store.machine import MACHINE, assessor_id_and_kind
from workbench.store.models import utcnow
from workbench.store.queues import pending_note
from workbench.campaign.scale import check_grade, is_unjudged

if TYPE_CHECKING:  # annotations only: sessions come from the store's factories
    from workbench.store.database import Session

# A judging session's check, run first in each of its write transactions: the assessor's
# id, or an error that stops the session (campaign/judging/session.py). Without one, a
# write creates the assessor on first use.
Guard = Callable[["Session"], int]

# Concurrent first grades of the same item race on the unique key (PostgreSQL): retry.
_RETRIES = 5


@dataclass(frozen=True)
class GradeRecord:
    """What a grade call did, once committed."""

    query: str
    document: str
    assessor: str
    old_grade: int | None
    new_grade: int | None
    event_id: int
    kind: EventKind
    at: datetime
    # an undo that removed (False) or restored (True) a can't-judge mark; None: no change
    cant_judge: bool | None = None
    # the event is (or an undo took back) the grade of a hidden repeat showing
    repeat: bool = False


def assessor_for_write(session: Session, name: str, guard: Guard | None) -> int:
    """The assessor's id for a write: the session's guard when there is one (it never
    creates an assessor), else created on first use."""
    return guard(session) if guard is not None else get_or_create_assessor(session, name)


def item_ids(session: Session, query: str, document: str) -> tuple[int, int]:
    """The internal ids of (query, document); NotFoundError names the one that is unknown."""
    qid = query_id(session, query)
    if qid is None:
        raise NotFoundError(f"unknown query {query!r}")
    did = document_id(session, document)
    if did is None:
        raise NotFoundError(f"unknown document {document!r}")
    return qid, did



def unmark(session: Session, qid: int, did: int, aid: int, at: datetime, *,
           reverts: int | None = None) -> bool:
    """Remove the assessor's "can't judge" mark on the item, with its event (`reverts`:
    the mark's event, when an undo removes it); False when there was none."""
    mark = current_mark(session, qid, did, aid)
    if mark is None:
        return False
    delete_mark(session, mark.id)
    append_event(session, qid, did, aid, kind=EventKind.CANT_JUDGE_CLEAR, old_grade=None, new_grade=None,
                 note=mark.reason, reverts_event_id=reverts, at=at)
    return True


def mark_item(session: Session, qid: int, did: int, aid: int, *, reason: str, at: datetime,
              reverts: int | None = None) -> tuple[int, int | None]:
    """Mark the item "can't judge" for the assessor: a grade it holds is cleared (a
    `clear` event: an item holds a grade or a mark), an earlier mark is replaced, and a
    `cant_judge` event is appended (`reverts`: the event an undo takes back). Returns the
    event's id and the grade cleared, if any."""
    graded = current_judgment(session, qid, did, aid)
    cleared = None
    if graded is not None:
        cleared = graded.grade
        apply_grade(session, qid, did, aid, None, note=None, seconds=0.0)
    old = current_mark(session, qid, did, aid)
    if old is not None:
        delete_mark(session, old.id)
    insert_mark(session, qid, did, aid, reason=reason, at=at)
    event_id = append_event(session, qid, did, aid, kind=EventKind.CANT_JUDGE, old_grade=cleared,
                            new_grade=None, note=reason, reverts_event_id=reverts, at=at)
    return event_id, cleared


@dataclass(frozen=True)
class Applied:
    event_id: int
    kind: str
    old_grade: int | None
    at: datetime


def apply_grade(
    session: Session,
    qid: int,
    did: int,
    aid: int,
    grade: int | None,
    *,
    note: str | None,
    seconds: float,
    kind: EventKind | None = None,
    reverts: int | None = None,
) -> Applied:
    """Set (or clear, grade=None) the judgment and append its event, in `session`: a new
    judgment is a `set`, a new grade on it a `change` (time spent adds up; the note is
    kept when `note` is None), no grade a `clear`. A grade removes the assessor's "can't
    judge" mark on the item: an item holds a grade or a mark, never both."""
    now = utcnow()
    if grade is not None:
        unmark(session, qid, did, aid, now)
    row = current_judgment(session, qid, did, aid)
    old = row.grade if row is not None else None
    if grade is None:
        if row is not None:
            delete_judgment(session, row.id)
        kind = kind or EventKind.CLEAR
    elif row is None:
        insert_judgment(
            session, qid, did, aid, grade=grade, note=note or "", seconds=seconds, at=now
        )
        kind = kind or EventKind.SET
    else:
        update_judgment(
            session, row.id, grade=grade, note=note, seconds=row.seconds + seconds, at=now
        )
        kind = kind or EventKind.CHANGE
    event_id = append_event(
        session, qid, did, aid, kind=kind, old_grade=old, new_grade=grade, note=note or "",
        seconds=seconds, reverts_event_id=reverts, at=now,
    )
    return Applied(event_id, kind, old, now)


def apply_grades(
    session: Session, aid: int, rows: list[tuple[int, int, int]], *, seconds: float = 0.0
) -> list[Applied]:
    """The batch form of `apply_grade` for one assessor: each (query id, document id, grade)
    in `rows`, in order, in the caller's one transaction (a group commit: autojudge commits
    the answers that are waiting together, one flush for all of them)."""
    return [apply_grade(session, q, d, aid, g, note=None, seconds=seconds) for q, d, g in rows]


def write_imported_grades(
    session: Session, aid: int, note: str, q: np.ndarray, d: np.ndarray, g: np.ndarray,
    is_new: np.ndarray, is_change: np.ndarray, old_grade: np.ndarray, old_id: np.ndarray,
    *, batch: int, progress: Callable[[int, int], None],
) -> None:
    """The bulk form of `apply_grade`, for a qrels import of one assessor's grades (rows
    query id, document id, grade; `is_new`: no judgment yet, `is_change`: a judgment with
    another grade, whose id and grade are `old_id`, `old_grade`): the same rules, as arrays.

    - a new judgment is a `set`, a new grade a `change`; an equal grade is left alone;
    - a grade removes the assessor's "can't judge" mark on the item (a `cant_judge_clear`
      event first, as `unmark` writes it): an item holds a grade or a mark, never both.
    """
    writer = GradeWriter(session, aid, note)
    marks, reasons = assessor_marks(session, aid)
    if len(marks):
        width = int(max(d.max(initial=0), marks[:, 1].max())) + 1
        graded = ~is_unjudged(g)  # a negative grade (unjudged) is no grade: the mark stays
        hit = np.isin(marks[:, 0] * width + marks[:, 1], q[graded] * width + d[graded])
        writer.remove_marks(marks[hit], [r for r, h in zip(reasons, hit.tolist()) if h],
                            EventKind.CANT_JUDGE_CLEAR)
    n = len(q)
    for start in range(0, n, batch):
        part = slice(start, min(start + batch, n))
        fresh, change = is_new[part], is_change[part]
        kinds = np.where(fresh[fresh | change], EventKind.SET.value, EventKind.CHANGE.value)
        writer.write(q[part], d[part], g[part], fresh, change, old_grade[part], old_id[part],
                     kinds.tolist())
        progress(part.stop, n)


def record_grade(
    db: Database,
    assessor: str,
    query: str,
    document: str,
    grade: int | None,
    *,
    note: str | None = None,
    seconds: float = 0.0,
    guard: Guard | None = None,
) -> GradeRecord:
    """Set `assessor`'s grade for (query, document) by external ids and commit it.

    `grade=None` clears the judgment. The assessor is created on first use. Raises
    NotFoundError for an unknown query or document and InputError for a grade outside
    the campaign scale; nothing is written then.
    """
    attempt = 0
    while True:
        try:
            with write_transaction(db) as session:
                qid, did = item_ids(session, query, document)
                check_grade(session, grade)
                aid = assessor_for_write(session, assessor, guard)
                if note is None and grade is not None and current_judgment(session, qid, did, aid) is None:
                    # a note typed before the first grade (the judging screen's `n`, in a
                    # terminal or a browser) goes on the judgment, whichever way it is graded
                    note = pending_note(session, aid, qid, did)
                done = apply_grade(session, qid, did, aid, grade, note=note, seconds=seconds)
                return GradeRecord(
                    query, document, assessor, done.old_grade, grade,
                    done.event_id, done.kind, done.at,
                )
        except WriteConflict:
            attempt += 1
            if attempt == _RETRIES:
                raise


def undo_last(db: Database, assessor: str, query: str | None = None, *,
              guard: Guard | None = None) -> GradeRecord | None:
    """Revert `assessor`'s most recent grade change or can't-judge mark not yet undone
    (optionally within one query), one step per call; None when there is nothing to undo.
    The undo is itself an event (never undone in turn).

    - a grade (set, change, clear) goes back to the grade before it;
    - a mark goes, and the grade it cleared comes back (one step: the mark was one key);
    - a removed mark (by `c`, or by a grade that was undone before) comes back with its
      reason;
    - the grade (or mark) given at a hidden repeat showing goes: the repeat is to judge
      again, and the judgment (the first showing's) is left alone."""
    with write_transaction(db) as session:
        if guard is not None:
            aid = guard(session)
        else:
            found = assessor_id_and_kind(session, assessor)
            if found is None:
                return None
            if found[1] == MACHINE:  # a machine's labels are not a person's to take back
                get_or_create_assessor(session, assessor)  # raises the one message
            aid = found[0]
        if aid is None:
            return None
        target = last_undoable_event(session, aid, UNDOABLE_ACTIONS, query)
        if target is None:
            return None
        qid, did = target.query_id, target.document_id
        names = query_ext_id(session, qid), document_ext_id(session, did)
        if target.kind == EventKind.CANT_JUDGE:
            return _undo_mark(session, aid, target, names, assessor)
        if target.kind == EventKind.CANT_JUDGE_CLEAR:
            return _undo_unmark(session, aid, target, names, assessor)
        if target.kind == EventKind.REPEAT:
            now = utcnow()
            event_id = append_event(session, qid, did, aid, kind=EventKind.UNDO, old_grade=None,
                                    new_grade=None, reverts_event_id=target.event_id, at=now)
            return GradeRecord(*names, assessor, None, None, event_id, EventKind.UNDO, now,
                               repeat=True)
        done = apply_grade(
            session, qid, did, aid, target.old_grade, note=None, seconds=0.0, kind=EventKind.UNDO,
            reverts=target.event_id,
        )
        return GradeRecord(*names, assessor, done.old_grade, target.old_grade, done.event_id,
                           done.kind, done.at)


def _undo_mark(session: Session, aid: int, target, names, assessor: str) -> GradeRecord:
    """A mark that replaced an earlier one (`c` again with a new reason) gives the earlier
    reason back; a first mark goes, and the grade it cleared (its `clear` event, just
    before it) comes back."""
    qid, did = target.query_id, target.document_id
    now = utcnow()
    before = event_before(session, aid, qid, did, target.event_id)
    if before is not None and before.kind == EventKind.CANT_JUDGE and not before.reverted:
        event_id, _ = mark_item(session, qid, did, aid, reason=before.note, at=now,
                                reverts=target.event_id)
        return GradeRecord(*names, assessor, None, None, event_id, EventKind.UNDO, now, cant_judge=True)
    unmark(session, qid, did, aid, now, reverts=target.event_id)
    grade, event_id, at = None, target.event_id, now
    if target.old_grade is not None and before is not None and before.kind == EventKind.CLEAR:
        done = apply_grade(session, qid, did, aid, target.old_grade, note=None, seconds=0.0,
                           kind=EventKind.UNDO, reverts=before.event_id)
        grade, event_id, at = target.old_grade, done.event_id, done.at
    return GradeRecord(*names, assessor, None, grade, event_id, EventKind.UNDO, at, cant_judge=False)


def _undo_unmark(session: Session, aid: int, target, names, assessor: str) -> GradeRecord:
    """The removed mark comes back with its reason (an item holds a grade or a mark: a
    grade given since is cleared, as marking does)."""
    now = utcnow()
    event_id, cleared = mark_item(session, target.query_id, target.document_id, aid,
                                  reason=target.note, at=now, reverts=target.event_id)
    return GradeRecord(*names, assessor, cleared, None, event_id, EventKind.UNDO, now, cant_judge=True)
