"""Pilot test of an adaptive pool in the judging screen: each grade brings the next
document the method chooses, shown like any other, with no run in sight."""

from __future__ import annotations

from tests.stored_runs import write_results
from tests.tui.helpers import judgments, screen_text, settle, settle_until
from workbench.campaign.pooling.build import make_pool
from workbench.store.models import Document, Query, System
from workbench.tui.app import make_app
from workbench.tui.screens.judge import JudgeScreen

SIZE = (150, 44)
LISTS = [[1, 2, 3, 4], [5, 1, 6, 7], [8, 9, 5, 2]]  # runs SYSRUN_A, _B, _C on q1


def _three_runs(db) -> None:
    with db.write.begin() as s:
        q = Query(ext_id="q1", title="Title of q1")
        docs = {n: Document(ext_id=f"d{n}", title=f"Heading {n}", text=f"Body of document {n}")
                for n in range(1, 10)}
        systems = [System(tag=f"SYSRUN_{x}") for x in "ABC"]
        s.add_all([q, *docs.values(), *systems])
        s.flush()
        write_results(s, [(sys_.id, q.id, docs[n].id, 10.0 - r)
                          for sys_, ranked in zip(systems, LISTS) for r, n in enumerate(ranked)])
    make_pool(db, "mtf", assessors=["alice"])


async def test_each_grade_brings_the_next_move_to_front_document(sqlite_db):
    db = sqlite_db
    _three_runs(db)
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        assert [it.document for it in screen.items] == ["d1"]
        await pilot.press("1")  # d1 relevant: run A keeps the turn and gives d2
        await settle_until(app, pilot, lambda: len(screen.items) == 2)
        assert [it.document for it in screen.items] == ["d1", "d2"]
        assert screen.cursor == 1 and "Heading 2" in screen_text(app)
        await pilot.press("0")  # d2 not relevant: the turn passes to run B, which gives d5
        await settle_until(app, pilot, lambda: len(screen.items) == 3)
        assert screen.items[-1].document == "d5" and screen.cursor == 2
        text = screen_text(app)
        assert "Body of document 5" in text
        assert "SYSRUN" not in text and "mtf" not in text.lower()
    assert judgments(db, "alice") == {("q1", "d1"): 1, ("q1", "d2"): 0}


async def test_a_cant_judge_mark_brings_the_next_document_too(sqlite_db):
    """c settles d1 without a grade: to move-to-front it is not relevant, so run A loses
    the turn and run B gives d5 (its first document not yet in the pool)."""
    db = sqlite_db
    _three_runs(db)
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert [it.document for it in screen.items] == ["d1"]
        await pilot.press("c")
        await settle(app, pilot)
        await pilot.press("enter")  # no reason given
        await settle_until(app, pilot, lambda: len(screen.items) == 2)
        assert [it.document for it in screen.items] == ["d1", "d5"]
        assert screen.items[0].cant_judge and screen.cursor == 1
        assert "Body of document 5" in screen_text(app)
    assert judgments(db, "alice") == {}
