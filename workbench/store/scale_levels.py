"""The campaign's relevance scale as stored (`scale_level` rows), lowest grade first, and
its replacement before any grade is given."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from workbench.store.models import Adjudication, Judgment, JudgmentEvent, ScaleLevel

# built once: every grade write reads it
_GRADES = select(ScaleLevel.grade).order_by(ScaleLevel.grade)


@dataclass(frozen=True)
class ScaleLevels:
    """The stored levels, lowest grade first; empty on a fresh database."""

    grades: np.ndarray  # int64
    labels: tuple[str, ...]
    descriptions: tuple[str, ...]  # "" where none was given


def scale_grades(session: Session) -> np.ndarray:
    """The grades on the scale (int64, ascending): checked on every grade write."""
    grades = session.scalars(_GRADES).all()
    return np.array(grades, dtype=np.int64)


def scale_levels(session: Session) -> ScaleLevels:
    rows = session.execute(
        select(ScaleLevel.grade, ScaleLevel.label, ScaleLevel.description).order_by(
            ScaleLevel.grade
        )
    ).all()
    return ScaleLevels(
        np.array([r.grade for r in rows], dtype=np.int64),
        tuple(r.label for r in rows),
        tuple(r.description or "" for r in rows),
    )


def any_grade_given(session: Session) -> bool:
    """True once a judgment, a judgment event or a final grade exists."""
    return any(
        session.scalar(select(select(model).exists())) for model in (Judgment, JudgmentEvent, Adjudication)
    )


def replace_scale(session: Session, levels: list[tuple[int, str, str]]) -> None:
    session.execute(delete(ScaleLevel))
    session.execute(insert(ScaleLevel), [{"grade": g, "label": label, "description": desc}
                                         for g, label, desc in levels])
