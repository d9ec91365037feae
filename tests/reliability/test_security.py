"""Security: assessors stay blind, SQL is built from bound parameters only, and imported
text is shown as text (no Rich/Textual markup injection)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from textual.widgets import Input

from tests.tui.factory import MARKUP_TEXT, SYSTEM_TAG, build_campaign
from tests.tui.helpers import screen_text, settle
from workbench.campaign.judging.grades import record_grade
from workbench.tui.app import make_app
from workbench.tui.screens.judge import JudgeScreen

SIZE = (160, 50)
BOB_NOTE = "BOBSECRETNOTE"


def _campaign(db):
    camp = build_campaign(db, n_queries=3, n_systems=3, depth=6, assessors=("alice", "bob"))
    for q in camp.queries:  # bob has graded everything, with notes; alice nothing yet
        for i, d in enumerate(camp.queues[q]["bob"]):
            record_grade(db, "bob", q, d, 3 - i % 4, note=f"{BOB_NOTE} {q} {d}")
    return camp


def _assert_blind(text: str, where: str) -> None:
    assert SYSTEM_TAG not in text, where
    assert "bob" not in text.lower(), where
    assert BOB_NOTE not in text, where


async def test_every_assessor_screen_is_blind(sqlite_db):
    """Walk the assessor app (`workbench judge --assessor alice`, lead=False) through every
    screen and key it offers: query list, judging screen with each document, live score
    panel, help, note dialog, command palette, next/previous query, back to the list and
    back again, undo; nothing drawn names a system, bob, or shows bob's grades or notes."""
    camp = _campaign(sqlite_db)
    app = make_app(sqlite_db, assessor="alice", lead=False)
    seen: dict[str, str] = {}

    async def snap(where: str) -> None:
        await settle(app, pilot)
        seen[where] = screen_text(app)

    async with app.run_test(size=SIZE) as pilot:
        await snap("start")
        judge = app.screen
        assert isinstance(judge, JudgeScreen)
        assert all(item.grade is None for item in judge.items)  # bob's grades are not hers
        assert all(BOB_NOTE not in (item.note or "") for item in judge.items)
        for i in range(len(judge.items)):
            await snap(f"document {i}")
            await pilot.press("j")
        await pilot.press("s")
        await snap("score panel")  # a blind campaign has no panel: s does nothing
        for word in ("System 1", "nDCG", "bpref", "P@10"):
            assert word not in seen["score panel"]
        await pilot.press("2", "1")
        await snap("after grading")
        await pilot.press("u")
        await snap("after undo")
        await pilot.press("question_mark")
        await snap("help")
        await pilot.press("escape")
        await pilot.press("n")
        await snap("note dialog")
        await pilot.press("escape")
        await pilot.press("ctrl+p")
        await snap("palette")
        for word in ("system", "score", "agree", "adjud", "assessor"):
            await pilot.press(*word)
            await snap(f"palette search {word}")
            for _ in word:
                await pilot.press("backspace")
        await pilot.press("escape")
        await pilot.press("right_square_bracket")
        await snap("next query")
        await pilot.press("left_square_bracket")
        await snap("previous query")
        for key in ("f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "tab", "ctrl+t"):
            await pilot.press(key)
            await snap(f"key {key}")
        await pilot.press("escape")
        await snap("query list")
        assert app.screen.__class__.__name__ == "QueryListScreen"
        await pilot.press("escape")
        await snap("escape from the query list")
        await pilot.press("escape")
        await snap("escape again")
    for where, text in seen.items():
        _assert_blind(text, where)
    assert camp.systems[0] not in "".join(seen.values())


async def test_markup_in_documents_notes_and_names_is_shown_literally(sqlite_db):
    """Document text `[bold]`, `[/x]`, `[link=...]` (the factory's first document), a note
    and a query title with markup: drawn literally, no crash, also through notify."""
    build_campaign(sqlite_db, n_queries=1, n_systems=2, depth=5, assessors=("alice",))
    from sqlalchemy import update

    from workbench.store.models import Query

    with sqlite_db.write.begin() as s:
        s.execute(update(Query).values(title="[red]T[/red] [/] [@click=app.quit]x[/]"))
    app = make_app(sqlite_db, assessor="alice", lead=False)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(app, pilot)
        judge = app.screen
        first = next(i for i, it in enumerate(judge.items) if it.document == "d001")
        judge._set_cursor(first)
        await settle(app, pilot)
        text = screen_text(app)
        assert "[bold]not bold[/bold] and [/x] and [link=http://x]click[/link]" in text
        assert "[red]T[/red] [/] [@click=app.quit]x[/]" in text
        await pilot.press("n")
        await settle(app, pilot)
        note = app.screen.query_one(Input)
        note.value = "[/] [bold] [link=http://evil]x"
        await pilot.press("enter")
        await settle(app, pilot)
        app.notify(MARKUP_TEXT, markup=False)
        await settle(app, pilot)
        text = screen_text(app)
        assert app.is_running
        assert "[/] [bold] [link=http://evil]x" in text
        assert judge.items[first].note == "[/] [bold] [link=http://evil]x"


# ----------------------------------------------------------------------------- SQL

ROOT = Path(__file__).resolve().parents[2] / "workbench"
SQL_CALLS = {"text", "exec_driver_sql", "execute", "executemany", "literal_column"}
SQL_WORDS = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|PRAGMA|CREATE|DROP|ALTER|BEGIN|WHERE|VALUES)\b")


