"""`workbench meta`: judge the judges against a truth leaderboard.

    workbench meta --truth SRC --judge SRC [--judge SRC ...] -m MEASURE
                   [--correlation LIST] [--per-topic] [--resamples N] [--seed S]
                   [--on-missing zero|drop] [--format table|json] [--db URL]

A source is anything `--source` takes (majority, mean, adjudicated, assessor:NAME,
hybrid:MACHINE) or leaderboard:NAME (`workbench import leaderboard`). The numbers come from
`campaign.comparison.meta`; `--format json` is documented in docs/json-outputs.md.
"""

from __future__ import annotations

import json
import math

import click

from workbench.cli import db_option, resolve_db, rich_console
from workbench.formats.numbers import number


@click.command("meta")
@click.option("--truth", required=True, metavar="SRC", help="The reference leaderboard's source.")
@click.option("--judge", "judges", multiple=True, required=True, metavar="SRC",
              help="A judge's source (repeatable).")
@click.option("-m", "--measure", required=True, metavar="MEASURE", help="The measure systems are ranked by.")
@click.option("--correlation", "correlations", default=None, metavar="LIST",
              help="Comma-separated: kendall_tau_b, spearman, pearson, tau_ap, tau_gap, kendall_tau_b@K, rbo "
                   "(kendall and kendall@K too; default all, with K = 10).")
@click.option("--per-topic", is_flag=True, help="Also correlations per topic and Bland–Altman on per-topic scores.")
@click.option("-n", "--resamples", type=click.IntRange(min=0), default=1000, show_default=True, metavar="N",
              help="Bootstrap resamples of the topics (0: no intervals).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@click.option("--on-missing", type=click.Choice(["zero", "drop"]), default=None,
              help="A system one side lacks: score it 0 there, or leave it out (default: refuse).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@db_option
@click.pass_context
def meta(ctx, truth, judges, measure, correlations, per_topic, resamples, seed, on_missing, fmt, db) -> None:
    """How closely each judge ranks systems as the truth does: Kendall tau-b, Spearman,
    Pearson, tau_AP-b, tau_GAP, Kendall on the truth's top k and RBO with bootstrap
    intervals over topics; for each pair of judges the difference with its paired
    interval and Holm-adjusted p; Bland–Altman bias, limits and slope."""
    from workbench.campaign.comparison.meta import meta as run
    from workbench.campaign.database import Database

    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        report = run(database, truth, list(judges), measure, correlations=correlations,
                     resamples=resamples, seed=seed, on_missing=on_missing, per_topic=per_topic)
    finally:
        database.close()
    if fmt == "json":
        click.echo(json.dumps(report.to_json(), indent=2))
        return
    _table(report)


def _f(x) -> str:
    return number(x, missing="–")


def _ci(v) -> str:
    return "" if v is None or any(math.isnan(x) for x in v) else f"[{v[0]:.3f}, {v[1]:.3f}]"


def _table(report) -> None:
    from rich.table import Table
    from rich.text import Text

    from workbench.visible import visible

    console = rich_console(soft_wrap=True)
    res = report.result
    console.print(Text(visible(f"truth {report.truth}, measure {report.measure}, "
                               f"{res.resamples} resamples (seed {res.seed}), 95% percentile intervals")))
    table = Table(show_edge=False)
    table.add_column("judge")
    table.add_column("systems", justify="right")
    table.add_column("topics", justify="right")
    for c in res.correlations:
        table.add_column(c, justify="right")
    table.add_column("bias", justify="right")
    table.add_column("limits", justify="right")
    table.add_column("slope", justify="right")
    for j in res.judges:
        cells = [Text(visible(j.judge)), str(j.systems), str(j.topics)]
        cells += [Text(f"{_f(j.correlations[c])} {_ci(j.intervals[c])}".strip()) for c in res.correlations]
        ba = j.bland_altman
        cells += [_f(ba["bias"]), _ci(ba["limits"]), _f(ba["slope"])]
        table.add_row(*cells)
    console.print(table)
    if res.pairs:
        pairs = Table(show_edge=False, title="differences (a - b), paired bootstrap, Holm over pairs")
        for name in ("a", "b", "correlation", "difference", "interval", "p_holm"):
            pairs.add_column(name, justify="right" if name in ("difference", "p_holm") else "left")
        for p in res.pairs:
            pairs.add_row(Text(visible(p.a)), Text(visible(p.b)), p.correlation, _f(p.difference),
                          _ci(p.difference_ci), _f(p.p_holm))
        console.print(pairs)
        for p in res.pairs:
            if p.sentence:
                console.print(Text(visible(p.sentence)))
    for w in report.warnings:
        console.print(Text(visible(f"warning: {w}"), style="yellow"))
