"""`workbench quick 3 2 3 0 1 2`: the per-query calculator (DESIGN §3, §6).

Prints a table per rank (grade, gain, discount, DCG so far, ideal grade, ideal DCG so
far) for the chosen formulation and a summary: CG, DCG/IDCG/nDCG under every formulation,
P@k, AP and RR at the relevance threshold. Grades come from the arguments, or from
standard input (whitespace separated) when none are given or the only one is ``-``.
"""

from __future__ import annotations

import math
import sys

import click

from workbench.errors import InputError, UsageError, WorkbenchError

# Exponential gain is 2^g - 1: past this, a float64 gain overflows to infinity.
MAX_GRADE = 1000
# --k and --num-rel size the ideal list that is built in memory.
MAX_DEPTH = 10_000_000
# The per-rank table shows this many ranks at most; the summary covers every grade. Rich laid
# out 10 000 rows in 5.6 s, and 2 000 000 ran past 11 minutes and 7.5 GB (issue 27 #19).
SHOWN_RANKS = 1000


def _grade(token: str) -> int:
    """One grade, or why not. Grades are data: a bad one exits 1, not as a usage error."""
    try:
        value = int(token)
    except ValueError:
        raise ValueError(f"grade {token!r} is not an integer") from None
    if abs(value) > MAX_GRADE:
        raise ValueError(f"grade {token} is out of range (at most {MAX_GRADE} either way)")
    return value


def _grades_from_args(values: tuple[str, ...]) -> list[int]:
    out = []
    for v in values:
        try:
            out.append(_grade(v))
        except ValueError as exc:
            raise WorkbenchError(str(exc)) from None
    return out


def _grades_from_stdin(stream) -> list[int]:
    out = []
    for lineno, line in enumerate(stream, start=1):
        for tok in line.split():
            if tok.startswith("#"):
                break
            try:
                out.append(_grade(tok))
            except ValueError as exc:
                raise InputError("<stdin>", lineno, str(exc)) from None
    return out


def _base(text: str) -> float:
    if text.strip().lower() == "e":
        return math.e
    try:
        b = float(text)
    except ValueError:
        raise UsageError(f"--base must be a number or 'e', got {text!r}") from None
    if b <= 1:
        raise UsageError("--base must be greater than 1")
    return b


@click.command(name="quick")
@click.argument("grades", nargs=-1)
@click.option("--k", "k", type=click.IntRange(min=1, max=MAX_DEPTH), default=None,
              help="Depth k of the summary (default: the number of grades).")
@click.option("--gain", type=click.Choice(["linear", "exponential", "exp"]), default="linear",
              show_default=True, help="Gain of the per-rank table: g or 2^g - 1.")
@click.option("--discount", type=click.Choice(["log2", "jk"]), default="log2", show_default=True,
              help="Discount of the per-rank table: log2(i+1), or Järvelin–Kekäläinen log_b(i).")
@click.option("--base", "base_text", default="2", show_default=True,
              help="Base b of the Järvelin–Kekäläinen discount (a number or 'e').")
@click.option("-l", "rel_level", type=int, default=1, show_default=True,
              help="Relevance threshold for P@k, AP and RR.")
@click.option("--num-rel", type=click.IntRange(min=0, max=MAX_DEPTH), default=None,
              help="Relevant documents that exist for the query (default: those in the list).")
def quick(grades, k, gain, discount, base_text, rel_level, num_rel) -> None:
    """Score one ranked list of GRADES (rank 1 first): DCG/nDCG/AP/RR at a glance."""
    from workbench.cli import rich_console
    from rich.table import Table
    from rich.text import Text

    from workbench.metrics.graded import FORMULATIONS, Formulation, quick_summary, rank_table

    if not grades or list(grades) == ["-"]:
        values = _grades_from_stdin(sys.stdin)
    else:
        values = _grades_from_args(grades)
    if not values:
        raise UsageError("no grades given (pass them as arguments or on standard input)")
    base = _base(base_text)
    chosen = Formulation("exp" if gain in ("exp", "exponential") else "linear", discount, base)
    formulations = list(FORMULATIONS)
    if chosen not in formulations:
        formulations.append(chosen)
    try:
        summary = quick_summary(values, k=k, rel_level=rel_level, num_rel=num_rel,
                                formulations=formulations)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    table = rank_table(values, chosen)
    console = rich_console()
    t = Table(title=Text(f"Per rank ({chosen.name})"))
    for col in ("rank", "grade", "gain", "discount", "DCG so far", "ideal grade", "IDCG so far"):
        t.add_column(col, justify="right")
    shown = min(len(values), max(SHOWN_RANKS, 0))
    for i in range(shown):
        t.add_row(
            str(i + 1), str(int(table.grade[i])), f"{table.gain[i]:g}", f"{table.discount[i]:.3f}",
            f"{table.dcg[i]:.3f}", str(int(table.ideal_grade[i])), f"{table.idcg[i]:.3f}",
            end_section=(i + 1 == summary.k and summary.k < len(values)),
        )
    console.print(t)
    if shown < len(values):
        console.print(Text(f"ranks {shown + 1}-{len(values)} not shown; the summary below "
                           f"covers all {len(values)} grades", style="dim"))
    s = Table(title=Text(f"Summary at k = {summary.k}"))
    s.add_column("measure")
    s.add_column("DCG", justify="right")
    s.add_column("IDCG", justify="right")
    s.add_column("nDCG", justify="right")
    for f in formulations:
        dcg, idcg, ndcg = summary.dcg[f]
        s.add_row(Text(f.name), f"{dcg:.3f}", f"{idcg:.3f}", f"{ndcg:.3f}")
    console.print(s)
    lines = [
        f"CG@{summary.k} = {summary.cg:g}",
        f"P@{summary.k} = {summary.precision:.3f}   (relevant: grade >= {summary.rel_level})",
        f"AP = {summary.ap:.3f}   (R = {summary.num_rel})",
        f"RR = {summary.rr:.3f}",
    ]
    for line in lines:
        console.print(Text(line))
