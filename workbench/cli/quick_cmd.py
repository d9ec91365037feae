"""`workbench quick 3 2 3 0 1 2`: the per-query calculator (docs/architecture.md#measure-semantics, #worked-examples).

Prints a table per rank (grade, gain, discount, DCG so far, ideal grade, ideal DCG so
far) for the chosen formulation and a summary: CG, DCG/IDCG/nDCG under every formulation,
P@k, AP and RR at the relevance threshold. Grades come from the arguments, or from
standard input (whitespace separated, or one 'document grade' per line) when none are given or the only one is ``-``.
"""

from __future__ import annotations

import sys

import click

from workbench.campaign.scoring.quick import MAX_DEPTH
from workbench.errors import UsageError

# The per-rank table shows this many ranks at most; the summary covers every grade. Rich laid
# out 10 000 rows in 5.6 s, and 2 000 000 ran past 11 minutes and 7.5 GB.
SHOWN_RANKS = 1000


@click.command(name="quick")
@click.argument("grades", nargs=-1)
@click.option("-k", "--k", "k", type=click.IntRange(min=1, max=MAX_DEPTH), default=None,
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
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True,
              help="table: the per-rank table and the summary; json: both (docs/json-outputs.md); "
                   "csv: the summary as measure,formulation,value rows.")
def quick(grades, k, gain, discount, base_text, rel_level, num_rel, fmt) -> None:
    """Score one ranked list of GRADES (rank 1 first): DCG/nDCG/AP/RR at a glance."""
    from workbench.campaign.scoring.quick import at_k_label, parse_base, quick_score

    if not grades or list(grades) == ["-"]:
        text, where = sys.stdin.read(), "<stdin>"
    else:  # arguments have no lines: an error names the grade alone
        text, where = " ".join(grades), None
    if not any(line.split("#", 1)[0].strip() for line in text.splitlines()):
        raise UsageError("no grades given (pass them as arguments or on standard input)")
    result = quick_score(text, where=where, k=k, rel_level=rel_level, num_rel=num_rel,
                         gain=gain, discount=discount, base=parse_base(base_text))
    if fmt == "json":
        _write_json(result)
        return
    if fmt == "csv":
        _write_csv(result)
        return
    from rich.table import Table
    from rich.text import Text

    from workbench.cli import rich_console

    values, summary, table, formulations = result.grades, result.summary, result.table, result.formulations
    chosen = table.formulation
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
        f"{at_k_label(result, 'AP')} = {summary.ap:.3f}   (R = {summary.num_rel})",
        f"{at_k_label(result, 'RR')} = {summary.rr:.3f}",
    ]
    for line in lines:
        console.print(Text(line))


def _formulation(f) -> dict:
    return {"name": f.name, "gain": "exponential" if f.gain == "exp" else "linear",
            "discount": f.discount, "base": f.base if f.discount == "jk" else None}


def _write_json(result) -> None:
    """docs/json-outputs.md `quick --format json`: every rank of the chosen formulation's
    table and the summary at k."""
    import json

    from workbench.campaign.scoring.quick import at_k_label
    from workbench.formats.output import json_number

    s, t = result.summary, result.table
    doc = {
        "k": s.k, "rel_level": s.rel_level, "num_rel": s.num_rel,
        "grades": list(result.grades),
        "formulation": _formulation(t.formulation),
        "ranks": [{"rank": i + 1, "grade": int(t.grade[i]), "gain": float(t.gain[i]),
                   "discount": float(t.discount[i]), "dcg": float(t.dcg[i]),
                   "ideal_grade": int(t.ideal_grade[i]), "idcg": float(t.idcg[i])}
                  for i in range(len(result.grades))],
        "summary": {
            f"CG@{s.k}": json_number(s.cg), f"P@{s.k}": json_number(s.precision),
            at_k_label(result, "AP"): json_number(s.ap), at_k_label(result, "RR"): json_number(s.rr),
        },
        "dcg": [{**_formulation(f), "dcg": json_number(s.dcg[f][0]),
                 "idcg": json_number(s.dcg[f][1]), "ndcg": json_number(s.dcg[f][2])}
                for f in result.formulations],
    }
    click.echo(json.dumps(doc, indent=2))


def _write_csv(result) -> None:
    """measure,formulation,value rows of the summary at k (formulation empty where none)."""
    from workbench.campaign.scoring.quick import at_k_label
    from workbench.formats.csv_cells import csv_writer

    s = result.summary
    w = csv_writer(sys.stdout)
    w.writerow(["measure", "formulation", "value"])
    w.writerow([f"CG@{s.k}", "", repr(float(s.cg))])
    w.writerow([f"P@{s.k}", "", repr(float(s.precision))])
    w.writerow([at_k_label(result, "AP"), "", repr(float(s.ap))])
    w.writerow([at_k_label(result, "RR"), "", repr(float(s.rr))])
    for f in result.formulations:
        for name, v in zip(("DCG", "IDCG", "nDCG"), s.dcg[f]):
            w.writerow([f"{name}@{s.k}", f.name, repr(float(v))])
