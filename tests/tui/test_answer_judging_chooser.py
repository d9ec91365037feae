"""An assessor who picks their name in the assessor chooser (`workbench judge` without
--assessor, the lead's F1) gets the same blind nugget assignment screen as `judge -a NAME`:
the keys write their labels to the database (the assessor's screen)."""

from __future__ import annotations

from textual.widgets import Input

from tests.tui.helpers import screen_text, settle
from tests.tui.test_answer_judging import RUNS, SIZE, _campaign, _labels
from workbench.tui.app import make_app
from workbench.tui.screens.answer_judge import AnswerJudgeScreen
from workbench.tui.screens.assessor_select import AssessorScreen

SECRETS = (*RUNS, "SECRET-TEAM", "partial_support", "vital", "gpt-z", "score")


async def _label_as_ann(app, pilot, db) -> None:
    await settle(app, pilot)
    assert isinstance(app.screen, AssessorScreen)
    app.screen.query_one("#assessor-new", Input).value = "ann"
    app.screen.query_one("#assessor-new", Input).focus()
    await pilot.press("enter")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, AnswerJudgeScreen)
    nugget_pane = str(screen.query_one("#nugget-list").render())
    assert "partial" not in nugget_pane and "support" not in nugget_pane  # bob's and gpt-z's labels
    text = screen_text(app)
    for secret in SECRETS:
        assert secret not in text, secret
    first = screen.view.answer_id
    nuggets = [n.nugget_id for n in screen.view.nuggets]
    await pilot.press("2")
    assert _labels(db, first) == {nuggets[0]: 2}
    await pilot.press("1", "0")
    assert _labels(db, first) == {nuggets[0]: 2, nuggets[1]: 1, nuggets[2]: 0}
    await pilot.press("u")
    assert _labels(db, first) == {nuggets[0]: 2, nuggets[1]: 1}


async def test_an_assessor_chosen_in_the_chooser_labels_nuggets(sqlite_db, tmp_path):
    db = sqlite_db
    _campaign(db, tmp_path)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await _label_as_ann(app, pilot, db)


async def test_the_leads_f1_opens_the_same_blind_screen(sqlite_db, tmp_path):
    db = sqlite_db
    _campaign(db, tmp_path)
    app = make_app(db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f1")
        await _label_as_ann(app, pilot, db)
