"""The SQL of `access_link` (the links of `workbench serve`): add, find by token hash, mark
used, revoke, list. The rules (token size, hashing, one live link per person, what a revoked
link opens) are campaign/access/links.py's."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session

from workbench.store.models import AccessLink

_T = AccessLink.__table__
_BY_HASH = select(_T.c.id, _T.c.role, _T.c.name, _T.c.revoked_at).where(
    _T.c.token_sha256 == bindparam("digest"))
_TOUCH = update(_T).where(_T.c.id == bindparam("link_id")).values(last_used_at=bindparam("at"))


@dataclass(frozen=True)
class LinkRow:
    id: int
    role: str
    name: str
    revoked: bool


@dataclass(frozen=True)
class LinkListing:
    role: str
    name: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


def add_link(session: Session, role: str, name: str, assessor_id: int | None, digest: str,
             at: datetime) -> None:
    session.execute(insert(_T).values(role=role, name=name, assessor_id=assessor_id,
                                      token_sha256=digest, created_at=at))


def revoke_links(session: Session, role: str, name: str, at: datetime) -> int:
    """Revoke every live link of (role, name); the number revoked."""
    result = session.execute(
        update(_T).where(_T.c.role == role, _T.c.name == name, _T.c.revoked_at.is_(None))
        .values(revoked_at=at))
    return result.rowcount or 0


def link_by_digest(session: Session, digest: str) -> LinkRow | None:
    row = session.execute(_BY_HASH, {"digest": digest}).first()
    return None if row is None else LinkRow(row.id, row.role, row.name, row.revoked_at is not None)


def touch_link(session: Session, link_id: int, at: datetime) -> None:
    session.execute(_TOUCH, {"link_id": link_id, "at": at})


def list_links(session: Session) -> list[LinkListing]:
    rows = session.execute(select(_T.c.role, _T.c.name, _T.c.created_at, _T.c.last_used_at,
                                  _T.c.revoked_at).order_by(_T.c.role, _T.c.name, _T.c.id))
    return [LinkListing(*row) for row in rows]
