"""Assessor lookups."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from workbench.store.models import Assessor


def all_assessor_names(session: Session) -> list[str]:
    """Every assessor's name, sorted."""
    return list(session.scalars(select(Assessor.name).order_by(Assessor.name)))
