"""The judging screen's actions: its key bindings (the one registry that the footer, the
help screen and the command palette read) and the palette's commands."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.binding import Binding

from workbench.campaign.settings import describe_idle_cap
from workbench.campaign.judging.assessing import QueueItem
from workbench.tui.screens.help import HelpScreen
from workbench.tui.screens.note import NoteScreen

if TYPE_CHECKING:
    from workbench.tui.screens.judge import JudgeScreen

JUDGE_BINDINGS = [
    *[Binding(str(d), f"grade({d})", f"grade {d}", show=False) for d in range(10)],
    Binding("j,down", "move(1)", "next doc", show=False, priority=True),
    Binding("k,up", "move(-1)", "previous doc", show=False, priority=True),
    Binding("u", "undo", "Undo"),
    Binding("n", "note", "Note"),
    Binding("l", "later", "Later",
            tooltip="later: skip for now, to the end of this query's queue (this session "
                    "only; nothing is stored)"),
    Binding("c", "cant_judge", "Can't judge",
            tooltip="can't judge / broken document: stored as a mark, not a grade; counts "
                    "as done (c again removes it)"),
    Binding("g", "guidelines", "Guidelines"),
    Binding("right_square_bracket", "next_query(1)", "Next query", key_display="]"),
    Binding("left_square_bracket", "next_query(-1)", "Prev query", key_display="["),
    Binding("s", "toggle_scores", "Scores"),
    Binding("question_mark", "help", "Help", key_display="?"),
    # Priority: the queue list has focus and would take these keys to move the cursor
    # to another document, and the next digit would grade one the assessor never read.
    Binding("pagedown,space", "scroll_doc('down')", "scroll document down",
            key_display="PgDn/Space", show=False, priority=True),
    Binding("pageup,b", "scroll_doc('up')", "scroll document up",
            key_display="PgUp/b", show=False, priority=True),
    Binding("home", "scroll_doc('home')", "top of the document", show=False, priority=True),
    Binding("end", "scroll_doc('end')", "end of the document", show=False, priority=True),
    Binding("escape", "back", "Queries"),
]


def cant_judge_dialog(item: QueueItem) -> NoteScreen:
    """Asks for the optional reason of a "can't judge" mark."""
    name = item.title or item.document
    return NoteScreen("", name, placeholder="what is wrong (optional)…",
                      heading=f"Can't judge {name}? Reason, optional (Enter marks it, Esc cancels)")


def guidelines_screen(screen: JudgeScreen):
    """The campaign's guidelines beside the query's narrative; None when already shown."""
    from workbench.tui.screens.guidelines import GuidelinesScreen
    from workbench.tui.widgets.query_panel import QueryPanel

    if isinstance(screen.app.screen, GuidelinesScreen):
        return None
    view = screen.query_one("#query-panel", QueryPanel).view
    return GuidelinesScreen(screen.guidelines, screen.query_ext or "",
                            view.narrative if view is not None else "")


def help_screen(screen: JudgeScreen) -> HelpScreen:
    rows = [  # a binding's tooltip is its longer description
        (b.key_display or b.key, b.tooltip or b.description)
        for b in JUDGE_BINDINGS
        if not b.action.startswith("grade(") and screen.check_action(b.action, ())
    ]
    grades = ", ".join(f"{lv.grade} {lv.label}" for lv in screen.levels)
    extra = [("0-9", f"grade and move to the next unjudged ({grades})")]
    cap = describe_idle_cap(screen.idle_cap)
    extra.append(("", f"seconds per document count up to {cap} (idle cap; longer is idle "
                      "time, not counted)"))
    return HelpScreen(rows, extra)


def palette_commands(screen: JudgeScreen) -> list[tuple[str, str, Callable[[], None]]]:
    commands = [
        (f"Grade {lv.grade}: {lv.label}", "Grade the current document",
         (lambda g=lv.grade: screen.action_grade(g)))
        for lv in screen.levels
    ]
    commands += [
        ("Undo last grade", "Revert your last change in this query", screen.action_undo),
        ("Add a note", "Write a note on the current document", screen.action_note),
        ("Later", "Skip this document for now: to the end of the queue", screen.action_later),
        ("Can't judge", "Mark this document can't judge / broken (not a grade)",
         screen.action_cant_judge),
        ("Next query", "Next query with unjudged documents", lambda: screen.action_next_query(1)),
        ("Previous query", "Previous query with unjudged documents",
         lambda: screen.action_next_query(-1)),
    ]
    if screen.scores_allowed("toggle_scores"):  # assessors/visibility.py decides
        commands.append(
            ("Toggle live scores", "Show or hide the live score panel", screen.action_toggle_scores)
        )
    return commands + [("Back to the query list", "Leave this query", screen.action_back)]
