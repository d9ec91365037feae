"""Shared helpers for Pilot tests."""

from __future__ import annotations

from sqlalchemy import select

from workbench.store.models import Assessor, Document, Judgment, JudgmentEvent, Query


async def settle(app, pilot, rounds: int = 4) -> None:
    """Wait for workers and the messages they post (handlers may start new workers)."""
    from textual.worker import WorkerCancelled

    for _ in range(rounds):
        await app.background.wait_idle()
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:  # an exclusive worker replaced by a newer one: normal
            pass
        await pilot.pause()


async def settle_until(app, pilot, ready, timeout: float | None = None) -> None:
    """settle() until ready() holds (a loaded machine can need more than a few rounds);
    returns at the timeout (default tests/waits.py's DEADLINE) either way, for the test's
    own assertion to report."""
    import time

    from tests.waits import DEADLINE

    end = time.monotonic() + (DEADLINE if timeout is None else timeout)
    await settle(app, pilot)
    while not ready() and time.monotonic() < end:
        await pilot.pause(0.05)
        await settle(app, pilot, rounds=1)


def screen_text(app) -> str:
    """Every character currently drawn on the screen."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def judgments(db, assessor: str) -> dict[tuple[str, str], int]:
    with db.read() as s:
        rows = s.execute(
            select(Query.ext_id, Document.ext_id, Judgment.grade)
            .join(Query, Query.id == Judgment.query_id)
            .join(Document, Document.id == Judgment.document_id)
            .join(Assessor, Assessor.id == Judgment.assessor_id)
            .where(Assessor.name == assessor)
        ).all()
    return {(q, d): g for q, d, g in rows}


def events(db, assessor: str) -> list[tuple[str, str, str, int | None, int | None]]:
    with db.read() as s:
        rows = s.execute(
            select(JudgmentEvent.kind, Query.ext_id, Document.ext_id, JudgmentEvent.old_grade,
                   JudgmentEvent.new_grade)
            .join(Query, Query.id == JudgmentEvent.query_id)
            .join(Document, Document.id == JudgmentEvent.document_id)
            .join(Assessor, Assessor.id == JudgmentEvent.assessor_id)
            .where(Assessor.name == assessor)
            .order_by(JudgmentEvent.id)
        ).all()
    return [tuple(r) for r in rows]
