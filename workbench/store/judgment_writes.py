"""The SQL of a grade: an assessor's current judgment row and the append-only history.

One statement per function, so that a grade costs what it did through the ORM (read the
row FOR UPDATE, write it, append the event) without loading ORM objects; the statements are
built once (building them per call cost more than running them). The rules (which kind of
event, what an undo reverts) stay in campaign/judging/grades.py. An insert that races
with another transaction's (PostgreSQL: the unique key on (query, document, assessor), or a
query removed meanwhile) raises WriteConflict, and the caller retries its transaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, delete, exists, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from workbench.errors import WriteConflict, one_line
from workbench.store.models import Judgment, JudgmentEvent, Query

_CURRENT = (
    select(Judgment.id, Judgment.grade, Judgment.note, Judgment.seconds)
    .where(
        Judgment.query_id == bindparam("query_id"),
        Judgment.document_id == bindparam("document_id"),
        Judgment.assessor_id == bindparam("assessor_id"),
    )
    .with_for_update()
)
_JUDGMENT = Judgment.__table__
_INSERT_JUDGMENT = insert(_JUDGMENT)
_INSERT_EVENT = insert(JudgmentEvent.__table__)
# SET takes the columns named in the parameters (a change keeps the note when none is given)
_UPDATE_JUDGMENT = update(_JUDGMENT).where(_JUDGMENT.c.id == bindparam("judgment_id"))
_DELETE_JUDGMENT = delete(_JUDGMENT).where(_JUDGMENT.c.id == bindparam("judgment_id"))


@dataclass(frozen=True)
class CurrentJudgment:
    id: int
    grade: int
    note: str
    seconds: float


@dataclass(frozen=True)
class UndoTarget:
    """The event an undo reverts: its item, the grade the item had before it, its kind
    and its note (a can't-judge mark's reason)."""

    event_id: int
    query_id: int
    document_id: int
    old_grade: int | None
    kind: str = ""
    note: str = ""


@contextmanager
def conflicts_raised_as_ours() -> Iterator[None]:
    try:
        yield
    except IntegrityError as exc:
        raise WriteConflict(f"database error: {one_line(exc)}") from exc


def current_judgment(
    session: Session, query_id: int, document_id: int, assessor_id: int
) -> CurrentJudgment | None:
    """The assessor's judgment of the item, locked until the transaction ends (PostgreSQL:
    FOR UPDATE; SQLite's write transaction already excludes other writers)."""
    row = session.execute(
        _CURRENT,
        {"query_id": query_id, "document_id": document_id, "assessor_id": assessor_id},
    ).first()
    if row is None:
        return None
    return CurrentJudgment(row.id, row.grade, row.note or "", row.seconds or 0.0)


def insert_judgment(
    session: Session,
    query_id: int,
    document_id: int,
    assessor_id: int,
    *,
    grade: int,
    note: str,
    seconds: float,
    at: datetime,
) -> None:
    with conflicts_raised_as_ours():
        session.execute(
            _INSERT_JUDGMENT,
            dict(
                query_id=query_id, document_id=document_id, assessor_id=assessor_id,
                grade=grade, note=note, seconds=seconds, created_at=at, updated_at=at,
            ),
        )


def update_judgment(
    session: Session,
    judgment_id: int,
    *,
    grade: int,
    note: str | None,
    seconds: float,
    at: datetime,
) -> None:
    """A new grade and time spent; the note is left as it is when `note` is None."""
    values = dict(judgment_id=judgment_id, grade=grade, seconds=seconds, updated_at=at)
    if note is not None:
        values["note"] = note
    session.execute(_UPDATE_JUDGMENT, values)


def set_judgment_note(session: Session, judgment_id: int, note: str, at: datetime) -> None:
    session.execute(_UPDATE_JUDGMENT, dict(judgment_id=judgment_id, note=note, updated_at=at))


def delete_judgment(session: Session, judgment_id: int) -> None:
    session.execute(_DELETE_JUDGMENT, {"judgment_id": judgment_id})


def append_event(
    session: Session,
    query_id: int,
    document_id: int,
    assessor_id: int,
    *,
    kind: str,
    old_grade: int | None,
    new_grade: int | None,
    at: datetime,
    note: str = "",
    seconds: float = 0.0,
    reverts_event_id: int | None = None,
) -> int:
    """Append one `judgment_event`; returns its id."""
    with conflicts_raised_as_ours():
        result = session.execute(
            _INSERT_EVENT,
            dict(
                query_id=query_id, document_id=document_id, assessor_id=assessor_id,
                kind=kind, old_grade=old_grade, new_grade=new_grade, note=note,
                seconds=seconds, reverts_event_id=reverts_event_id, created_at=at,
            ),
        )
    return result.inserted_primary_key[0]


def last_undoable_event(
    session: Session, assessor_id: int, kinds: tuple[str, ...], query: str | None = None
) -> UndoTarget | None:
    """The assessor's most recent event of one of `kinds` that no later event reverts and
    that is not itself an undo's (no reverts_event_id), optionally within the query with
    external id `query`."""
    undone = select(JudgmentEvent.reverts_event_id).where(
        JudgmentEvent.assessor_id == assessor_id, JudgmentEvent.reverts_event_id.is_not(None)
    )
    stmt = (
        select(
            JudgmentEvent.id, JudgmentEvent.query_id, JudgmentEvent.document_id,
            JudgmentEvent.old_grade, JudgmentEvent.kind, JudgmentEvent.note,
        )
        .where(
            JudgmentEvent.assessor_id == assessor_id,
            JudgmentEvent.kind.in_(kinds),
            JudgmentEvent.id.not_in(undone),
            JudgmentEvent.reverts_event_id.is_(None),
        )
        .order_by(JudgmentEvent.id.desc())
        .limit(1)
    )
    if query is not None:
        stmt = stmt.where(
            exists().where(Query.id == JudgmentEvent.query_id, Query.ext_id == query)
        )
    row = session.execute(stmt).first()
    return None if row is None else UndoTarget(*row[:5], row[5] or "")


@dataclass(frozen=True)
class EarlierEvent:
    """The event on an item just before another: id, kind, note, and whether an undo
    reverted it."""

    event_id: int
    kind: str
    note: str
    reverted: bool


def event_before(session: Session, assessor_id: int, query_id: int, document_id: int,
                 before_id: int) -> EarlierEvent | None:
    """The assessor's latest event on the item before event `before_id`."""
    row = session.execute(
        select(JudgmentEvent.id, JudgmentEvent.kind, JudgmentEvent.note).where(
            JudgmentEvent.assessor_id == assessor_id, JudgmentEvent.query_id == query_id,
            JudgmentEvent.document_id == document_id, JudgmentEvent.id < before_id,
        ).order_by(JudgmentEvent.id.desc()).limit(1)
    ).first()
    if row is None:
        return None
    reverted = session.scalar(select(
        select(JudgmentEvent.id).where(JudgmentEvent.reverts_event_id == row[0]).exists()))
    return EarlierEvent(row[0], row[1], row[2] or "", bool(reverted))
