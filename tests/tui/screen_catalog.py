"""Every screen of the TUI, opened the way a person opens it, with what must be seen on it.

`CASES` lists each lead screen, each judging screen and each modal once: how to reach it
from a fresh app (keys, as a person types them), and texts that must be visible whole on one
line of the screen (a label that wraps, a column cut at the right edge or a document body
pushed out of its box fails). `fit_problems` is the structural check run at every size:
no widget cut by the screen's or its container's edge, no horizontal scrolling, the texts
seen. tests/tui/test_screen_fit.py runs the matrix (sizes × cases) with an SVG snapshot of
each; `make snapshots` rewrites the SVGs after an intended change (docs/development.md).

The campaigns are the committed sample (sample_db/) and small ones built from fixed data, so
every run draws the same screen; what would still differ (the temporary folder's name, the
wall clock, a blinking cursor) is fixed by `steady` and `fix_clock_and_paths`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.tui.helpers import screen_text, settle
from tests.waits import eventually

SAMPLE = Path(__file__).resolve().parents[2] / "sample_db" / "sample.sqlite"

# The sizes every screen must fit: the classic terminal and a common larger one.
SIZES = ((80, 24), (120, 40))

Opener = Callable[[object, object], Awaitable[None]]


@dataclass(frozen=True)
class Case:
    name: str
    open: Opener  # async (app, pilot): reach the screen from the app's first screen
    expect: tuple[str, ...] = ()  # each visible whole on one line
    campaign: str = "sample"  # a key of CAMPAIGNS
    assessor: str | None = None  # `workbench judge --assessor NAME`; None: the lead's app
    app: str = "main"  # "main" (make_app) or "nugget_bank" (`workbench nuggets edit`)
    # selector -> text that must be seen whole inside that widget, however it wraps
    flow: dict[str, str] = field(default_factory=dict)
    # widgets (CSS selectors) allowed to scroll sideways, with the reason
    hscroll_ok: dict[str, str] = field(default_factory=dict)
    # why the SVG is not compared (the fit check still runs); None: it is compared
    unstable_svg: str | None = None


# ---------------------------------------------------------------- campaigns


def _write(path: Path, records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def _sample(folder: Path) -> str:
    shutil.copyfile(SAMPLE, folder / "campaign.sqlite")
    return "campaign.sqlite"


def _answers(folder: Path) -> str:
    """Two generated answers to one topic with three nuggets, pooled to ann (answer judging),
    and to alice, who also has documents to judge (the choice screen)."""
    from tests.tui.factory import build_campaign
    from workbench.campaign.answers.importing import import_answers, import_nuggets
    from workbench.campaign.answers.pooling import pool_answers
    from workbench.campaign.database import Database

    db = Database.open("campaign.sqlite")
    try:
        build_campaign(db, n_queries=3, n_systems=3, depth=6)
        answers = [{"metadata": {"run_id": run, "narrative_id": "t1", "team_id": "team"},
                    "references": ["docA", "docB"],
                    "answer": [{"text": f"Sourdough starters need regular feeding ({k}).", "citations": [0]},
                               {"text": "Keep the jar loosely covered at room temperature.", "citations": [1]}]}
                   for k, run in enumerate(("runA", "runB"))]
        import_answers(db, [_write(folder / "a.jsonl", answers)])
        import_nuggets(db, _write(folder / "n.jsonl", [{
            "qid": "t1", "query": "How do I keep a sourdough starter alive?", "nuggets": [
                {"text": "feed it flour and water daily", "importance": "vital"},
                {"text": "store it in the fridge between bakes", "importance": "okay"},
                {"text": "discard part before feeding", "importance": "okay"}]}]))
        pool_answers(db, ["ann"], seed=1)
        pool_answers(db, ["alice"], seed=1)
    finally:
        db.close()
    return "campaign.sqlite"


def _nugget_scores(folder: Path) -> str:
    """Two runs' answers labelled by ann against one vital nugget (the lead's F10)."""
    from workbench.campaign.answers.importing import import_assignments
    from workbench.campaign.database import Database

    db = Database.open("campaign.sqlite")
    try:
        import_assignments(db, _write(folder / "l.jsonl", [
            {"qid": "t1", "run_id": run, "nuggets": [{"text": "alpha", "importance": "vital", "assignment": lab}]}
            for run, lab in (("runX", "support"), ("runY", "partial_support"))]), assessor="ann")
    finally:
        db.close()
    return "campaign.sqlite"


def _machine(folder: Path) -> str:
    """People and a machine assessor (`llm`) on a generated campaign (the lead's F9)."""
    from tests.campaign.machine_campaign import build_machine_campaign
    from workbench.campaign.database import Database

    db = Database.open("campaign.sqlite")
    try:
        build_machine_campaign(db, folder / "files", human_queries=5)
    finally:
        db.close()
    return "campaign.sqlite"


# name -> builder(folder) -> the database path relative to `folder` (the test's cwd)
CAMPAIGNS: dict[str, Callable[[Path], str]] = {
    "sample": _sample, "answers": _answers, "nugget_scores": _nugget_scores, "machine": _machine,
}


# ---------------------------------------------------------------- reaching a screen


async def until(app, pilot, ready: Callable[[], bool], what: str) -> None:
    await settle(app, pilot)
    await eventually(ready, what, pause=lambda: _settle_once(app, pilot))
    await settle(app, pilot)


async def _settle_once(app, pilot) -> None:
    await pilot.pause(0.05)
    await settle(app, pilot, rounds=1)


def _is(app, name: str) -> bool:
    return type(app.screen).__name__ == name


def _loaded(app, name: str) -> bool:
    """The screen is `name` and has its data (lead screens: .data; dialogs: .item)."""
    screen = app.screen
    if type(screen).__name__ != name:
        return False
    for attribute in ("data", "item", "view"):
        if hasattr(screen, attribute):
            return getattr(screen, attribute) is not None
    if hasattr(screen, "loaded"):
        return bool(screen.loaded)
    if hasattr(screen, "names"):
        return screen.names is not None
    if hasattr(screen, "progress"):
        return bool(screen.progress)
    return True


async def tables_sized(app, pilot) -> None:
    """DataTable sizes its columns on a later refresh: wait for every table's widths (the
    snapshot otherwise catches label-only widths now and then)."""
    from textual.widgets import DataTable

    tables = list(app.screen.query(DataTable))
    await until(app, pilot, lambda: not any(t._require_update_dimensions for t in tables),
                "the tables' column widths")


async def steady(app, pilot) -> None:
    """What would differ from run to run: a text box's cursor blinks (shown or not when the
    SVG is taken): kept on; the start screen's database line names the test's own temporary
    folder: a fixed name stands in for it (the same length on every run)."""
    from rich.text import Text

    for box in app.screen.query("Input, TextArea"):
        box.cursor_blink = False
    for line in app.screen.query("#assessor-db"):
        line.update(Text("database: sqlite:////data/campaign.sqlite", style="dim"))
    await settle(app, pilot)


class _FixedClock:
    """The time module with its wall clock fixed for the screens that print it (the export
    dialog's suggested file name); the monotonic clock the screens poll with still runs."""

    FIXED = (2026, 3, 2, 9, 0, 0, 0, 61, 0)

    def __getattr__(self, name):
        import time

        return getattr(time, name)

    def strftime(self, fmt, when=None):
        import time

        return time.strftime(fmt, self.FIXED if when is None else when)


def fix_clock_and_paths(monkeypatch) -> None:
    """The export dialog suggests `<database folder>/<screen>-<date>-<time>.<ext>`: a fixed
    folder and time for the snapshots (the dialog only shows it; nothing is written)."""
    from workbench.tui.screens import lead_screen

    monkeypatch.setattr(lead_screen, "time", _FixedClock())
    monkeypatch.setattr(lead_screen, "export_dir", lambda url: Path("/data"))


def keys(*steps) -> Opener:
    """Press keys and wait: each step is (keys, screen class name) — the keys, then until
    that screen is shown with its data."""

    async def open_(app, pilot) -> None:
        await until(app, pilot, lambda: _loaded(app, type(app.screen).__name__), "the first screen")
        for pressed, screen in steps:
            await pilot.press(*pressed)
            await until(app, pilot, lambda s=screen: _loaded(app, s), f"{screen} after {pressed}")
        await tables_sized(app, pilot)
        await steady(app, pilot)

    return open_


def first(screen: str) -> Opener:
    return keys(((), screen))


# ---------------------------------------------------------------- the screens

LEGEND = ("0  Not relevant", "1  Marginally relevant", "2  Relevant", "3  Highly relevant")
NARRATIVE = ("For query 107: Relevant documents give dates, radiants, the best time of night, "
             "dark sky tips or how to count meteors. Documents about comets or fireballs in "
             "general are marginally relevant. Planet observing is not relevant.")

# Tables whose width is their data's (one column per measure, per rank or per quarter): at 80
# columns they scroll sideways, with their scroll bar shown and the cursor keys moving along.
# Still to fit (a follow-up): the per-query and per-rank tables, pace's grade shares.
WIDE = "a table as wide as its data: scrolls sideways with its cursor; its scroll bar shows it"

CASES: list[Case] = [
    # the assessor's screens (carol has not finished: her queue opens on a document)
    Case("assessor_start", first("AssessorScreen"), ("Who is judging?", "alice", "carol")),
    Case("query_list", keys((["enter"], "QueryListScreen")),
         ("keeping a sourdough starter alive", "flowers that feed bees")),
    Case("judge", first("JudgeScreen"), LEGEND, assessor="carol"),
    Case("judge_help", keys((["question_mark"], "HelpScreen")), assessor="carol"),
    Case("guidelines", keys((["g"], "GuidelinesScreen")),
         ("Judging guidelines  (Esc or g closes; g shows them again)",),
         flow={"#guidelines-narrative": NARRATIVE}, assessor="carol"),
    Case("note", keys((["n"], "NoteScreen")), assessor="carol"),
    Case("cant_judge", keys((["c"], "NoteScreen")), ("what is wrong (optional)",), assessor="carol"),
    Case("work_choice", first("WorkChoiceScreen"), ("d  judge documents",), campaign="answers",
         assessor="alice"),
    Case("answer_judge", first("AnswerJudgeScreen"),
         ("How do I keep a sourdough starter alive?",),
         flow={"#nugget-list": "feed it flour and water daily"}, campaign="answers", assessor="ann"),
    Case("nugget_bank", first("NuggetBankScreen"), flow={"#bank-text": "feed it flour and water daily"},
         campaign="answers", app="nugget_bank"),
    # the lead's screens (F-keys) and what opens from them
    Case("scoreboard", keys((["f2"], "ScoreboardScreen")),
         ("bm25", "doclen", "nDCG@10", "unjudged@10")),
    Case("system_detail", keys((["f2"], "ScoreboardScreen"), (["enter"], "SystemDetailScreen")),
         hscroll_ok={"#sd-table": WIDE}),
    Case("query_detail", keys((["f2"], "ScoreboardScreen"), (["enter"], "SystemDetailScreen"),
                              (["enter"], "QueryDetailScreen")), hscroll_ok={"#qd-table": WIDE}),
    Case("pr_curve", keys((["f2"], "ScoreboardScreen"), (["space", "p"], "PRCurveScreen")),
         hscroll_ok={"#pr-table": WIDE}),
    Case("export_dialog", keys((["f2"], "ScoreboardScreen"), (["e"], "ExportDialog"))),
    Case("lead_help", keys((["f2"], "ScoreboardScreen"), (["question_mark"], "HelpScreen"))),
    Case("agreement", keys((["f3"], "AgreementScreen")), ("Fleiss' κ",), hscroll_ok={"#ag-pairs": WIDE}),
    Case("disagreements", keys((["f4"], "DisagreementsScreen")), ("majority",)),
    Case("lead_name", keys((["f4"], "DisagreementsScreen"), (["enter"], "LeadNameScreen"))),
    Case("adjudicate", keys((["f4"], "DisagreementsScreen"), (["enter"], "LeadNameScreen"),
                            (["D", "a", "n", "a", "enter"], "AdjudicateScreen")),
         ("d014 · Flours for bread baking",),
         # its text, not only its title
         flow={"#adj-doc": "Buying vegetables in season is cheaper and the flavour is usually "
                            "better. Sourdough bread needs a long, slow rise"}),
    Case("systems", keys((["f5"], "SystemsScreen")),
         ("consensus:majority", "assessor:alice", "assessor:bob", "assessor:carol")),
    Case("quick", keys((["f6"], "QuickScreen")), ("3 2 3 0 1 2", "IDCG so far", "nDCG"),
         unstable_svg="the grades TextArea draws its line's trailing cells in one style or two "
                      "depending on the tests run before it in the process (seen in CI); it is drawn for the "
                      "fit check and not compared"),
    Case("planning", keys((["f7"], "PlanningScreen"))),
    # not fitting yet (a follow-up): the grade shares per quarter cut "last quarter" at 80
    Case("pace", keys((["f8"], "PaceScreen")), hscroll_ok={"#pc-table": WIDE}),
    Case("calibration_empty", keys((["f9"], "CalibrationScreen")), ("no machine assessor yet",)),
    Case("calibration", keys((["f9"], "CalibrationScreen")), ("machine 1 of 1: llm",),
         campaign="machine"),
    Case("nugget_scores_empty", keys((["f10"], "NuggetScoresScreen")), ("No answers or nugget labels yet.",),
         hscroll_ok={"#ns-table": WIDE}),
    Case("nugget_scores", keys((["f10"], "NuggetScoresScreen")), ("runX", "runY"),
         campaign="nugget_scores", hscroll_ok={"#ns-table": WIDE}),
]

BY_NAME = {case.name: case for case in CASES}


# ---------------------------------------------------------------- the fit check

# Widgets whose own design cuts or scrolls at a narrow width: the footer shows the keys that
# fit (the help `?` and the palette list them all), an input scrolls its own text.
_EXEMPT = ("Footer", "FooterKey", "FooterLabel", "Input", "TextArea", "ToastRack", "Toast")


def _exempt(widget) -> bool:
    return any(type(node).__name__ in _EXEMPT for node in widget.ancestors_with_self)


def fit_problems(app, case: Case) -> list[str]:
    """What does not fit on the screen now shown: each as one readable line."""
    screen = app.screen
    problems: list[str] = []
    width, height = app.size
    allowed = {w for selector in case.hscroll_ok for w in screen.query(selector)}
    for widget, geometry in screen._compositor.full_map.items():
        if widget is screen or not widget.display or _exempt(widget):
            continue
        region, clip = geometry.region, geometry.clip
        label = f"{type(widget).__name__}#{widget.id}" if widget.id else type(widget).__name__
        if region.x < 0 or region.right > width:
            problems.append(f"{label} spans columns {region.x}..{region.right} of a {width}-column screen")
        elif region.x < clip.x or region.right > clip.right:
            problems.append(f"{label} (columns {region.x}..{region.right}) is cut by its container "
                            f"(columns {clip.x}..{clip.right})")
        if region.y < 0 or (region.bottom > height and not _scrolls_vertically(widget)):
            problems.append(f"{label} spans rows {region.y}..{region.bottom} of a {height}-row screen")
        if widget.is_scrollable and widget.max_scroll_x > 0 and widget not in allowed:
            problems.append(f"{label} scrolls sideways ({widget.max_scroll_x} columns hidden)")
        if (type(widget).__name__ == "DataTable" and widget.row_count
                and region.intersection(clip).height < 2 and not _scrolls_vertically(widget)):
            problems.append(f"{label} shows none of its {widget.row_count} rows")
    for note in list(app._notifications):  # an error message over the screen
        if note.severity == "error":
            problems.append(f"error shown: {note.title}: {note.message}")
    lines = screen_text(app).splitlines()
    for text in case.expect:
        if not any(text in line for line in lines):
            problems.append(f"not visible whole on one line: {text!r}")
    for selector, text in case.flow.items():
        shown = " ".join(widget_text(app, screen.query_one(selector), lines).split())
        if " ".join(text.split()) not in shown:
            problems.append(f"{selector} does not show {text!r} whole; it shows {shown!r}")
    return problems


def widget_text(app, widget, lines: list[str]) -> str:
    """The characters drawn in the visible part of `widget`, line by line."""
    geometry = app.screen._compositor.full_map.get(widget)
    if geometry is None:
        return ""
    box = geometry.region.intersection(geometry.clip)
    return "\n".join(line[box.x:box.right] for line in lines[box.y:box.bottom])


def _scrolls_vertically(widget) -> bool:
    """An ancestor shows the rest of `widget` on scrolling down."""
    return any(node.is_scrollable and node.max_scroll_y > 0 for node in widget.ancestors if hasattr(node, "is_scrollable"))


def make_case_app(case: Case, folder: Path):
    """The app for `case` on a fresh copy of its campaign in `folder` (the cwd)."""
    from workbench.campaign.database import Database
    from workbench.tui.app import make_app

    path = CAMPAIGNS[case.campaign](folder)
    if case.app == "nugget_bank":
        from workbench.tui.screens.nugget_bank import nugget_bank_app

        return nugget_bank_app(Database.open(path), "t1")
    return make_app(path, assessor=case.assessor, lead=case.assessor is None)

