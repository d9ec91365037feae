"""`workbench agree`: agreement between assessors, from the database or from qrels files.

    workbench agree [--db URL] [--assessor NAME ...] [--binary] [-l N] [-q] [--format F]
    workbench agree --qrels a.txt b.txt [c.txt ...] [--binary] [-l N] [-q] [--format F]

Formats: `table` (rich, with a reading next to each coefficient), `csv` (one row per
coefficient: query,a,b,n,coefficient,value,interpretation; empty query = all queries,
empty a/b = all assessors) and `json` (docs/architecture.md#command-line-contract).
"""

from __future__ import annotations

import json
import math
import sys

import click

from workbench.cli import db_option, resolve_db
from workbench.formats.agreement_csv import write_agreement_csv
from workbench.formats.numbers import number

FORMATS = click.Choice(["table", "csv", "json"])


@click.command("agree")
@click.option("--qrels", "qrels_mode", is_flag=True,
              help="Compare qrels FILES (one assessor per file) instead of the database.")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--assessor", "-a", "assessors", multiple=True, metavar="NAME",
              help="Only these assessors (repeatable; default: all).")
@click.option("--binary", is_flag=True, help="Binarise grades at the threshold first.")
@click.option("-l", "--level", "level", type=int, default=None, metavar="N",
              help="Relevance threshold for --binary: grade >= N is relevant "
                   "(default: the campaign's; 1 for files).")
@click.option("-q", "--per-query", "per_query", is_flag=True, help="Per-query breakdown too.")
@click.option("--confusion", is_flag=True, help="Each pair's confusion matrix too.")
@click.option("--machines", is_flag=True,
              help="The judges against each other: every machine assessor, every panel (panel:NAME) "
                   "and the people's majority (consensus:majority) as the assessors.")
@click.option("--format", "fmt", type=FORMATS, default="table", show_default=True)
@click.option("--nuggets", is_flag=True, help="Agreement on nugget assignments (docs/nuggets.md#agreement).")
@db_option
@click.pass_context
def agree(ctx, qrels_mode, files, assessors, binary, level, per_query, confusion, machines, fmt,
          nuggets, db):
    """Agreement between assessors: P(A), Cohen's, pooled and weighted kappa per pair;
    Fleiss' kappa and Krippendorff's alpha over all. Kappa in [2/3, 1] reads as acceptable,
    below it as a methodology problem (reference notes)."""
    if nuggets:
        from workbench.cli.nugget_agree import agree_nuggets

        agree_nuggets(ctx, db, list(assessors) or None, per_query, fmt)
        return
    if qrels_mode and not files:
        raise click.UsageError("--qrels needs two or more qrels files")
    if machines and (files or assessors):
        raise click.UsageError("--machines compares every machine, panel and the people's majority: "
                               "without --assessor or files")
    if machines:
        from workbench.campaign.agreement.machines import agreement_of_machines
        from workbench.campaign.database import Database

        database = Database.open(resolve_db(ctx, db), create=False)
        try:
            report = agreement_of_machines(database, binary=binary, threshold=level, per_query=per_query)
        finally:
            database.close()
    elif files:
        if assessors:
            raise click.UsageError("--assessor applies to the database, not to qrels files")
        if len(files) < 2:
            raise click.UsageError("agreement needs two or more qrels files")
        from workbench.campaign.agreement.report import agreement_from_qrels_files

        report = agreement_from_qrels_files(
            files, binary=binary, threshold=1 if level is None else level, per_query=per_query
        )
    else:
        from workbench.campaign.agreement.report import agreement_from_db
        from workbench.campaign.database import Database

        database = Database.open(resolve_db(ctx, db), create=False)
        try:
            report = agreement_from_db(
                database, list(assessors) or None, binary=binary, threshold=level,
                per_query=per_query,
            )
        finally:
            database.close()
    if fmt == "json":
        click.echo(json.dumps(report.to_json(confusion=confusion), indent=2))
    elif fmt == "csv":
        write_agreement_csv(sys.stdout, [("", report)], confusion)
    else:
        _print_table(report, confusion)


def _fmt(value: float) -> str:
    return number(value)


def _reading(value: float) -> str:
    from workbench.metrics.agreement import reading

    return reading(value)


