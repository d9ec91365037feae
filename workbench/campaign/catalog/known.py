"""A named assessor's database id, or the one message when there is none.

The message for an unknown name was written out in nine places; this is its one owner
(and the place to say more, such as a near name, for every command at once)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.errors import NotFoundError
from workbench.store.external_ids import assessor_id

if TYPE_CHECKING:
    from workbench.store.database import Session


def unknown_assessor(name: str) -> NotFoundError:
    """The error for a name that no assessor has (for callers that looked it up in bulk)."""
    return NotFoundError(f"unknown assessor {name!r}")


def known_assessor(session: "Session", name: str) -> int:
    """The assessor's id; unknown_assessor(name) raised when there is none."""
    aid = assessor_id(session, name)
    if aid is None:
        raise unknown_assessor(name)
    return aid
