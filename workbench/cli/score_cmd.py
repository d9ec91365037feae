"""`workbench score`: every stored system against qrels derived from the stored judgments.

The numbers come from `campaign.scoring.scores.ScoreTracker`, the same code as the TUI's live
panel. `--format trec` is printed by `eval`'s own trec printer
(`formats.evaluation_output.write_trec`: trec_eval's names and layout, counts as
integers); each system's block starts with its `runid` line (trec_eval
prints one run; `score` prints every stored system).

Systems are listed best first by the first measure (ties by name), as the scoreboard
sorts them, or by `--sort MEASURE`, in every format. `--ci [t|bootstrap|ppi]` adds each
mean's 95% interval over topics (campaign/scoring/intervals.py; ppi: campaign/scoring/ppi.py).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING
import sys

import click
import numpy as np

from workbench.cli import db_option, resolve_db
from workbench.formats.numbers import interval, number

if TYPE_CHECKING:  # annotations only
    from workbench.campaign.scoring.scores import ScoreTable

FORMATS = ("trec", "table", "csv", "json", "markdown", "latex")


def _value(measure, value: float) -> str:
    return number(value, count=measure.is_count)


def _print_table(table: ScoreTable, per_query: bool, systems: list[str], intervals=None) -> None:
    from workbench.cli import rich_console
    from rich.table import Table
    from rich.text import Text

    grid = Table(title=Text(f"scores against {table.source}"), show_lines=False)
    grid.add_column("system")
    if per_query:
        grid.add_column("query")
    grid.add_column("queries", justify="right")
    for label in table.labels:
        grid.add_column(Text(label), justify="right")
        if intervals is not None:
            grid.add_column(Text(f"95% CI ({intervals.method})"), justify="right")

    def cells_of(i: int, j: int | None) -> list[str]:
        out = []
        for m in table.measures:
            out.append(_value(m, table.values[m][i, j] if j is not None else table.means[m][i]))
            if intervals is not None:
                ci = intervals.of(m, i) if j is None else None
                out.append("" if j is not None else "–" if ci is None else interval(*ci))
        return out

    for tag in systems:
        i = table.row(tag)
        if per_query:
            for j in np.flatnonzero(table.present[i]).tolist():
                grid.add_row(Text(tag), Text(table.queries[j]), "", *cells_of(i, j))
        cells = [Text(tag)] + ([Text("all")] if per_query else [])
        grid.add_row(*cells, str(int(table.n_queries[i])), *cells_of(i, None))
    rich_console().print(grid)


def _json(table: ScoreTable, per_query: bool, systems: list[str], intervals=None) -> dict:
    def values(i: int, j: int | None) -> dict:
        if j is None:
            return {label: float(table.means[m][i]) for label, m in zip(table.labels, table.measures)}
        return {label: float(table.values[m][i, j]) for label, m in zip(table.labels, table.measures)}

    def mean_ci(i: int) -> dict:
        out = {}
        for label, m in zip(table.labels, table.measures):
            ci = intervals.of(m, i)
            out[label] = None if ci is None else [float(ci[0]), float(ci[1])]
        return {"mean_ci": out}

    data = {
        "source": table.source,
        "measures": list(table.labels),
        "systems": [
            {
                "system": tag,
                "n_queries": int(table.n_queries[i]),
                "mean": values(i, None),
                **(mean_ci(i) if intervals is not None else {}),
                **(
                    {"per_query": {table.queries[j]: values(i, j)
                                   for j in np.flatnonzero(table.present[i]).tolist()}}
                    if per_query else {}
                ),
            }
            for i, tag in ((table.row(t), t) for t in systems)
        ],
    }
    if intervals is not None:
        data["ci"] = intervals.method
        data["warnings"] = list(intervals.warnings)
    return data


@click.command()
@click.option("-m", "--measure", "measures", multiple=True,
              help="Measure name (trec_eval or ir_measures style); repeatable. "
                   "Default: the campaign's default measures.")
@click.option("--assessor", "-a", default=None, metavar="NAME", help="Qrels from this assessor's grades.")
@click.option("--consensus", type=click.Choice(["majority", "mean", "adjudicated"]), default=None,
              help="Qrels from a consensus of all assessors (default: majority). majority: the "
                   "most frequent grade of an item, a tie going to the lower grade; mean: the "
                   "mean grade rounded half up (1.5 -> 2); adjudicated: the lead's final grade "
                   "where there is one, else the majority.")
@click.option("--source", "source", default=None, metavar="SPEC",
              help="Qrels source: majority, mean, adjudicated, assessor:NAME or hybrid:MACHINE.")
@click.option("-q", "per_query", is_flag=True, help="Also print per-query values.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--sort", "sort_by", default=None, metavar="MEASURE",
              help="List systems best first by this measure (default: the first measure).")
@click.option("--ci", "ci", type=click.Choice(["t", "bootstrap", "ppi"]), is_flag=False,
              flag_value="t", default=None,
              help="Each mean's 95% interval over topics: t (Student's t, the default of a bare "
                   "--ci), bootstrap (seeded percentile bootstrap) or ppi (prediction-powered, "
                   "with --source hybrid:MACHINE; see docs/uncertainty.md).")
@click.option("--resamples", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Bootstrap resamples (--ci bootstrap).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@click.option("--nuggets", "nuggets", is_flag=True,
              help="Score the runs' generated answers by their nugget assignments (docs/nuggets.md).")
@click.option("--answered-only", is_flag=True,
              help="With --nuggets: average over the topics each run answered (default: every topic with nuggets).")
@click.option("--plot", "plot", default=None, metavar="FILE",
              help="Also draw each system's mean of the first measure with its interval to "
                   "FILE (.png, .svg or .pdf).")
@db_option
@click.pass_context
def score(ctx, measures, assessor, consensus, source, per_query, fmt, sort_by, ci, resamples,
          seed, nuggets, answered_only, plot, db) -> None:
    """Score every stored system against qrels derived from the stored judgments."""
    if nuggets:
        from workbench.cli.nugget_score import score_nuggets

        score_nuggets(ctx, db, measures, assessor, source, per_query, fmt, answered_only)
        return
    from workbench.campaign.database import Database
    from workbench.campaign.scoring.scores import ScoreTracker
    from workbench.cli.sources import qrels_source

    chosen = qrels_source(source=source, assessor=assessor, consensus=consensus)
    from workbench.campaign.plotting import check

    check(plot)  # a bad --plot file: before any work
    names = [n for raw in measures for n in raw.split()] or None  # "P.5,10" keeps its comma
    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        # an unknown measure name raises metrics' MeasureError: a usage error, exit 2
        tracker = ScoreTracker(database, names, chosen)
        table = tracker.load()
        from workbench.campaign.answers.listing import answer_only_runs

        for tag in answer_only_runs(database):
            click.echo(f"workbench: run {tag!r} has answers only and no ranked results "
                       "(score its answers with --nuggets)", err=True)
        intervals = None
        if ci == "ppi":
            from workbench.campaign.scoring.ppi import ppi_intervals

            intervals = ppi_intervals(database, table, chosen)
            if intervals.estimates:  # the prediction-powered estimates replace the means
                from dataclasses import replace

                table = replace(table, means={**table.means, **intervals.estimates})
    finally:
        database.close()
    if not table.queries:
        click.echo(f"workbench: warning: no judged query to score against {table.source}", err=True)
    systems = _order(table, sort_by)
    if ci in ("t", "bootstrap"):
        from workbench.campaign.scoring.intervals import score_intervals

        intervals = score_intervals(table, ci, resamples=resamples, seed=seed)
    if intervals is not None and fmt != "json":
        for warning in intervals.warnings:
            click.echo(f"workbench: warning: {warning}", err=True)
    if plot is not None:
        from workbench.campaign.plotting import plot_score

        plot_score(plot, table, systems, intervals)
    if fmt == "trec":
        from workbench.formats.evaluation_output import write_trec

        if ci is not None:
            raise click.UsageError("--ci has no trec format; use table, csv, json, markdown or latex")
        by_tag = {e.tag: e for e in tracker.evaluations()}
        write_trec(sys.stdout, [by_tag[t] for t in systems], per_query, runid_first=True)
    elif fmt == "json":
        click.echo(json.dumps(_json(table, per_query, systems, intervals), indent=2))
    elif fmt == "csv":  # the same writer as `export scores -q`
        from workbench.campaign.scoring.export import write_long_scores

        write_long_scores(table, sys.stdout, per_query, systems, intervals)
    elif fmt in ("markdown", "latex"):
        from workbench.campaign.scoring.export import score_grid
        from workbench.formats.score_tables import render_scores

        sys.stdout.write(render_scores(score_grid(table, systems, intervals=intervals), fmt))
    else:
        _print_table(table, per_query, systems, intervals)


def _order(table: ScoreTable, sort_by: str | None) -> list[str]:
    """Systems best first by `sort_by` (default: the first measure), ties by name."""
    from workbench.campaign.scoring.export import ranked_systems

    if not table.labels:
        return list(table.systems)
    if sort_by is None:
        return ranked_systems(table, table.labels[0])
    try:
        m = table.measure(sort_by)
    except (KeyError, Exception):
        raise click.UsageError(f"--sort {sort_by}: not one of the measures scored "
                               f"({', '.join(table.labels)})") from None
    return ranked_systems(table, table.name_of(m))
