"""The relevance scale's rows, and whether any grade has been given on it yet."""

from __future__ import annotations

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from workbench.store.models import Adjudication, Judgment, JudgmentEvent, ScaleLevel


def read_scale(session: Session) -> list[tuple[int, str, str]]:
    """(grade, label, description), lowest grade first."""
    rows = session.execute(
        select(ScaleLevel.grade, ScaleLevel.label, ScaleLevel.description).order_by(ScaleLevel.grade)
    ).all()
    return [(int(g), label, desc or "") for g, label, desc in rows]


def any_grade_given(session: Session) -> bool:
    """True once a judgment, a judgment event or a final grade exists."""
    return any(
        session.scalar(select(select(model).exists())) for model in (Judgment, JudgmentEvent, Adjudication)
    )


def replace_scale(session: Session, levels: list[tuple[int, str, str]]) -> None:
    session.execute(delete(ScaleLevel))
    session.execute(insert(ScaleLevel), [{"grade": g, "label": label, "description": desc}
                                         for g, label, desc in levels])
