"""`workbench calibrate`: where a machine assessor's labels can be trusted.

    workbench calibrate --machine NAME [--against majority|ASSESSOR] [-m MEASURE]
                        [--seed S] [--format table|json] [--db URL]

The numbers come from `campaign.agreement.calibration` (the lead's calibration screen
shows the same lines); `--format json` is a contract (docs/architecture.md#command-line-contract),
documented in docs/json-outputs.md.
"""

from __future__ import annotations

import json

import click

from workbench.cli import db_option, resolve_db, rich_console
from workbench.defaults import CALIBRATE_MEASURE, CALIBRATE_NUGGETS_MEASURE
from workbench.formats.numbers import number


@click.command("calibrate")
@click.option("--machine", required=True, metavar="NAME", help="The machine assessor to calibrate.")
@click.option("--against", default="majority", show_default=True, metavar="majority|ASSESSOR",
              help="The reference: the people's majority (or mean, adjudicated), or one assessor.")
@click.option("-m", "--measure", default=None, metavar="MEASURE",
              help=f"The measure the system rankings are compared on (default: {CALIBRATE_MEASURE}; "
                   f"{CALIBRATE_NUGGETS_MEASURE} with --nuggets).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap intervals.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.option("--plot", "plot", default=None, metavar="FILE",
              help="Also draw the confusion matrix to FILE (.png, .svg or .pdf).")
@click.option("--nuggets", is_flag=True,
              help="Calibrate the machine's nugget assignments (-m: a nugget score).")
@db_option
@click.pass_context
def calibrate(ctx, machine, against, measure, seed, fmt, plot, nuggets, db) -> None:
    """Agreement of a machine assessor with people on the items both judged (Cohen's kappa
    binary and linear-weighted with 95% CIs, confusion matrix, precision and recall per
    grade, leniency, kappa per query), and the system rankings under human, machine and
    hybrid qrels (Kendall tau-b, tau_AP, RBO with bootstrap CIs; top 3 and top 10)."""
    if nuggets:
        from workbench.campaign.answers.calibration import calibrate_nuggets
        from workbench.campaign.database import Database

        database = Database.open(resolve_db(ctx, db), create=False)
        try:
            report = calibrate_nuggets(database, machine, against,
                                       measure or CALIBRATE_NUGGETS_MEASURE, seed=seed)
        finally:
            database.close()
        click.echo(_json_text(report) if fmt == "json" else _nugget_lines(report))
        return
    from workbench.campaign.agreement.calibration import calibrate as run
    from workbench.campaign.database import Database

    from workbench.campaign.plotting import check

    check(plot)
    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        report = run(database, machine, against, measure, seed=seed)
    finally:
        database.close()
    if plot is not None:
        from workbench.campaign.plotting import plot_calibration

        plot_calibration(plot, report)
    if fmt == "json":
        click.echo(json.dumps(report.to_json(), indent=2))
        return
    from rich.text import Text

    from workbench.visible import visible

    console = rich_console(soft_wrap=True)  # names are data: Text, never markup
    for text, style in report.lines():
        console.print(Text(visible(text), style=style or ""))


def _nugget_lines(report: dict) -> str:
    """The table output of `calibrate --nuggets`: one line per figure."""
    ns, st, rk = report["non_strict"], report["strict"], report["rankings"]
    lines = [f"{report['machine']} against {report['against']}: {report['items']} nugget labels in common",
             f"  kappa non-strict (support or partial vs not): {number(ns['kappa_binary'])}",
             f"  kappa strict (support vs the rest): {number(st['kappa_binary'])}",
             f"  weighted kappa (3 labels): {number(ns['kappa_weighted'])}   leniency: {number(ns['leniency'])}",
             f"  rankings by {rk['measure']} over {rk['topics']} topics, {rk['systems']} runs:"]
    for name in ("human_vs_machine", "human_vs_hybrid"):
        r = rk[name]
        lines.append(f"    {name}: tau-b {number(r['tau_b'])}, tau_AP {number(r['tau_ap'])}, RBO {number(r['rbo'])}, "
                     f"top 3 same: {r['top3_same']}, top 10 same: {r['top10_same']}")
    return "\n".join(lines)


def _json_text(report: dict) -> str:
    import json as _json

    return _json.dumps(report, indent=2)