def _interval(pair) -> str:
    if pair is None or any(v is None or math.isnan(v) for v in pair):
        return "—"
    return f"[{pair[0]:.3f}, {pair[1]:.3f}]"


def _print_table(report, confusion: bool = False) -> None:
    from rich import box
    from workbench.cli import rich_console
    from rich.table import Table
    from rich.text import Text

    console = rich_console()
    if not console.is_terminal:  # piped: no width to fit; never cut a reading short
        console.width = 200
    title = "Agreement between assessors"
    if report.binary:
        title += f" (binary: grade >= {report.threshold} relevant)"
    pairs = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("a", "b", "n", "P(A)", "κ Cohen", "95% CI", "κ pooled", "κw linear", "κw quadr.", "reading"):
        pairs.add_column(col, justify="left" if col in ("a", "b", "reading") else "right",
                         min_width=31 if col == "reading" else None, no_wrap=col == "reading")
    cis = report.ci.get("cohen_kappa", [None] * len(report.pairs))
    for k, (p, interval) in enumerate(zip(report.pairs, cis)):
        s = p.stats
        undefined = k in report.undefined_pairs  # both raters constant (degenerate.py)

        def kappa(v: float) -> str:
            return _fmt(math.nan if undefined else v)

        pairs.add_row(
            Text(p.a), Text(p.b), str(s.n), _fmt(s.observed), kappa(s.cohen_kappa), _interval(interval),
            kappa(s.pooled_kappa), kappa(s.weighted_kappa_linear),
            kappa(s.weighted_kappa_quadratic), _reading(math.nan if undefined else s.cohen_kappa),
        )
    console.print(pairs)
    if confusion:
        for p in report.pairs:
            console.print(Text(f"Confusion: {p.a} (rows) x {p.b} (columns)", style="italic"))
            matrix = Table(box=box.SIMPLE_HEAD, pad_edge=False)
            matrix.add_column("grade", justify="right")
            for g in p.categories:
                matrix.add_column(str(g), justify="right")
            for g, row in zip(p.categories, p.confusion):
                matrix.add_row(str(g), *(str(v) for v in row))
            console.print(matrix)

    overall = Table(title=f"All assessors ({report.n_items} items graded by two or more)",
                    title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    overall.add_column("coefficient")
    overall.add_column("value", justify="right")
    overall.add_column("95% CI", justify="right")
    overall.add_column("reading")
    for name, key, value in (
        ("Fleiss' kappa", "fleiss_kappa", report.fleiss_kappa),
        ("Krippendorff's alpha (nominal)", "krippendorff_alpha_nominal", report.alpha_nominal),
        ("Krippendorff's alpha (ordinal)", "krippendorff_alpha_ordinal", report.alpha_ordinal),
        ("Krippendorff's alpha (interval)", "krippendorff_alpha_interval", report.alpha_interval),
    ):
        overall.add_row(name, _fmt(value), _interval(report.ci.get(key)), _reading(value))
    console.print(overall)
    if report.self_consistency:
        own = Table(title="Self-consistency (repeats against the own earlier grade)",
                    title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("assessor", "n", "P(A)", "κ Cohen", "reading"):
            own.add_column(col, justify="left" if col in ("assessor", "reading") else "right")
        for r in report.self_consistency:
            own.add_row(Text(r.assessor), str(r.n), _fmt(r.observed), _fmt(r.cohen_kappa),
                        _reading(r.cohen_kappa))
        console.print(own)
    for warning in report.warnings():
        console.print(Text(f"warning: {warning}", style="yellow"))

    if report.per_query:
        per_q = Table(title="Per query", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("query", "items", "P(A)", "kappa (Fleiss)", "alpha (nominal)", "reading"):
            per_q.add_column(col, justify="left" if col in ("query", "reading") else "right")
        for q in report.per_query:
            per_q.add_row(Text(str(q.query)), str(q.n_items), _fmt(q.observed),
                          _fmt(q.fleiss_kappa), _fmt(q.alpha_nominal), _reading(q.fleiss_kappa))
        console.print(per_q)
    console.print(Text("Reading: kappa/alpha in [2/3, 1] acceptable with its Landis & Koch (1977) "
                       "band, below that a methodology problem (docs/agreement.md). "
                       "P(E) and every coefficient: --format csv.", style="dim"))