def _dynamic_sql_strings(root: Path = ROOT) -> list[tuple[str, int, str]]:
    """SQL-looking strings built with f-strings, % or .format, passed to text(),
    exec_driver_sql() or execute()."""
    found = []
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assigned: dict[str, ast.AST] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                assigned[node.targets[0].id] = node.value
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name not in SQL_CALLS:
                continue
            arg = node.args[0]
            if isinstance(arg, ast.Name) and arg.id in assigned:
                arg = assigned[arg.id]
            dynamic = isinstance(arg, ast.JoinedStr) or (
                isinstance(arg, ast.BinOp) and isinstance(arg.op, (ast.Mod, ast.Add))
            ) or (isinstance(arg, ast.Call) and getattr(arg.func, "attr", "") == "format")
            if dynamic and SQL_WORDS.search(ast.unparse(arg)):
                found.append((str(path.relative_to(root.parent)), node.lineno, ast.unparse(arg)))
    return found


# Reviewed: each interpolates only constants or identifiers the code itself chose
# (table/column names from the models, pragma values defined in the module), never a value
# from a user, a file or the database.
REVIEWED = {
    ("workbench/store/dbapi.py", "PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}"),
    ("workbench/store/dbapi.py", 'INSERT INTO "{table}"'),
    ("workbench/store/dbapi.py", 'COPY "{table}"'),
    ("workbench/store/ext_ids.py", "FROM {table}"),
    ("workbench/store/engine.py", "BEGIN {mode}"),
}


def test_sql_is_built_only_from_bound_parameters():
    unreviewed = [
        (path, line, code) for path, line, code in _dynamic_sql_strings()
        if not any(path == p and frag in code for p, frag in REVIEWED)
    ]
    assert unreviewed == [], "SQL built from strings; use bound parameters:\n" + "\n".join(
        f"{p}:{n}: {c}" for p, n, c in unreviewed)


def test_the_sql_check_catches_interpolation(tmp_path):
    """The checker itself: an f-string WHERE with a user value is reported."""
    pkg = tmp_path / "workbench"
    pkg.mkdir()
    (pkg / "bad.py").write_text(
        "def f(conn, name):\n"
        "    conn.execute(text(f\"SELECT id FROM assessor WHERE name = '{name}'\"))\n"
        "    q = 'DELETE FROM judgment WHERE id = %s' % name\n"
        "    conn.exec_driver_sql(q)\n"
    )
    assert sorted(line for _, line, _ in _dynamic_sql_strings(pkg)) == [2, 4]


def test_begin_mode_comes_from_a_fixed_set():
    """engine.py's `BEGIN {mode}` takes its mode from execution options set in code."""
    source = (ROOT / "store" / "engine.py").read_text()
    modes = set(re.findall(r'sqlite_begin="(\w+)"', source)) | set(
        re.findall(r'get\("sqlite_begin", "(\w+)"\)', source))
    assert modes <= {"IMMEDIATE", "DEFERRED", "EXCLUSIVE"} and modes


# ----------------------------------------------------------------------------- markup

MARKUP_SINKS = {"Static", "Label", "update", "add_row", "Option", "add_column", "Button",
                "set_options", "Markdown", "Collapsible"}


def _markup_risks(root: Path) -> list[tuple[str, int, str]]:
    """notify() without markup=False, and widgets fed a formatted str (parsed as markup:
    imported ids and titles may contain `[...]`) instead of rich Text/Content."""
    found = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            where = (str(path.relative_to(root.parent)), node.lineno, ast.unparse(node)[:120])
            if name == "notify":
                markup = {k.arg: k.value for k in node.keywords}.get("markup")
                if not (isinstance(markup, ast.Constant) and markup.value is False):
                    found.append(where)
            elif name in MARKUP_SINKS and any(
                isinstance(a, ast.JoinedStr)
                or (isinstance(a, ast.BinOp) and isinstance(a.op, (ast.Add, ast.Mod)))
                for a in node.args
            ):
                found.append(where)
    return found


def test_tui_never_renders_formatted_strings_as_markup():
    risks = _markup_risks(ROOT / "tui")
    assert risks == [], "\n".join(f"{p}:{n}: {c}" for p, n, c in risks)


def test_the_markup_check_catches_sinks(tmp_path):
    pkg = tmp_path / "tui"
    pkg.mkdir()
    (pkg / "bad.py").write_text(
        "def f(self, doc):\n"
        "    self.notify(f'saved {doc}')\n"
        "    self.query_one('#x').update(f'title: {doc.title}')\n"
        "    self.notify(doc, markup=False)\n"
        "    Static(Text(doc))\n"
    )
    assert sorted(n for _, n, _ in _markup_risks(pkg)) == [2, 3]
