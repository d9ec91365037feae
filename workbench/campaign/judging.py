"""Recording grades: one transaction per grade, every change appended to the history.

This is the only code path that writes judgments: the TUI, `workbench grade` and the
batch mode all call it, so that "on disk before the screen says so" (DESIGN §5) holds
everywhere.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, exists, select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from workbench.campaign.database import Database
from workbench.errors import InputError, NotFoundError
from workbench.names import check_name
from workbench.store.models import (
    Assessor,
    Document,
    Judgment,
    JudgmentEvent,
    Query,
    ScaleLevel,
    utcnow,
)

# Concurrent first grades of the same item race on the unique key (PostgreSQL): retry.
_RETRIES = 5
# SQLite: an all-or-nothing import holds the write lock longer than the busy timeout (a
# 3 M-line run: ~25 s); a grade keeps waiting this long instead of failing "locked".
LOCK_WAIT_S = 120.0
# Events that change a grade and so can be undone.
UNDOABLE = ("set", "change", "clear")


@dataclass(frozen=True)
class GradeRecord:
    """What a grade call did, once committed."""

    query: str
    document: str
    assessor: str
    old_grade: int | None
    new_grade: int | None
    event_id: int
    kind: str
    at: datetime


def get_or_create_assessor(session: Session, name: str) -> int:
    """The assessor's id; a new assessor row when the name is new. Every path that creates
    an assessor comes here: a new name is checked (workbench.names) before it is written
    (a name stored before the check existed still finds its row)."""
    name = name.strip()
    found = session.scalar(select(Assessor.id).where(Assessor.name == name)) if name else None
    if found is not None:
        return found
    assessor = Assessor(name=check_name(name))
    session.add(assessor)
    session.flush()
    return assessor.id


def scale_grades(session: Session) -> list[int]:
    return list(session.scalars(select(ScaleLevel.grade).order_by(ScaleLevel.grade)))


def _ids(session: Session, query: str, document: str) -> tuple[int, int]:
    qid = session.scalar(select(Query.id).where(Query.ext_id == query))
    if qid is None:
        raise NotFoundError(f"unknown query {query!r}")
    did = session.scalar(select(Document.id).where(Document.ext_id == document))
    if did is None:
        raise NotFoundError(f"unknown document {document!r}")
    return qid, did


def _check_grade(session: Session, grade: int | None) -> None:
    if grade is None:
        return
    allowed = scale_grades(session)
    if grade not in allowed:
        raise InputError(
            "grade", None, f"grade {grade} is not on the campaign scale {allowed}"
        )


def _current(session: Session, qid: int, did: int, aid: int) -> Judgment | None:
    return session.scalars(
        select(Judgment)
        .where(
            Judgment.query_id == qid,
            Judgment.document_id == did,
            Judgment.assessor_id == aid,
        )
        .with_for_update()
    ).first()


def _apply(
    session: Session,
    qid: int,
    did: int,
    aid: int,
    grade: int | None,
    *,
    note: str | None,
    seconds: float,
    kind: str | None = None,
    reverts: int | None = None,
) -> JudgmentEvent:
    """Set (or clear, grade=None) the judgment and append its event, in `session`."""
    now = utcnow()
    row = _current(session, qid, did, aid)
    old = row.grade if row is not None else None
    if grade is None:
        if row is not None:
            session.execute(delete(Judgment).where(Judgment.id == row.id))
        kind = kind or "clear"
    elif row is None:
        session.add(
            Judgment(
                query_id=qid,
                document_id=did,
                assessor_id=aid,
                grade=grade,
                note=note or "",
                seconds=seconds,
                created_at=now,
                updated_at=now,
            )
        )
        kind = kind or "set"
    else:
        row.grade = grade
        if note is not None:
            row.note = note
        row.seconds = (row.seconds or 0.0) + seconds
        row.updated_at = now
        kind = kind or "change"
    event = JudgmentEvent(
        query_id=qid,
        document_id=did,
        assessor_id=aid,
        kind=kind,
        old_grade=old,
        new_grade=grade,
        note=note or "",
        seconds=seconds,
        reverts_event_id=reverts,
        created_at=now,
    )
    session.add(event)
    session.flush()
    return event


def record_grade(
    db: Database,
    assessor: str,
    query: str,
    document: str,
    grade: int | None,
    *,
    note: str | None = None,
    seconds: float = 0.0,
) -> GradeRecord:
    """Set `assessor`'s grade for (query, document) by external ids and commit it.

    `grade=None` clears the judgment. The assessor is created on first use. Raises
    NotFoundError for an unknown query or document and InputError for a grade outside
    the campaign scale; nothing is written then.
    """
    deadline = time.monotonic() + LOCK_WAIT_S
    attempt = 0
    while True:
        try:
            with db.write.begin() as session:
                qid, did = _ids(session, query, document)
                _check_grade(session, grade)
                aid = get_or_create_assessor(session, assessor)
                event = _apply(session, qid, did, aid, grade, note=note, seconds=seconds)
                return GradeRecord(
                    query, document, assessor, event.old_grade, event.new_grade,
                    event.id, event.kind, event.created_at,
                )
        except IntegrityError:
            attempt += 1
            if attempt == _RETRIES:
                raise
        except OperationalError as exc:
            # "locked" comes from BEGIN IMMEDIATE, before anything was written: retry
            if "database is locked" not in str(exc) or time.monotonic() > deadline:
                raise


def waits_for_write_lock(write):
    """Decorator for a write made of ONE transaction: retry it while SQLite reports
    "database is locked" (another process, e.g. a big import, holds the write lock longer
    than the busy timeout), up to LOCK_WAIT_S. The error comes from BEGIN IMMEDIATE,
    before anything was written, so a retry cannot write twice."""

    @functools.wraps(write)
    def retrying(*args, **kwargs):
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                return write(*args, **kwargs)
            except OperationalError as exc:
                if "database is locked" not in str(exc) or time.monotonic() > deadline:
                    raise

    return retrying


@waits_for_write_lock
def undo_last(db: Database, assessor: str, query: str | None = None) -> GradeRecord | None:
    """Revert `assessor`'s most recent grade change not yet undone (optionally within one
    query); None when there is nothing to undo. The undo is itself an event."""
    with db.write.begin() as session:
        aid = session.scalar(select(Assessor.id).where(Assessor.name == assessor))
        if aid is None:
            return None
        undone = select(JudgmentEvent.reverts_event_id).where(
            JudgmentEvent.assessor_id == aid, JudgmentEvent.reverts_event_id.is_not(None)
        )
        stmt = (
            select(JudgmentEvent)
            .where(
                JudgmentEvent.assessor_id == aid,
                JudgmentEvent.kind.in_(UNDOABLE),
                JudgmentEvent.id.not_in(undone),
            )
            .order_by(JudgmentEvent.id.desc())
            .limit(1)
        )
        if query is not None:
            stmt = stmt.where(
                exists().where(Query.id == JudgmentEvent.query_id, Query.ext_id == query)
            )
        target = session.scalars(stmt).first()
        if target is None:
            return None
        event = _apply(
            session,
            target.query_id,
            target.document_id,
            aid,
            target.old_grade,
            note=None,
            seconds=0.0,
            kind="undo",
            reverts=target.id,
        )
        q = session.get(Query, target.query_id)
        d = session.get(Document, target.document_id)
        return GradeRecord(
            q.ext_id, d.ext_id, assessor, event.old_grade, event.new_grade,
            event.id, event.kind, event.created_at,
        )
