"""Personal links for `workbench serve`: make one, check a token, revoke, list.

A token is 32 random bytes (256 bits) written URL-safe; the database keeps only its sha256,
so a copy of the database opens nothing. Each person has at most one live link: a new link
revokes the one before (a lost link is replaced by asking for a new one).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone

from workbench.campaign.database import Database
from workbench.campaign.assessors.roster import check_assessor, get_or_create_assessor
from workbench.campaign.writing import write_transaction
from workbench.errors import UsageError
from workbench.names import check_name
from workbench.store.access_links import (
    LinkListing,
    add_link,
    link_by_digest,
    list_links,
    revoke_links,
    touch_link,
)

TOKEN_BYTES = 32
ASSESSOR, LEAD = "assessor", "lead"
# token_urlsafe(32) is 43 characters; anything far from that is refused before hashing.
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

__all__ = ["ASSESSOR", "LEAD", "Grant", "LinkListing", "digest", "grant_for", "links",
           "mark_used", "new_link", "revoke", "well_formed"]


@dataclass(frozen=True)
class Grant:
    """What a valid token opens: `role` ('assessor' or 'lead') for `name`. `digest`
    identifies the link again later (the token itself is not kept)."""

    link_id: int
    role: str
    name: str
    digest: str


def _now() -> datetime:
    return datetime.now(timezone.utc)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def well_formed(token: str | None) -> bool:
    return bool(token) and 40 <= len(token) <= 64 and set(token) <= _TOKEN_CHARS


def _who(assessor: str | None, lead: str | None) -> tuple[str, str]:
    if (assessor is None) == (lead is None):
        raise UsageError("give exactly one of --assessor NAME and --lead NAME")
    return (ASSESSOR, check_name(assessor)) if assessor is not None else (LEAD, check_name(lead))


def new_link(db: Database, *, assessor: str | None = None, lead: str | None = None,
             create: bool = False) -> str:
    """A new token for the assessor or the lead; the person's older live link is revoked in
    the same transaction. The token is returned once, never stored. The assessor's name
    goes through the roster's rule (assessors.roster.check_assessor): once a pool exists, a
    name that is not an assessor is refused with the nearest name unless `create`."""
    role, name = _who(assessor, lead)
    if role == ASSESSOR:
        check_assessor(db, name, new=create, create="pass --create")
    token = secrets.token_urlsafe(TOKEN_BYTES)
    at = _now()
    with write_transaction(db) as session:
        assessor_id = get_or_create_assessor(session, name) if role == ASSESSOR else None
        revoke_links(session, role, name, at)
        add_link(session, role, name, assessor_id, digest(token), at)
    return token


def grant_for(db: Database, token_digest: str) -> Grant | None:
    """The grant of a link by its token's sha256; None when unknown or revoked (a removed
    assessor's links are gone with the assessor)."""
    with db.read() as session:
        row = link_by_digest(session, token_digest)
    if row is None or row.revoked:
        return None
    return Grant(row.id, row.role, row.name, token_digest)


def mark_used(db: Database, grant: Grant) -> None:
    with write_transaction(db) as session:
        touch_link(session, grant.link_id, _now())


def revoke(db: Database, *, assessor: str | None = None, lead: str | None = None) -> int:
    """Revoke the person's live link (the number revoked: 0 or 1). Open sessions of it end
    at their next request or message: the server checks the link again each time."""
    role, name = _who(assessor, lead)
    with write_transaction(db) as session:
        return revoke_links(session, role, name, _now())


def links(db: Database) -> list[LinkListing]:
    """Every link, live or revoked: who, created, last used, revoked. Never a token."""
    with db.read() as session:
        return list_links(session)
