"""The judging screen on its session: a removed assessor stops the
screen, a second session takes over and the first says so, counts come from the database,
and `u` after a hidden repeat undoes the repeat's own grade."""

from __future__ import annotations

from tests.tui.factory import build_campaign
from tests.tui.helpers import events, judgments, screen_text, settle, settle_until
from workbench.campaign.catalog.listing import remove
from workbench.campaign.assessors import roster
from workbench.campaign.judging import assessing
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.judging.session import JudgingSession
from workbench.tui.app import make_app
from workbench.tui.screens import judge as judge_module
from workbench.tui.screens.judge import JudgeScreen

SIZE = (150, 44)


async def open_judge(app, pilot) -> JudgeScreen:
    await settle(app, pilot)
    assert isinstance(app.screen, JudgeScreen)
    return app.screen


def status(app) -> str:
    return str(app.screen.query_one("#status").render())


async def test_removed_assessor_stops_the_screen_and_is_not_recreated(sqlite_db, monkeypatch):
    """Before: the screen kept showing 1/N judged, the next key said "saved" and silently
    re-created the assessor outside any assignment."""
    monkeypatch.setattr(judge_module, "POLL_S", 60.0)  # the key finds it out, not the poll
    db = sqlite_db
    camp = build_campaign(db, n_queries=2, assessors=("alice", "bob"), markup_doc=False)
    order = camp.queues["q1"]["alice"]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        assert judgments(db, "alice") == {("q1", order[0]): 2}
        remove(db, "assessor", "alice", force=True)
        await pilot.press("3")
        await settle(app, pilot)
        text = screen_text(app)
        assert "STOPPED: alice was removed from this campaign" in text
        assert "saved 3" not in text and screen.ended
        await pilot.press("1", "u", "c")  # keys do nothing any more
        await settle(app, pilot)
        text = screen_text(app)
        assert "Reason, optional" not in text  # no mark dialog
        assert "Can't judge" not in text and "Undo" not in text  # nor such keys in the footer
    assert roster.with_work(db) == ["bob"]
    assert judgments(db, "alice") == {}


async def test_the_poll_says_the_assessor_was_removed_without_a_key(sqlite_db, monkeypatch):
    monkeypatch.setattr(judge_module, "POLL_S", 0.1)
    db = sqlite_db
    build_campaign(db, n_queries=1, assessors=("alice", "bob"), markup_doc=False)
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        remove(db, "assessor", "alice", force=True)
        await settle_until(app, pilot, lambda: bool(screen.ended))
        assert "STOPPED: alice was removed" in screen_text(app)


async def test_a_second_session_takes_over_and_the_first_screen_says_so(sqlite_db, monkeypatch):
    """Before: a stale screen overwrote the other's grade without a word, and `u` in one
    undid the other's change."""
    monkeypatch.setattr(judge_module, "POLL_S", 60.0)
    db = sqlite_db
    camp = build_campaign(db, n_queries=1, markup_doc=False)
    order = camp.queues["q1"]["alice"]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        other = JudgingSession(db, "alice", holder="browser 10.0.0.7")  # another screen opens
        other.show(other.read())
        saved = other.save_grade("q1", other.current, 0, seconds=0.0, note=None)
        assert saved.record.document == order[1]
        await pilot.press("3")  # the stale screen, on order[1] too
        await settle(app, pilot)
        assert screen.ended
        assert ("STOPPED: another judging session for alice took over (browser 10.0.0.7)"
                in screen_text(app))
        await pilot.press("u")
        await settle(app, pilot)
    assert judgments(db, "alice") == {("q1", order[0]): 2, ("q1", order[1]): 0}
    assert [e[0] for e in events(db, "alice")] == ["set", "set"]


async def test_the_newer_screen_says_it_took_over(sqlite_db):
    db = sqlite_db
    build_campaign(db, n_queries=1, markup_doc=False)
    JudgingSession(db, "alice", holder="tty3 pid 42").read()  # a screen left open
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await open_judge(app, pilot)
        await pilot.pause(0.1)
        assert "took over alice's judging from another session (tty3 pid 42)" in status(app)


async def test_counts_come_from_the_database(sqlite_db, monkeypatch):
    monkeypatch.setattr(judge_module, "POLL_S", 0.1)
    db = sqlite_db
    camp = build_campaign(db, n_queries=2, markup_doc=False)
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await open_judge(app, pilot)
        assert "overall 0/" in status(app)
        record_grade(db, "alice", "q2", camp.queues["q2"]["alice"][0], 1)  # `workbench grade`
        await settle_until(app, pilot, lambda: "overall 1/" in status(app))
        assert "overall 1/" in status(app) and "q1 0/" in status(app)


