"""The quick calculator on typed text: grades in rank order in, `workbench quick`'s summary
(DCG in every formulation, NDCG, AP, P/R...) and the per-rank table out."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.errors import InputError


@dataclass(frozen=True)
class QuickResult:
    grades: tuple[int, ...]
    summary: object  # metrics.graded.QuickSummary
    table: object  # metrics.graded.RankTable of the chosen formulation
    formulations: tuple  # every formulation in summary.dcg, in display order


def parse_grades(text: str, where: str = "grades") -> list[int]:
    """Grades in rank order: integers separated by spaces, commas or newlines; or a pasted
    ranked list of two or more lines, one document per line, whose LAST field is its grade
    ("d12 2", "101 0 d12 2"). `#` starts a comment. InputError names the line and the bad
    token (a typo such as "3 x 2" on one line is an error, never a silent guess)."""
    lines = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        tokens = line.split("#", 1)[0].replace(",", " ").replace(";", " ").split()
        if tokens:
            lines.append((lineno, tokens))
    ranked = len(lines) >= 2 and all(
        len(t) >= 2 and _is_int(t[-1]) and not all(map(_is_int, t)) for _, t in lines
    )
    if ranked:
        return [int(t[-1]) for _, t in lines]
    out = []
    for lineno, tokens in lines:
        for token in tokens:
            if not _is_int(token):
                raise InputError(where, lineno, f"{token!r} is not an integer grade "
                                 "(give grades, or one 'document grade' per line)")
            out.append(int(token))
    if not out:
        raise InputError(where, None, "type some grades, e.g. 3 2 3 0 1 2")
    return out


def _is_int(token: str) -> bool:
    try:
        int(token)
    except ValueError:
        return False
    return True


def quick_score(
    text: str,
    *,
    k: int | None = None,
    rel_level: int = 1,
    num_rel: int | None = None,
    gain: str = "linear",
    discount: str = "log2",
    base: float = 2.0,
) -> QuickResult:
    """`workbench quick` on typed text: InputError for anything a user can get wrong."""
    from workbench.metrics.graded import FORMULATIONS, Formulation, quick_summary, rank_table

    grades = parse_grades(text)
    chosen = Formulation(gain, discount, base)
    formulations = list(FORMULATIONS) + ([chosen] if chosen not in FORMULATIONS else [])
    try:
        summary = quick_summary(grades, k=k, rel_level=rel_level, num_rel=num_rel,
                                formulations=formulations)
    except ValueError as exc:
        raise InputError("grades", None, str(exc)) from None
    return QuickResult(tuple(grades), summary, rank_table(grades, chosen), tuple(formulations))
