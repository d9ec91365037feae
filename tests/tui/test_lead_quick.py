"""Quick scoring screen: the worked example of docs/architecture.md#worked-examples, every formulation, inline errors."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Select, TextArea

from tests.tui.helpers import screen_text, settle
from tests.tui.lead_helpers import SIZE, cli_json, open_mode, rows, sample_db, wait_for  # noqa: F401
from workbench.tui.app import make_app
from workbench.tui.screens.quick import QuickScreen


async def _open(app, pilot):
    await pilot.press("f6")
    await settle(app, pilot)
    assert isinstance(app.screen, QuickScreen)
    return app.screen


async def test_worked_example_every_formulation(sample_db):
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        box = screen.query_one("#qk-grades", TextArea)
        box.load_text("")
        await pilot.press(*"3 2 3 0 1 2")
        await settle(app, pilot)
        ranks = rows(screen.query_one("#qk-ranks", DataTable))
        assert [r[1] for r in ranks] == ["3", "2", "3", "0", "1", "2"]
        assert [r[5] for r in ranks] == ["3", "3", "2", "2", "1", "0"]  # ideal order
        assert ranks[-1][4] == "6.861" and ranks[-1][6] == "7.141"  # DCG, IDCG (log2)
        summary = {r[0]: r[1:] for r in rows(screen.query_one("#qk-summary", DataTable))}
        assert summary["linear gain, log2(i+1)"] == ["6.861", "7.141", "0.961"]
        assert summary["linear gain, J-K b=2"] == ["8.097", "8.693", "0.932"]
        assert summary["exponential gain, log2(i+1)"] == ["13.848", "14.595", "0.949"]
        text = screen_text(app)
        assert "CG@6 = 11" in text and "P@6 = 0.833" in text and "RR = 1.000" in text
        # k = 3 and relevance level 3: 3,2,3 in the top 3, two of them relevant
        screen.query_one("#qk-k", Input).value = "3"
        screen.query_one("#qk-level", Input).value = "3"
        await settle(app, pilot)
        assert "P@3 = 0.667" in screen_text(app)
        assert "AP@3 = 0.833 (R = 2)" in screen_text(app)  # (1/1 + 2/3) / 2
        # per-rank table of another formulation
        screen.query_one("#qk-formulation", Select).value = 1
        await settle(app, pilot)
        ranks = rows(screen.query_one("#qk-ranks", DataTable))
        assert ranks[0][2] == "7"  # 2^3 - 1


async def test_bad_input_is_an_inline_message(sample_db):
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        box = screen.query_one("#qk-grades", TextArea)
        box.load_text("3 2\n0 x [b]")
        await settle(app, pilot)
        error = screen.query_one("#qk-error")
        assert error.display
        assert "grades:2: grade 'x' is not an integer" in screen_text(app)
        box.load_text("1 0 1")
        screen.query_one("#qk-numrel", Input).value = "1"  # fewer than listed: an error
        await settle(app, pilot)
        assert "num_rel" in screen_text(app)
        screen.query_one("#qk-numrel", Input).value = "4"
        await settle(app, pilot)
        assert not error.display
        assert "AP = 0.417 (R = 4)" in screen_text(app)  # (1/1 + 2/3) / 4
        box.load_text("")
        await settle(app, pilot)
        assert error.display and "type some grades" in screen_text(app)


async def test_pasted_ranked_list_one_document_per_line(sample_db):
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        box = screen.query_one("#qk-grades", TextArea)
        box.load_text("")
        box.focus()
        await pilot.pause()
        app.screen.query_one("#qk-grades", TextArea).insert("d7 3\nd2 2\n101 0 d9 3\nd4 0\nd1 1\nd5 2\n")
        await settle(app, pilot)
        ranks = rows(screen.query_one("#qk-ranks", DataTable))
        assert [r[1] for r in ranks] == ["3", "2", "3", "0", "1", "2"]
        assert "nDCG" in screen_text(app) and "0.961" in screen_text(app)


async def test_grades_off_the_scale_are_an_inline_message(sample_db):
    """F6 took grade 5000 (nDCG nan, an overflow warning) where `workbench quick` refuses it."""
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        screen.query_one("#qk-grades", TextArea).load_text("3 5000 1")
        await settle(app, pilot)
        assert screen.query_one("#qk-error").display
        assert "grades:1: grade 5000 is out of range (at most 1000 either way)" in screen_text(app)


async def test_calculator_on_a_ranked_list_gives_the_scoreboard_numbers(sample_db):
    """`c` on a system's ranked list: R and the ideal come from the query's judgments, as in
    `workbench score` (the calculator counted R from the list alone: AP 0.972 against 0.858)."""
    from workbench.tui.screens.query_detail import QueryDetailScreen
    from workbench.tui.screens.scoreboard import ScoreboardScreen
    from workbench.tui.screens.system_detail import SystemDetailScreen

    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        board = await open_mode(app, pilot, "f2", ScoreboardScreen)
        dt = board.query_one("#sb-table", DataTable)
        dt.move_cursor(row=[r[1] for r in rows(dt)].index("qld"))
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, SystemDetailScreen)
                       and app.screen.data is not None)
        await settle(app, pilot)
        table = app.screen.query_one("#sd-table", DataTable)
        query = rows(table)[0][0]
        table.move_cursor(row=0)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, QueryDetailScreen)
                       and app.screen.data is not None)
        await settle(app, pilot)
        await pilot.press("c")
        await settle(app, pilot)
        quick = app.screen
        assert isinstance(quick, QuickScreen)
        scored = next(s for s in cli_json(sample_db, "score", "-q", "-m", "AP", "-m", "nDCG@10",
                                          "-m", "num_rel")["systems"]
                      if s["system"] == "qld")["per_query"][query]
        summary = {r[0]: r[1:] for r in rows(quick.query_one("#qk-summary", DataTable))}
        assert summary["linear gain, log2(i+1)"][2] == f"{scored['nDCG@10']:.3f}"  # k = 10
        quick.query_one("#qk-k", Input).value = ""  # the whole list, as AP is scored
        await settle(app, pilot)
        assert f"AP = {scored['AP']:.3f} (R = {int(scored['num_rel'])})" in screen_text(app)
