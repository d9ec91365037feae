"""The campaign's relevance scale: shown, or set before the first grade.

A scale is written `0=Not relevant,1=Related,2=Relevant,3=Highly relevant` (grades are
whole numbers from 0, at most 0-9: one judging key each; labels free text without `,`
or `=`), or named: `binary` (0 Not relevant, 1 Relevant), `0-3` (the default four levels:
DEFAULT_PRESET, which a new database's first migration writes and the screens fall back on)
or `0-4` (five). The scale cannot change once a grade exists: the grades already given
would change meaning.

"Is this grade on the scale?" has one owner, here: every write of a grade (judging, `grade`,
adjudication, `import qrels`) checks it with `check_grade` or `off_scale`, and the screens
ask `on_scale` before they write, all with one message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from workbench.campaign.database import Database
from workbench.campaign.writing import write_transaction
from workbench.errors import InputError, UsageError

if TYPE_CHECKING:
    from workbench.store.database import Session


@dataclass(frozen=True)
class ScaleEntry:
    """One level of the campaign's scale, as screens and prompts show it."""

    grade: int
    label: str
    description: str = ""


MAX_LEVELS = 10  # grades 0-9: the judging keys
_GRADE = re.compile("[0-9]+")

PRESETS = {
    "binary": "0=Not relevant,1=Relevant",
    "0-3": "0=Not relevant,1=Marginally relevant,2=Relevant,3=Highly relevant",
    "0-4": "0=Not relevant,1=Marginally relevant,2=Relevant,3=Highly relevant,4=Perfect",
}
# The scale of a new campaign. migrations/versions/0001 writes it (with a description per
# level) as a literal, history that never changes: tests/test_one_owner.py checks the two agree.
DEFAULT_PRESET = "0-3"


def default_scale() -> list[ScaleEntry]:
    """The default preset's levels: what a screen shows when the campaign has no scale rows."""
    return [ScaleEntry(g, label) for g, label, _ in parse_scale(DEFAULT_PRESET)]


def scale_grades(session: Session) -> list[int]:
    """The grades on the campaign scale, ascending."""
    from workbench.store.scale_levels import scale_grades as stored

    return stored(session).tolist()


def not_on_scale(grade: int, allowed: Iterable[int]) -> str:
    """The one message for a grade off the scale."""
    return f"grade {grade} is not on the campaign scale ({', '.join(str(g) for g in allowed)})"


def on_scale(grade: int, allowed: Iterable[int]) -> bool:
    """Whether a screen may write `grade`: on the scale, or any grade when the screen has no
    scale to check (the write checks again)."""
    allowed = list(allowed)
    return not allowed or grade in allowed


def off_scale(grades: np.ndarray, allowed: Iterable[int], *, unjudged: bool = False) -> np.ndarray:
    """Indices of the grades that are not on the scale (an import checks every row).

    unjudged: a negative grade passes (`import qrels`: a qrels file's negative grade is
    trec_eval's "in the pool, unjudged", stored as written; see `is_unjudged`)."""
    grades = np.asarray(grades, dtype=np.int64)
    bad = ~np.isin(grades, list(allowed))
    if unjudged:
        bad &= ~is_unjudged(grades)
    return np.flatnonzero(bad)


def is_unjudged(grades: np.ndarray) -> np.ndarray:
    """Where a stored grade is negative: a qrels file's "in the pool, unjudged" (trec_eval's
    reading). Only `import qrels` writes one; the qrels sources and the exports keep it as
    written (the measures read it as trec_eval does), and nothing else counts it as a grade:
    no consensus vote, no agreement figure, no progress (the store's readers leave it out
    unless asked, store/judgment_arrays.py `GRADED`)."""
    return np.asarray(grades) < 0


def check_grade(session: Session, grade: int | None) -> None:
    """InputError unless `grade` is on the campaign scale (None, a clear, always passes)."""
    if grade is None:
        return
    allowed = scale_grades(session)
    if grade not in allowed:
        raise InputError("grade", None, not_on_scale(grade, allowed))


def parse_scale(spec: str) -> list[tuple[int, str, str]]:
    """(grade, label, "") levels from a spec or a preset name; UsageError when malformed."""
    text = PRESETS.get(spec.strip(), spec)
    levels = []
    for part in (p.strip() for p in text.split(",")):
        grade, sep, label = part.partition("=")
        # ASCII digits only: str.isdigit() also takes "²", which int() then refused with a
        # traceback
        if not sep or not _GRADE.fullmatch(grade.strip()) or not label.strip():
            raise UsageError(
                f"bad scale level {part!r}: write GRADE=LABEL, e.g. "
                f"\"0=Not relevant,1=Relevant\" (or one of {', '.join(PRESETS)})"
            )
        levels.append((int(grade), label.strip(), ""))
    grades = [g for g, _, _ in levels]
    if len(set(grades)) != len(grades):
        raise UsageError(f"a grade is given twice in the scale {spec!r}")
    if sorted(grades) != list(range(len(grades))):
        raise UsageError(f"scale grades must be 0, 1, 2 ... without gaps; got {sorted(grades)}")
    if len(levels) < 2:
        raise UsageError("a scale needs at least two levels")
    if len(levels) > MAX_LEVELS:
        # the judging screen grades with the keys 0-9: an 11th level could not be given
        raise UsageError(f"a scale has at most {MAX_LEVELS} levels (0-9, one judging key each); "
                         f"got {len(levels)}")
    return sorted(levels)


def show_scale(db: Database) -> list[tuple[int, str, str]]:
    from workbench.store.scale_levels import scale_levels

    with db.read() as s:
        levels = scale_levels(s)
    return list(zip(levels.grades.tolist(), levels.labels, levels.descriptions))


def set_scale(db: Database, spec: str) -> list[tuple[int, str, str]]:
    """Replace the scale (refused once any grade exists); the new levels."""
    from workbench.store.scale_levels import any_grade_given, replace_scale

    levels = parse_scale(spec)
    with write_transaction(db) as s:
        if any_grade_given(s):
            raise UsageError("the scale cannot change: grades have been given on it already")
        replace_scale(s, levels)
    return levels
