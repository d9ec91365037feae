"""Pilot tests of the judging screen: keys write grades, undo, resume, notes, failures."""

from __future__ import annotations

from sqlalchemy import select

from tests.tui.helpers import events, judgments, screen_text, settle
from workbench.campaign.judging import assessing
from workbench.campaign.judging.grades import record_grade
from workbench.errors import DatabaseError
from workbench.store.models import Judgment
from workbench.tui.app import make_app
from workbench.tui.screens.judge import JudgeScreen

SIZE = (150, 44)


async def open_judge(app, pilot):
    await settle(app, pilot)
    assert isinstance(app.screen, JudgeScreen)
    return app.screen


async def test_five_grades_by_keys_write_five_judgments_and_events(campaign_any):
    db, camp = campaign_any
    order = camp.queues["q1"]["alice"]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        assert screen.query_ext == "q1" and screen.cursor == 0
        # typed ahead without waiting: the screen queues keys while a save is in flight
        await pilot.press("2", "3", "0", "1", "2")
        await settle(app, pilot)
        assert screen.cursor == 5
        assert [it.grade for it in screen.items[:6]] == [2, 3, 0, 1, 2, None]
    expected = dict(zip([("q1", d) for d in order[:5]], [2, 3, 0, 1, 2]))
    assert judgments(db, "alice") == expected
    assert events(db, "alice") == [("set", "q1", d, None, g) for (_, d), g in expected.items()]
    with db.read() as s:
        assert all(sec >= 0 for sec in s.scalars(select(Judgment.seconds)))


async def test_undo_restores_the_previous_grade(campaign_any):
    db, camp = campaign_any
    d0 = camp.queues["q1"]["alice"][0]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        await pilot.press("k", "3")  # back to the first document, change 2 -> 3
        await settle(app, pilot)
        assert judgments(db, "alice") == {("q1", d0): 3}
        await pilot.press("u")
        await settle(app, pilot)
        assert judgments(db, "alice") == {("q1", d0): 2}
        assert screen.items[0].grade == 2 and screen.cursor == 0
        await pilot.press("u")
        await settle(app, pilot)
        assert judgments(db, "alice") == {}
        assert screen.items[0].grade is None
    assert [e[0] for e in events(db, "alice")] == ["set", "change", "undo", "undo"]


async def test_resume_lands_on_the_first_unjudged(campaign):
    db, camp = campaign
    q1 = camp.queues["q1"]["alice"]
    for d in q1:  # q1 done
        record_grade(db, "alice", "q1", d, 1)
    q2 = camp.queues["q2"]["alice"]
    for d in (q2[0], q2[1], q2[3]):
        record_grade(db, "alice", "q2", d, 0)
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        assert screen.query_ext == "q2"
        assert screen.cursor == 2
        assert screen.items[screen.cursor].document == q2[2]
        await pilot.press("3")  # the next unjudged skips the judged q2[3]
        await settle(app, pilot)
        assert screen.cursor == 4


async def test_failed_save_shows_an_error_and_keeps_the_cursor(campaign, monkeypatch):
    db, _ = campaign

    def broken(*args, **kwargs):
        raise DatabaseError("disk I/O error")

    monkeypatch.setattr(assessing, "record_grade", broken)
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        assert screen.cursor == 0
        assert screen.items[0].grade is None
        text = screen_text(app)
        assert "NOT SAVED: disk I/O error" in text
        assert "✓" not in text
    assert judgments(db, "alice") == {}


async def test_grade_off_the_scale_is_refused(campaign):
    db, _ = campaign
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.press("7")
        await settle(app, pilot)
        assert screen.cursor == 0
    assert judgments(db, "alice") == {}


async def test_markup_in_document_text_is_shown_literally(campaign):
    db, camp = campaign
    order = camp.queues["q1"]["alice"]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await open_judge(app, pilot)
        await pilot.press(*["j"] * order.index("d001"))
        await settle(app, pilot)
        text = screen_text(app)
        assert "[bold]not bold[/bold] and [/x] and [link=http://x]click[/link] end." in text


