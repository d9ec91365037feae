"""Pilot tests of `l` (later: skip for now) and `c` (can't judge / broken document) on the
judging screen, and of the idle cap on the seconds recorded and on the screen."""

from __future__ import annotations

from sqlalchemy import select

from tests.tui.helpers import events, judgments, screen_text, settle
from tests.tui.factory import build_campaign
from workbench.campaign.judging import assessing
from workbench.campaign.judging.marks import list_cant_judge
from workbench.campaign.settings import set_idle_cap
from workbench.store.models import Judgment
from workbench.tui.app import make_app
from workbench.tui.screens.help import HelpScreen
from workbench.tui.screens.judge import JudgeScreen
from workbench.tui.screens.note import NoteScreen

SIZE = (150, 44)


async def open_judge(app, pilot):
    await settle(app, pilot)
    assert isinstance(app.screen, JudgeScreen)
    return app.screen


async def test_later_moves_the_document_to_the_end_for_this_session(campaign):
    db, camp = campaign
    order = camp.queues["q1"]["alice"]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.press("l")
        await settle(app, pilot)
        assert [it.document for it in screen.items] == order[1:] + order[:1]
        assert screen.cursor == 0 and screen.items[0].document == order[1]
        assert "moved to the end of the queue" in screen_text(app)
        await pilot.press("2")  # grades the next document, not the one put off
        await settle(app, pilot)
        assert judgments(db, "alice") == {("q1", order[1]): 2}
        # the order holds when the query is opened again in this session
        await pilot.press("right_square_bracket")
        await settle(app, pilot)
        await pilot.press("left_square_bracket")
        await settle(app, pilot)
        assert screen.query_ext == "q1"
        assert [it.document for it in screen.items][-1] == order[0]
    # nothing stored but the one grade: a new session has the queue's own order
    assert [e[0] for e in events(db, "alice")] == ["set"]
    assert [it.document for it in assessing.load_queue(db, "alice", "q1").items] == order


async def test_cant_judge_stores_a_mark_and_serves_the_next_document(campaign):
    db, camp = campaign
    order = camp.queues["q1"]["alice"]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.press("c")
        await settle(app, pilot)
        assert isinstance(app.screen, NoteScreen)
        await pilot.press(*"blank page", "enter")
        await settle(app, pilot)
        assert app.screen is screen
        assert screen.cursor == 1 and screen.items[0].cant_judge and screen.items[0].grade is None
        text = screen_text(app)
        assert "marked can't judge" in text and "✗" in text
        assert f"q1 1/{len(order)} judged" in text  # counts as done
        marks = list_cant_judge(db, "alice")
        assert [(m.query, m.document, m.reason) for m in marks] == [("q1", order[0], "blank page")]
        assert judgments(db, "alice") == {}
        # back on it: the screen says so, and c removes the mark (no reason asked)
        await pilot.press("k")
        await settle(app, pilot)
        assert "You marked it: can't judge" in screen_text(app)
        await pilot.press("c")
        await settle(app, pilot)
        assert app.screen is screen and not screen.items[0].cant_judge
        assert list_cant_judge(db) == []
        # Esc at the reason stores nothing
        await pilot.press("c")
        await settle(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        assert list_cant_judge(db) == [] and not screen.items[0].cant_judge
    assert [e[0] for e in events(db, "alice")] == ["cant_judge", "cant_judge_clear"]


async def test_cant_judge_on_a_graded_document_then_undo(campaign):
    db, camp = campaign
    d0 = camp.queues["q1"]["alice"][0]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.press("3", "k", "c")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert screen.items[0].cant_judge and judgments(db, "alice") == {}
        assert "your grade 3 is cleared; u brings it back" in screen_text(app)
        await pilot.press("u")
        await settle(app, pilot)
        assert screen.items[0].grade == 3 and not screen.items[0].cant_judge
    assert judgments(db, "alice") == {("q1", d0): 3} and list_cant_judge(db) == []


async def test_undo_after_a_mark_on_another_document_removes_that_mark_only(campaign):
    db, camp = campaign
    d0, d1 = camp.queues["q1"]["alice"][:2]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.press("2")  # d0 graded, the cursor moves to d1
        await settle(app, pilot)
        await pilot.press("c")
        await settle(app, pilot)
        await pilot.press(*"empty", "enter")
        await settle(app, pilot)
        assert screen.items[1].cant_judge
        await pilot.press("u")
        await settle(app, pilot)
        assert not screen.items[1].cant_judge and screen.items[1].grade is None
        assert screen.items[0].grade == 2
        assert f"undone: {d1} mark removed" in screen_text(app)
    assert judgments(db, "alice") == {("q1", d0): 2} and list_cant_judge(db) == []


async def test_a_marked_repeat_keeps_the_first_grade_and_looks_like_any_mark(sqlite_db):
    db = sqlite_db
    camp = build_campaign(db, n_queries=1, depth=3, repeat_last=True, markup_doc=False)
    order = camp.queues["q1"]["alice"]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        n = len(screen.items)
        assert screen.items[-1].repeat
        await pilot.press(*["1"] * (n - 1))
        await settle(app, pilot)
        assert screen.cursor == n - 1
        await pilot.press("c", "enter")
        await settle(app, pilot)
        assert screen.items[-1].cant_judge and f"q1 {n}/{n} judged" in screen_text(app)
    assert judgments(db, "alice")[("q1", order[0])] == 1
    assert list_cant_judge(db) == []  # a repeat's mark is a repeat event, not a mark row
    assert events(db, "alice")[-1] == ("repeat", "q1", order[0], 1, None)
    queue = assessing.load_queue(db, "alice", "q1")
    assert queue.items[-1].cant_judge and queue.first_unjudged() is None


async def test_help_and_footer_name_the_keys_and_the_idle_cap(campaign):
    db, _ = campaign
    set_idle_cap(db, 90)
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await open_judge(app, pilot)
        text = screen_text(app)
        assert "idle cap 90 s" in text
        assert "Later" in text and "Can't judge" in text  # the footer
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "later: skip for now, to the end of this query's queue" in text
        assert "can't judge / broken document: stored as a mark, not a grade" in text
        assert "seconds per document count up to 90 s (idle cap" in text


async def test_seconds_recorded_are_capped(campaign, monkeypatch):
    """A document left open for an hour counts the cap (60 s here), not the hour."""
    db, camp = campaign
    set_idle_cap(db, 60)
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        screen.shown_at -= 3600  # shown an hour ago
        await pilot.press("2")
        await settle(app, pilot)
        await pilot.press("1")  # shown just now: well under the cap
        await settle(app, pilot)
    with db.read() as s:
        seconds = s.execute(select(Judgment.seconds).order_by(Judgment.id)).scalars().all()
    assert seconds[0] == 60.0 and 0.0 <= seconds[1] < 60.0
