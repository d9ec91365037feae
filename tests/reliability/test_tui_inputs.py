"""The TUI's free-text inputs take junk without crashing: the note dialog (any text is
stored exactly, markup included) and the quick-scoring boxes (bad input is an inline
message, never an exception)."""

from __future__ import annotations

import random

import pytest

from sqlalchemy import select
from textual.widgets import Input

from tests.tui.factory import build_campaign
from tests.tui.helpers import screen_text, settle
from workbench.store.models import JudgmentEvent
from workbench.tui.app import make_app
from workbench.tui.screens.judge import JudgeScreen

NASTY = [
    "[/]", "[bold", "[link=http://evil]click", "[@click=app.quit]quit[/]", "\\[escaped]",
    "\x1b[31mred\x1b[0m", "tab\tand\ttabs", "line\nbreak", "\r", "é ñ 漢字 🙂 \u202eRTL",
    "a\u0301\u0301\u0301", "\u200b", "%s %d {0} {}", "'; DROP TABLE judgment; --",
    "x" * 20_000, "", " ", "-1", "nan", "1e999",
]
ALPHABET = list("0123456789 -.,;\n\t[]/=e+x#") + ["nan", "inf", "é", "🙂", "9" * 40, "[b]", "[/]"]


def set_text(widget, value: str) -> None:
    """An Input's value or a TextArea's text (the grades box may be either)."""
    if isinstance(widget, Input):
        widget.value = value
    else:
        widget.text = value


def junk(rng: random.Random, n: int) -> list[str]:
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 12))) for _ in range(n)]


@pytest.mark.slow
async def test_note_dialog_stores_any_text_exactly(sqlite_db):
    build_campaign(sqlite_db, n_queries=1, n_systems=2, depth=5, assessors=("alice",))
    notes = NASTY + junk(random.Random(5), 5)
    app = make_app(sqlite_db, assessor="alice", lead=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        judge = app.screen
        assert isinstance(judge, JudgeScreen)
        for note in notes:
            await pilot.press("n")
            await settle(app, pilot, rounds=1)
            box = app.screen.query_one(Input)
            box.value = note
            await pilot.press("enter")
            await settle(app, pilot, rounds=2)
            assert app.screen is judge and app.is_running
            screen_text(app)  # renders
        index = judge.cursor
        stored_in_ui = judge.items[index].note
    with sqlite_db.read() as s:
        stored = list(s.scalars(
            select(JudgmentEvent.note).where(JudgmentEvent.kind == "note").order_by(JudgmentEvent.id)))
    assert len(stored) == len(notes)  # every note saved, none lost or merged
    assert stored_in_ui == stored[-1]
    for typed, kept in zip(notes, stored):
        # Textual's Input is one line (it may drop line breaks and control characters);
        # printable text, markup and SQL-looking text included, is kept exactly
        if all(c.isprintable() or c == " " for c in typed):
            assert kept == typed


async def test_quick_scoring_boxes_never_crash(sqlite_db):
    from workbench.tui.screens.quick import QuickScreen

    app = make_app(sqlite_db, lead=True)
    rng = random.Random(9)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        app.push_screen(QuickScreen())
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, QuickScreen)
        boxes = ["#qk-grades", "#qk-k", "#qk-level", "#qk-numrel"]
        cases = [("#qk-grades", v) for v in NASTY] + [(b, v) for b in boxes for v in junk(rng, 6)]
        cases += [("#qk-k", "9" * 40), ("#qk-numrel", "9" * 40), ("#qk-level", "-" + "9" * 40),
                  ("#qk-grades", " ".join(["3"] * 5000)), ("#qk-grades", "9" * 400)]
        for box, value in cases:
            set_text(screen.query_one(box), value)
            await pilot.pause()
            assert app.is_running and app.screen is screen, (box, value)
            error = screen.query_one("#qk-error")
            if error.display:
                assert str(error.render()).strip(), (box, value)
            screen_text(app)
            set_text(screen.query_one(box), {"#qk-grades": "3 2 3 0 1 2", "#qk-level": "1"}.get(box, ""))
        await settle(app, pilot)
        assert not screen.query_one("#qk-error").display
        assert "CG@6 = 11" in screen_text(app)
