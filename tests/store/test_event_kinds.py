"""EventKind: one enum for the kinds of judgment_event rows, stored as the same strings as
before (a database written by an earlier version reads the same), and no bare kind string
left in the code that writes or filters events."""

from __future__ import annotations

import ast
from pathlib import Path

from workbench.store.event_kinds import GRADE_KINDS, UNDOABLE_ACTIONS, EventKind

ROOT = Path(__file__).resolve().parents[2] / "workbench"


def test_stored_values_are_the_strings_written_before():
    assert [k.value for k in EventKind] == [
        "set", "change", "clear", "undo", "repeat", "note", "adjudicate", "cant_judge",
        "cant_judge_clear"]
    assert EventKind.SET == "set" and EventKind("cant_judge_clear") is EventKind.CANT_JUDGE_CLEAR
    assert UNDOABLE_ACTIONS == ("set", "change", "clear", "cant_judge", "cant_judge_clear",
                                "repeat")
    assert GRADE_KINDS == ("set", "change", "repeat")


def _bare_kinds(tree: ast.AST):
    values = {k.value for k in EventKind}
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "kind":
            if isinstance(node.value, ast.Constant) and node.value.value in values:
                yield node.value.lineno, node.value.value
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(s, ast.Attribute) and s.attr == "kind" for s in sides):
                for s in sides:
                    if isinstance(s, ast.Constant) and s.value in values:
                        yield s.lineno, s.value
        if isinstance(node, ast.BoolOp):  # `kind or "set"`
            for s in node.values:
                if isinstance(s, ast.Constant) and s.value in values and any(
                        isinstance(o, ast.Name) and o.id == "kind" for o in node.values):
                    yield s.lineno, s.value


def test_no_bare_event_kind_strings_in_the_code():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {value!r}"
        for path in sorted(ROOT.rglob("*.py")) if path.name != "event_kinds.py"
        for line, value in _bare_kinds(ast.parse(path.read_text(), str(path)))
    ]
    assert found == []
