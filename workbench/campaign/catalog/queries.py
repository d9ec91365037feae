"""The campaign's queries by external id, with their titles."""

from __future__ import annotations

from workbench.campaign.database import Database
from workbench.store.query_titles import query_titles as stored_titles


def query_titles(db: Database) -> dict[str, str]:
    """External id -> title ("" for none), in import order."""
    with db.read() as s:
        titles = stored_titles(s)
    return dict(zip(titles.ext_id, titles.title))
