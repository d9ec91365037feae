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
    "unknown assessor message": (r"unknown assessor", "campaign/catalog/known.py"),
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
