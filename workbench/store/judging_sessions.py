"""The SQL of judging-session leases (table `judging_session`, one row per assessor): who
holds an assessor's judging now. The rules (take over, stop when taken over or removed) are
campaign/judging/session.py's."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.orm import Session

from workbench.store.locking import insert_ignoring_duplicates
from workbench.store.models import JudgingLease

_T = JudgingLease.__table__
_HOLDER = select(_T.c.token, _T.c.holder, _T.c.started_at).where(
    _T.c.assessor_id == bindparam("aid")).with_for_update()


@dataclass(frozen=True)
class Lease:
    token: str
    holder: str
    started_at: datetime


def lease_of(session: Session, assessor_id: int) -> Lease | None:
    """The assessor's lease, locked until the transaction ends (PostgreSQL): a takeover
    waits for a write that checked it."""
    row = session.execute(_HOLDER, {"aid": assessor_id}).first()
    return None if row is None else Lease(row.token, row.holder or "", row.started_at)


def take_lease(session: Session, assessor_id: int, token: str, holder: str,
               at: datetime) -> Lease | None:
    """Make `token` the assessor's lease; returns the lease it replaced (None: none).

    Two first sessions at once (PostgreSQL): both find no row, and the second insert waits
    for the first one's, then does nothing; the second reads that row back and takes it
    over, as a later session would."""
    before = lease_of(session, assessor_id)
    if before is None:
        added = session.execute(insert_ignoring_duplicates(session.connection(), _T).values(
            assessor_id=assessor_id, token=token, holder=holder, started_at=at))
        if added.rowcount == 1:
            return None
        before = lease_of(session, assessor_id)
    session.execute(update(_T).where(_T.c.assessor_id == assessor_id)
                    .values(token=token, holder=holder, started_at=at))
    return before


def drop_lease(session: Session, assessor_id: int, token: str) -> None:
    """Remove the lease if `token` still holds it (a newer session's lease stays)."""
    session.execute(delete(_T).where(_T.c.assessor_id == assessor_id, _T.c.token == token))
