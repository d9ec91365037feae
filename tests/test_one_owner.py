"""One owner per rule: each rule below was written out in 2 to 5 places,
and the copies had drifted (two messages for a grade off the scale, a CSV with float noise...).
A cheap scan of the source says that each now lives in one module; docs/architecture.md
lists the owners."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"

# rule: (a pattern that only its owner writes, the owner's path under workbench/)
OWNERS = {
    "default measures": (r"nDCG@10 AP bpref P@10\"", "defaults.py"),
    "idle-cap default": (r"(?i)\b(default|idle_cap)\w*\s*(:\s*int\s*)?=\s*300\b", "defaults.py"),
    # issue 36 item 5: pool depth 10, threshold 1 and compat 10 were written in both
    # store/models.py and campaign/settings.py
    "campaign settings defaults": (r"\bDEFAULT_(POOL_DEPTH|THRESHOLD|COMPAT) = \d|"
                                   r"\b(pool_depth|relevance_threshold|score_compat)(\s*:\s*[\w\[\]]+)?\s*=\s*"
                                   r"(mapped_column\(Integer, default=)?\d|pool_depth or \d", "defaults.py"),
    # a command's measure when -m is left out: official (eval), nDCG@10 (compare on files),
    # map (calibrate, planning), vital_strict (calibrate --nuggets); the owner names them
    "a command's default measure": (r"\b(or|default=|measure: str =|return)\s*[\[(]?"
                                    r"[\"'](official|map|nDCG@10|vital_strict)[\"']|"
                                    r"^[A-Z_]+_MEASURES? = ", "defaults.py"),
    # the default scale: 1 = Marginally relevant (the preset and the first migration), never
    # a second copy (judging/assessing.py had 1 = Relevant)
    "default scale": (r"1=Marginally relevant|\(1, [\"'](Marginally )?[Rr]elevant[\"']\)",
                      "campaign/scale.py"),
    # the 4-decimal display format (12 copies in 11 files) and the p-value's
    "number display format": (r":\+?\.4f\}|\.\{(places|digits)\}f\}|:\.1e\}", "formats/numbers.py"),
    "grade on the scale": (r"not on the (campaign )?scale", "campaign/scale.py"),
    "Judged@k column": (r"f\"Judged@\{", "campaign/scoring/judged_depth.py"),
    "NaN -> null in JSON": (r"None if (\w+ is None or )?(math\.isnan\(\w+\)|\w+ != \w+) else float",
                            "formats/output.py"),
    "long score CSV header": (r"\"system\", \"query\", \"measure\", \"value\"", "formats/score_tables.py"),
    "unknown assessor message": (r"unknown assessor", "campaign/assessors/roster.py"),
    # the named-assessor lookup: one suggestion for a mistyped name at every entry point
    "nearest assessor's name": (r"did you mean \{near", "campaign/assessors/roster.py"),
    "not an assessor of this campaign": (r"is not an assessor of this campaign", "campaign/assessors/roster.py"),
    "refusal to judge as a machine": (r"is a machine assessor: its labels", "campaign/assessors/roster.py"),
    "creating an assessor": (r"def get_or_create_assessor|[^f] add_assessor\(s", "campaign/assessors/roster.py"),
}


def _writers(pattern: str) -> set[str]:
    rx = re.compile(pattern, re.MULTILINE)
    return {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if rx.search(path.read_text(encoding="utf-8"))
    }


@pytest.mark.parametrize("rule", sorted(OWNERS))
def test_one_owner(rule):
    pattern, owner = OWNERS[rule]
    assert _writers(pattern) == {owner}, rule


def test_the_assessor_list_has_one_owner():
    """The four near-identical lists (issue 36 #2) are gone: the roster lists assessors."""
    gone = r"def (machine_assessors|machine_names|judging_assessors|list_assessors|kinds|assessor_names)\(db\b"
    assert _writers(gone) <= {"campaign/assessors/roster.py"}
    assert _writers(r"\bassessor_kinds\(s(ession)?\)") <= {
        "campaign/assessors/roster.py", "campaign/assessors/panels.py", "campaign/catalog/listing.py",
        "campaign/agreement/report.py"}


# Every entry point that takes an assessor's name asks the roster (assessors/roster.py):
# `judge`, `grade`, `queue`, `serve link`, the browser's app, the TUI's start screen.
ENTRY_POINTS = {
    "cli/tui_cmd.py": "check_assessor(",
    "cli/grade_cmd.py": "check_assessor(",
    "cli/queue_cmd.py": "check_assessor(",
    "campaign/access/links.py": "check_assessor(",
    "cli/served_app.py": "check_assessor_in(",
    "tui/screens/assessor_select.py": "roster.check_assessor(",
    # `pool -a NAME` and the imports create assessors on purpose, through the roster
    "campaign/pooling/assign.py": "get_or_create_assessor(",
    "campaign/pooling/build.py": "get_or_create_assessor(",
    "campaign/pooling/validation.py": "get_or_create_assessor(",
    "campaign/catalog/importing.py": "get_or_create_assessor(",
    "campaign/answers/pooling.py": "get_or_create_assessor(",
    "campaign/answers/importing.py": "get_or_create_assessor(",
}


@pytest.mark.parametrize("path", sorted(ENTRY_POINTS))
def test_every_entry_point_asks_the_roster(path):
    source = (PACKAGE / path).read_text(encoding="utf-8")
    assert ENTRY_POINTS[path] in source
    assert "difflib" not in source  # no suggestion of its own


def test_the_store_spells_the_assessor_kinds_once():
    """The five `"human"` literals of store/ (issue 36 #2) use the constant."""
    rx = re.compile(r"[\"']human[\"']")
    writers = {p.name for p in (PACKAGE / "store").glob("*.py") if rx.search(p.read_text(encoding="utf-8"))}
    assert writers == {"kinds.py"}


# Blindness: one module decides what each audience sees (assessors/visibility.py); the
# places that decided alone before now ask it.
ASKS_VISIBILITY = (
    "campaign/scoring/live.py", "campaign/judging/session.py", "campaign/answers/assessing.py",
    "campaign/agreement/calibration.py", "tui/app.py", "tui/screens/judge_scores.py",
    "tui/screens/judge_actions.py", "tui/widgets/document_view.py", "tui/widgets/pool_list.py",
    "cli/queue_cmd.py", "cli/tui_cmd.py", "cli/served_app.py",
)


@pytest.mark.parametrize("path", ASKS_VISIBILITY)
def test_blindness_is_asked_of_one_module(path):
    source = (PACKAGE / path).read_text(encoding="utf-8")
    assert "visibility" in source, path


def test_blindness_is_decided_in_one_module():
    # the hidden-repeat rule and the list's labels, the status line, the blind test itself
    assert _writers(r"it\.repeat and not it\.judged") == {"campaign/assessors/visibility.py"}
    assert _writers(r"\"not judged yet\"") == {"campaign/assessors/visibility.py"}
    assert _writers(r"\bis_blind\(") <= {"campaign/settings.py", "campaign/assessors/visibility.py"}
    assert _writers(r"if (not )?(self\.|screen\.)?blind( and|:)") == set()


def test_visibility_per_audience():
    from workbench.campaign.assessors import visibility as v

    for audience in v.ASSESSORS:
        assert v.shown_fields(audience, v.LABEL) == ()
        assert set(v.shown_fields(audience, v.ITEM)).isdisjoint(
            {"system", "rank", "score", "repeat", "validation", "stratum", "probability"})
        assert v.shown_fields(audience, v.GRADE) == ("own_grade", "own_note", "own_cant_judge")
        assert not v.lead_screens(audience) and not v.scores_shown(audience, blind=True)
        assert v.scores_shown(audience, blind=False)
    assert v.shown_fields(v.LEAD, v.LABEL) == v.FIELDS[v.LABEL] and v.lead_screens(v.LEAD)
    with pytest.raises(ValueError):
        v.only_shown(v.BROWSER, v.ITEM, {"novel_field": 1})  # decided here first


def test_one_lease_policy():
    """The judging lease has one owner (assessors/lease.py) and one policy, take-over, for
    the terminal, the browser and `grade` (issue 36 #4): the server refuses no second
    browser, and the session and `grade` hold their lease through it."""
    assert _writers(r"\btake_lease\(|\blease_of\(") <= {"campaign/assessors/lease.py", "store/judging_sessions.py"}
    assert _writers(r"f\"(another judging session for|took over) \{") <= {"campaign/assessors/lease.py"}
    assert "HTTPConflict" not in (PACKAGE / "serve/server.py").read_text(encoding="utf-8")
    assert "JudgingLease(" in (PACKAGE / "campaign/judging/session.py").read_text(encoding="utf-8")
    assert "CommandLease(" in (PACKAGE / "cli/grade_cmd.py").read_text(encoding="utf-8")
