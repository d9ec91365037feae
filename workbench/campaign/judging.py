"""Recording grades: one transaction per grade, every change appended to the history.

This is the only code path that writes judgments: the TUI, `workbench grade` and the
batch mode all call it, so that "on disk before the screen says so" (DESIGN §5) holds
everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, exists, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from workbench.campaign.database import Database
from workbench.campaign.writing import write_transaction
from workbench.errors import InputError, NotFoundError
from workbench.names import check_name
from workbench.store.locking import insert_ignoring_duplicates
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
    # Two processes may create the same new assessor at once (PostgreSQL): the second
    # insert then does nothing, and both read the one row back.
    session.execute(insert_ignoring_duplicates(session.connection(), Assessor.__table__)
                    .values(name=check_name(name)))
    return session.scalar(select(Assessor.id).where(Assessor.name == name))


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
    attempt = 0
    while True:
        try:
            with write_transaction(db) as session:
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


def undo_last(db: Database, assessor: str, query: str | None = None) -> GradeRecord | None:
    """Revert `assessor`'s most recent grade change not yet undone (optionally within one
    query); None when there is nothing to undo. The undo is itself an event."""
    with write_transaction(db) as session:
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
