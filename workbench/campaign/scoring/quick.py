"""The quick calculator, the one owner of its rules for `workbench quick` and the TUI's F6:
typed text in (one parser), the summary at depth k (DCG in every formulation, NDCG, P, AP,
RR: one computation, metrics.graded) and the per-rank table out."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.errors import InputError, UsageError, WorkbenchError

if TYPE_CHECKING:
    from workbench.metrics.graded import Formulation, QuickSummary, RankTable

# Exponential gain is 2^g - 1: past this, a float64 gain overflows to infinity.
MAX_GRADE = 1000
# k and R size the ideal list that is built in memory.
MAX_DEPTH = 10_000_000


@dataclass(frozen=True)
class QuickResult:
    grades: tuple[int, ...]
    summary: QuickSummary
    table: RankTable  # of the chosen formulation
    formulations: tuple[Formulation, ...]  # every formulation in summary.dcg, in display order


def parse_grades(text: str, where: str | None = "grades") -> list[int]:
    """Grades in rank order: integers separated by spaces, commas or newlines; or a pasted
    ranked list of two or more lines, one document per line, whose LAST field is its grade
    ("d12 2", "101 0 d12 2"). `#` starts a comment. InputError names `where`, the line and
    the bad token (a typo such as "3 x 2" on one line is an error, never a silent guess);
    with `where` None (command-line arguments: no lines) the error is the reason alone.
    A grade is at most MAX_GRADE either way."""
    lines = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        tokens = line.split("#", 1)[0].replace(",", " ").replace(";", " ").split()
        if tokens:
            lines.append((lineno, tokens))
    ranked = len(lines) >= 2 and all(
        len(t) >= 2 and _is_int(t[-1]) and not all(map(_is_int, t)) for _, t in lines
    )
    fields = [(lineno, t[-1:] if ranked else t) for lineno, t in lines]
    out = []
    for lineno, tokens in fields:
        for token in tokens:
            if not _is_int(token):
                hint = "" if where is None else " (give grades, or one 'document grade' per line)"
                _bad(where, lineno, f"grade {token!r} is not an integer{hint}")
            if abs(int(token)) > MAX_GRADE:
                _bad(where, lineno, f"grade {token} is out of range (at most {MAX_GRADE} either way)")
            out.append(int(token))
    if not out:
        _bad(where, None, "type some grades, e.g. 3 2 3 0 1 2")
    return out


def _bad(where: str | None, line: int | None, reason: str) -> None:
    if where is None:
        raise WorkbenchError(reason)
    raise InputError(where, line, reason)


def _is_int(token: str) -> bool:
    try:
        int(token)
    except ValueError:
        return False
    return True


def parse_base(text: str) -> float:
    """The base of the Järvelin–Kekäläinen discount: a number > 1 or 'e'."""
    if text.strip().lower() == "e":
        return math.e
    try:
        b = float(text)
    except ValueError:
        raise UsageError(f"--base must be a number or 'e', got {text!r}") from None
    if b <= 1:
        raise UsageError("--base must be greater than 1")
    return b


def quick_score(
    text: str,
    *,
    where: str | None = "grades",
    k: int | None = None,
    rel_level: int = 1,
    num_rel: int | None = None,
    judged: tuple[int, ...] | None = None,
    gain: str = "linear",
    discount: str = "log2",
    base: float = 2.0,
) -> QuickResult:
    """The calculator on typed text: InputError for bad grades, UsageError for a bad k or R.

    `judged`: the grades of every judged document of the query when the text is a system's
    ranked list; R and the ideal ordering then come from them, as in the scoreboard."""
    from workbench.metrics.graded import FORMULATIONS, Formulation, quick_summary, rank_table

    grades = parse_grades(text, where)
    if k is not None and not 1 <= k <= MAX_DEPTH:
        raise UsageError(f"k must be between 1 and {MAX_DEPTH}")
    if num_rel is not None and not 0 <= num_rel <= MAX_DEPTH:
        raise UsageError(f"R must be between 0 and {MAX_DEPTH}")
    chosen = Formulation("exp" if gain in ("exp", "exponential") else "linear", discount, base)
    formulations = list(FORMULATIONS) + ([chosen] if chosen not in FORMULATIONS else [])
    try:
        summary = quick_summary(grades, k=k, rel_level=rel_level, num_rel=num_rel,
                                formulations=formulations, judged=judged)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return QuickResult(tuple(grades), summary, rank_table(grades, chosen, judged),
                       tuple(formulations))


def at_k_label(result: QuickResult, name: str) -> str:
    """`AP` when the summary covers the whole list, `AP@3` when it is cut at k."""
    k = result.summary.k
    return name if k >= len(result.grades) else f"{name}@{k}"