async def test_note_is_saved_as_an_event(campaign):
    db, camp = campaign
    d0 = camp.queues["q1"]["alice"][0]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await open_judge(app, pilot)
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"odd [/x] one", "enter")
        await settle(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
    evs = events(db, "alice")
    assert evs == [("note", "q1", d0, None, None), ("set", "q1", d0, None, 2)]
    with db.read() as s:
        assert s.scalar(select(Judgment.note)) == "odd [/x] one"


async def test_next_and_previous_query_keys(campaign):
    db, camp = campaign
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.press("right_square_bracket")
        await settle(app, pilot)
        assert screen.query_ext == "q2"
        assert "Title of q2" in screen_text(app)
        await pilot.press("left_square_bracket")
        await settle(app, pilot)
        assert screen.query_ext == "q1"


async def test_help_and_palette_list_the_actions(campaign):
    db, _ = campaign
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        titles = [c[0] for c in screen.palette_commands()]
        assert "Undo last grade" in titles and "Grade 3: Highly relevant" in titles
        assert {"Add a note", "Next query"} <= set(titles)
        assert "Toggle live scores" not in titles  # a blind campaign (the default)
        await pilot.press("question_mark")
        await pilot.pause()
        text = screen_text(app)
        assert "Undo" in text and "3 Highly relevant" in text
        assert "Scores" not in text


async def test_seconds_spent_on_the_document_are_recorded(campaign, monkeypatch):
    """Seconds count from the moment a document is shown: 1.5 s on the first, none on the
    second. The screen's clock is a fake that moves only when the test says (a sleep on the
    real one cost 1.5 s and failed on a machine loaded enough that showing the second
    document and pressing its key took more than 1.45 s)."""
    import time
    import types

    from workbench.tui.screens import judge

    clock = [1000.0]
    monkeypatch.setattr(judge, "time", types.SimpleNamespace(
        monotonic=lambda: clock[0], perf_counter=time.perf_counter))
    db, _ = campaign
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await open_judge(app, pilot)
        clock[0] += 1.5
        await pilot.press("1")
        await settle(app, pilot)
        await pilot.press("2")  # shown, then graded at once on the screen's clock
        await settle(app, pilot)
    with db.read() as s:
        seconds = sorted(s.scalars(select(Judgment.seconds)))
    assert seconds[1] >= 1.45 and seconds[0] < 1.45
    assert seconds == [0.0, 1.5]


async def test_repeat_item_is_graded_as_a_repeat_event(sqlite_db):
    from tests.tui.factory import build_campaign

    camp = build_campaign(sqlite_db, n_queries=1, repeat_last=True)
    order = camp.queues["q1"]["alice"]
    app = make_app(sqlite_db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        assert len(screen.items) == len(order) + 1
        await pilot.press(*["2"] * len(order))
        await settle(app, pilot)
        assert screen.cursor == len(order) and screen.items[-1].grade is None
        await pilot.press("0")  # the hidden repeat of order[0], graded differently
        await settle(app, pilot)
        assert screen.items[-1].grade == 0 and screen.items[0].grade == 2
        assert "NOT SAVED" not in screen_text(app)
    assert judgments(sqlite_db, "alice")[("q1", order[0])] == 2
    assert events(sqlite_db, "alice")[-1] == ("repeat", "q1", order[0], 2, 0)


async def test_command_palette_runs_a_judging_action(campaign):
    db, camp = campaign
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Grade 3", "enter")
        await settle(app, pilot)
        assert screen.items[0].grade == 3
    assert judgments(db, "alice") == {("q1", camp.queues["q1"]["alice"][0]): 3}


async def test_a_grade_in_flight_is_committed_when_the_app_quits(campaign):
    db, camp = campaign
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await open_judge(app, pilot)
        await pilot.press("3")
        app.exit()  # no settle: the unmount waits for the writer thread
    assert judgments(db, "alice") == {("q1", camp.queues["q1"]["alice"][0]): 3}


def _list_lines(app) -> list[str]:
    from workbench.tui.widgets.pool_list import PoolList

    pool = app.screen.query_one(PoolList)
    return [str(pool.get_option_at_index(i).prompt) for i in range(pool.option_count)]


async def test_a_repeat_looks_like_any_unjudged_document(sqlite_db):
    """Issue: the repeated document kept its title in the list, and the list showed the
    grade given to the first copy. Now an unjudged item is its number only, no list line
    carries a grade, and the document view shows only the current document's own grade."""
    from tests.tui.factory import build_campaign

    camp = build_campaign(sqlite_db, n_queries=1, repeat_last=True)
    order = camp.queues["q1"]["alice"]
    app = make_app(sqlite_db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.press("3")  # the first showing of order[0]
        await settle(app, pilot)
        await pilot.press(*["1"] * (len(order) - 1))
        await settle(app, pilot)
        assert screen.cursor == len(order)  # on the hidden repeat
        lines = _list_lines(app)
        n = len(lines)
        assert lines[-1] == f"· {n:>3} not judged yet"
        # No judged line carries a title while the repeat waits (the first
        # showing's title would pair with the repeat's), nor a grade
        assert lines[:-1] == [f"✓ {i:>3} judged" for i in range(1, n)]
        text = screen_text(app)
        assert "Your grade" not in text  # the repeat is unjudged: no earlier grade in sight
        assert f"Document {order[0]}" in text  # (its own text is shown, as for any document)
        await pilot.press("k")  # back on the last ordinary document: judged, like the first
        await settle(app, pilot)  # showing (a grade on one but not the other told them apart)
        assert "Judged" in screen_text(app) and "Your grade" not in screen_text(app)
        await pilot.press("j", "2")  # the repeat judged: every grade shows again
        await settle(app, pilot)
        await pilot.press("k")
        await settle(app, pilot)
        assert "Your grade: 1" in screen_text(app)


def _long_documents(db, lines: int = 300) -> None:
    from sqlalchemy import update

    from workbench.store.models import Document

    body = "\n".join(f"line {i} of a long document" for i in range(lines))
    with db.write.begin() as s:
        s.execute(update(Document).values(text=body))


async def test_page_keys_scroll_the_document_and_the_grade_lands_on_it(campaign):
    """Issue: PageDown/PageUp moved the list cursor to another document, so the next digit
    graded a document the assessor had not read; nothing scrolled up."""
    from workbench.tui.widgets.document_view import DocumentView

    db, camp = campaign
    _long_documents(db)
    order = camp.queues["q1"]["alice"]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        view = screen.query_one(DocumentView)
        assert screen.cursor == 0 and view.scroll_y == 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert screen.cursor == 0 and view.scroll_y > 0
        first_page = view.scroll_y
        await pilot.press("space")
        await pilot.pause()
        assert screen.cursor == 0 and view.scroll_y > first_page
        await pilot.press("pageup")
        await pilot.pause()
        assert screen.cursor == 0 and view.scroll_y == first_page
        await pilot.press("b")  # the scroll-up key beside space
        await pilot.pause()
        assert view.scroll_y == 0
        await pilot.press("end")
        await pilot.pause()
        assert screen.cursor == 0 and view.scroll_y == view.max_scroll_y > 0
        await pilot.press("home")
        await pilot.pause()
        assert screen.cursor == 0 and view.scroll_y == 0
        await pilot.press("end", "2")
        await settle(app, pilot)
    assert judgments(db, "alice") == {("q1", order[0]): 2}  # the document that was shown


async def test_the_list_follows_the_cursor_after_a_resize(sqlite_db):
    from tests.tui.factory import build_campaign
    from workbench.tui.widgets.pool_list import PoolList

    build_campaign(sqlite_db, n_queries=1, n_systems=6, depth=30, n_docs=80)
    app = make_app(sqlite_db, assessor="alice")
    async with app.run_test(size=(150, 60)) as pilot:
        screen = await open_judge(app, pilot)
        pool = screen.query_one(PoolList)
        last = len(screen.items) - 1
        assert last > 60
        for _ in range(45):
            await pilot.press("j")
        await settle(app, pilot)
        assert screen.cursor == 45
        await pilot.resize_terminal(150, 20)
        await settle(app, pilot)
        top = pool.scroll_y
        assert top <= 45 < top + pool.scrollable_content_region.height


async def test_a_grade_re_renders_only_the_list_lines_it_changed(campaign):
    """docs/performance.md "Grading": OptionList's replace_option_prompt re-rendered every
    visible line of the queue after each grade; now only the graded line and the line the
    cursor moves to are rendered again, and the graded line shows it is judged."""
    db, camp = campaign
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        pool = screen.query_one("#pool")
        assert len(pool.options) >= 4
        rendered: list[int] = []
        real = pool._get_visual

        def counted(option):  # called only when a line's render is not cached
            rendered.append(pool._option_to_index[option])
            return real(option)

        pool._get_visual = counted
        await pilot.press("2")
        await settle(app, pilot)
        assert screen.cursor == 1
        assert set(rendered) <= {0, 1} and 0 in rendered
        lines = _list_lines(app)
        assert lines[0] == "✓   1 " + (screen.items[0].title or screen.items[0].document)
        assert lines[1:4] == [f"· {i:>3} not judged yet" for i in (2, 3, 4)]
        assert lines[0] in screen_text(app)  # drawn, not only set


async def test_a_note_typed_before_grading_outlives_the_session_and_is_exported(campaign):
    """It said "Note saved" on an ungraded document, and the note was gone from
    `export judgments` once the session ended (only the history kept it)."""
    import io

    from workbench.campaign.catalog.exporting import export_judgments
    from workbench.tui.screens.judge import UNGRADED_NOTE

    db, camp = campaign
    d0 = camp.queues["q1"]["alice"][0]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await open_judge(app, pilot)
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"see page 2", "enter")
        await settle(app, pilot)
        assert [n.message for n in app._notifications] == [UNGRADED_NOTE]
    app = make_app(db, assessor="alice")  # a new session: the note is still on the document
    async with app.run_test(size=SIZE) as pilot:
        await open_judge(app, pilot)
        assert "Note: see page 2" in screen_text(app)
        await pilot.press("2")
        await settle(app, pilot)
    out = io.StringIO()
    export_judgments(db, out)
    rows = [line.split(",") for line in out.getvalue().splitlines()[1:]]
    assert [(r[0], r[1], r[2], r[3], r[4]) for r in rows] == [("q1", d0, "alice", "2", "see page 2")]
