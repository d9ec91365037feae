"""Start screen (choose/create an assessor, remembered per database) and the query list."""

from __future__ import annotations

from sqlalchemy import delete

from tests.tui.helpers import screen_text, settle, settle_until
from workbench.campaign.judging.grades import record_grade
from workbench.store.models import Assignment
from workbench.tui.app import make_app
from workbench.tui.screens.assessor_select import AssessorScreen
from workbench.tui.screens.judge import JudgeScreen
from workbench.tui.screens.query_list import QueryListScreen
from workbench.tui.settings import remembered_assessor

SIZE = (150, 44)


async def test_new_assessor_gets_the_whole_pool_and_is_remembered(campaign):
    db, camp = campaign
    with db.write.begin() as s:
        s.execute(delete(Assignment))
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, AssessorScreen)
        app.screen.query_one("#assessor-new").focus()
        await pilot.press(*"zoe", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, AssessorScreen)  # a new person only on purpose
        assert "press Enter again to create" in screen_text(app)
        await pilot.press("enter")
        await settle_until(app, pilot, lambda: isinstance(app.screen, QueryListScreen))
        assert isinstance(app.screen, QueryListScreen)
        pooled = sum(len(camp.queues[q]["alice"]) for q in camp.queries)
        assert f"zoe: 0/{pooled} items judged" in screen_text(app)
        assert [p.pooled for p in app.screen.progress] == [len(camp.queues[q]["alice"]) for q in camp.queries]
    assert remembered_assessor(db.url) == "zoe"


async def test_query_list_shows_progress_and_enter_opens_the_query(campaign):
    db, camp = campaign
    q1 = camp.queues["q1"]["alice"]
    for d in q1[:4]:
        record_grade(db, "alice", "q1", d, 1)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, AssessorScreen)
        await pilot.press("enter")  # alice, the only (and highlighted) assessor
        await settle(app, pilot)
        assert isinstance(app.screen, QueryListScreen)
        text = screen_text(app)
        assert f"4/{len(q1)}" in text and "Title of q2" in text
        await pilot.press("down", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, JudgeScreen) and app.screen.query_ext == "q2"
        await pilot.press("1")
        await settle(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, QueryListScreen)
        assert f"1/{len(camp.queues['q2']['alice'])}" in screen_text(app)


async def test_empty_database_says_what_to_do(sqlite_db):
    app = make_app(sqlite_db, assessor="me")
    async with app.run_test(size=SIZE) as pilot:
        await settle_until(app, pilot, lambda: isinstance(app.screen, QueryListScreen)
                           and "workbench pool --depth" in screen_text(app))
        assert isinstance(app.screen, QueryListScreen)
        assert "workbench pool --depth" in screen_text(app)


async def test_remembered_assessor_is_preselected_and_markup_names_are_safe(campaign):
    db, _ = campaign
    from workbench.tui.settings import remember_assessor

    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.query_one("#assessor-new").focus()
        await pilot.press(*"[/x] [bold]", "enter")
        await settle(app, pilot)
        await pilot.press("enter")  # again: create it
        await settle_until(app, pilot, lambda: isinstance(app.screen, QueryListScreen))
        assert isinstance(app.screen, QueryListScreen)
        assert "[/x] [bold]: 0/" in screen_text(app)
    assert remembered_assessor(db.url) == "[/x] [bold]"
    remember_assessor(db.url, "alice")
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert "[/x] [bold]" in screen_text(app)  # listed literally
        await pilot.press("enter")  # the remembered one is highlighted
        await settle(app, pilot)
        assert isinstance(app.screen, QueryListScreen) and app.screen.assessor == "alice"


async def test_a_mistyped_name_is_refused_with_the_nearest_name(campaign):
    """Issue 37 #12: typing `alicee` gave a new person the whole pool. The roster refuses
    it with the nearest name (as `judge` does); nothing is created or assigned."""
    from sqlalchemy import func, select

    from workbench.store.models import Assessor

    db, _ = campaign
    with db.read() as s:
        before = s.scalar(select(func.count()).select_from(Assessor))
        assigned = s.scalar(select(func.count()).select_from(Assignment))
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.query_one("#assessor-new").focus()
        await pilot.press(*"alicee", "enter")
        await settle_until(app, pilot, lambda: "did you mean" in screen_text(app))
        assert isinstance(app.screen, AssessorScreen)
        hint = str(app.screen.query_one("#assessor-hint").content)
        assert "'alicee' is not an assessor of this campaign (did you mean 'alice'?)" in hint
        assert "press Enter again to create" in hint
        await pilot.press("backspace", "enter")  # the right name opens at once
        await settle_until(app, pilot, lambda: isinstance(app.screen, QueryListScreen))
        assert isinstance(app.screen, QueryListScreen) and app.screen.assessor == "alice"
    with db.read() as s:
        assert s.scalar(select(func.count()).select_from(Assessor)) == before
        assert s.scalar(select(func.count()).select_from(Assignment)) == assigned


async def test_a_typed_name_that_could_not_be_stored_is_refused(campaign):
    """The new-name box checks the name as `grade` and `import qrels` do."""
    from sqlalchemy import func, select

    from workbench.store.models import Assessor

    db, camp = campaign
    with db.read() as s:
        before = s.scalar(select(func.count()).select_from(Assessor))
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        box = app.screen.query_one("#assessor-new")
        box.focus()
        box.value = "x" * 10_000
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, AssessorScreen)
        assert [n.message for n in app._notifications][-1] == (
            f"assessor name {'x' * 40!r}... is longer than 200 characters")
    with db.read() as s:
        assert s.scalar(select(func.count()).select_from(Assessor)) == before