async def test_u_after_a_repeat_undoes_the_repeats_own_grade(sqlite_db):
    """Before: `u` after grading the hidden repeat undid an older grade of another document
    ("undone: dX ungraded"), changing the data and giving the repeat away."""
    db = sqlite_db
    camp = build_campaign(db, n_queries=1, repeat_last=True, markup_doc=False)
    order = camp.queues["q1"]["alice"]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.press("3", *["1"] * (len(order) - 1))
        await settle(app, pilot)
        assert screen.cursor == len(order)
        await pilot.press("0")  # the hidden repeat
        await settle(app, pilot)
        await pilot.press("u")
        await settle(app, pilot)
        assert screen.cursor == len(order) and screen.items[-1].grade is None
        assert [it.grade for it in screen.items[:-1]] == [3] + [1] * (len(order) - 1)
        assert f"undone: {order[0]} ungraded" in status(app)
        # and k onto the first showing does not give its grade away while the repeat waits
        screen._set_cursor(0)
        await settle(app, pilot)
        text = screen_text(app)
        assert "Your grade" not in text and "Judged" in text
    assert judgments(db, "alice") == {("q1", d): (3 if i == 0 else 1) for i, d in enumerate(order)}
    assert events(db, "alice")[-2:] == [("repeat", "q1", order[0], 3, 0),
                                         ("undo", "q1", order[0], None, None)]


async def test_the_judging_screen_opens_without_reading_every_query(sqlite_db, monkeypatch):
    """`judge` took 106 s and 2.6 GB to its first screen at 10^6 queries:
    the session read every query's progress, and so did the query list under it (a resume
    queued before the judging screen was pushed), into a DataTable of 10^6 rows. Now
    neither does until the assessor goes back to the list (bench/judge_scale_bench.py)."""
    calls = []
    real = assessing.query_progress_page
    monkeypatch.setattr(assessing, "query_progress_page",
                        lambda *a, **k: calls.append(a) or real(*a, **k))
    db = sqlite_db
    build_campaign(db, n_queries=3, markup_doc=False)
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.pause(0.3)
        await settle(app, pilot)
        assert screen.query_ext == "q1" and "query 1/3" in status(app)
        assert calls == []
        await pilot.press("escape")  # back to the list: now it reads them
        await settle(app, pilot)
        assert len(calls) == 1


async def test_closing_the_app_gives_the_lease_back(sqlite_db):
    """The next session of the same assessor then opens without a takeover message."""
    from sqlalchemy import func, select

    from workbench.store.models import JudgingLease

    db = sqlite_db
    build_campaign(db, n_queries=1, markup_doc=False)
    for _ in range(2):
        app = make_app(db, assessor="alice")
        async with app.run_test(size=SIZE) as pilot:
            await open_judge(app, pilot)
            assert "took over" not in status(app)
            await pilot.press("escape")  # back to the list: the judging screen closes
            await settle(app, pilot)
            with db.read() as s:
                assert s.scalar(select(func.count()).select_from(JudgingLease)) == 0
            await pilot.press("enter")  # and opens again
            await settle(app, pilot)
            assert isinstance(app.screen, JudgeScreen) and "took over" not in status(app)
    with db.read() as s:  # quitting gives it back too
        assert s.scalar(select(func.count()).select_from(JudgingLease)) == 0


async def test_a_grade_given_elsewhere_shows_on_the_open_screen(sqlite_db, monkeypatch):
    """Screens refresh their counts from the database. A grade given with
    `workbench grade` while the screen is open shows in its list and its counts; a note
    typed on the screen before a first grade is kept."""
    monkeypatch.setattr(judge_module, "POLL_S", 0.1)
    db = sqlite_db
    camp = build_campaign(db, n_queries=1, markup_doc=False)
    order = camp.queues["q1"]["alice"]
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        n = len(order)
        assert f"q1 0/{n} judged" in status(app)
        record_grade(db, "alice", "q1", order[2], 3)
        await settle_until(app, pilot, lambda: f"q1 1/{n} judged" in status(app))
        assert screen.items[2].grade == 3 and screen.cursor == 0
        assert f"overall 1/{n}" in status(app) or "overall …" not in status(app)
        await pilot.press("2")  # the screen's own grades go on as before
        await settle(app, pilot)
        assert screen.cursor == 1 and f"q1 2/{n} judged" in status(app)
    assert judgments(db, "alice") == {("q1", order[0]): 2, ("q1", order[2]): 3}


async def test_in_a_browser_no_host_name_or_pid_is_shown(sqlite_db, monkeypatch):
    """The takeover messages showed the browser assessor the server's host
    name and pid; a served app says only that another session took over, and leaves no host
    name in the lease either."""
    from sqlalchemy import select

    from workbench.store.models import JudgingLease

    monkeypatch.setattr(judge_module, "POLL_S", 60.0)
    db = sqlite_db
    build_campaign(db, n_queries=1, markup_doc=False)
    JudgingSession(db, "alice", holder="serverhost pid 4242").read()  # a terminal on the server
    app = make_app(db, assessor="alice")
    app.served = True
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_judge(app, pilot)
        await pilot.pause(0.1)
        assert "took over alice's judging from another session, which stops" in status(app)
        with db.read() as s:
            assert s.scalars(select(JudgingLease.holder)).all() == ["a browser (workbench serve)"]
        other = JudgingSession(db, "alice", holder="serverhost pid 4343")
        other.show(other.read())
        await pilot.press("2")
        await settle(app, pilot)
        assert screen.ended
        text = screen_text(app)
        assert "another judging session for alice took over: this one stops" in text
        assert "serverhost" not in text + status(app) and "4343" not in text
