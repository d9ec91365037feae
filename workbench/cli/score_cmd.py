"""`workbench score`: every stored system against qrels derived from the stored judgments.

The numbers come from `campaign.scoring.scores.ScoreTracker`, the same code as the TUI's live
panel. `--format trec` is printed by `eval`'s own trec printer
(`formats.evaluation_output.write_trec`: trec_eval's names and layout, counts as
integers); each system's block starts with its `runid` line (trec_eval
prints one run; `score` prints every stored system).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING
import sys

import click
import numpy as np

from workbench.cli import db_option, resolve_db

if TYPE_CHECKING:  # annotations only
    from workbench.campaign.scoring.scores import ScoreTable

FORMATS = ("trec", "table", "csv", "json")


def _value(measure, value: float) -> str:
    return str(int(round(value))) if measure.is_count else f"{value:.4f}"


def _print_table(table: ScoreTable, per_query: bool) -> None:
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
    for i, tag in enumerate(table.systems):
        if per_query:
            for j in np.flatnonzero(table.present[i]).tolist():
                grid.add_row(Text(tag), Text(table.queries[j]), "",
                             *[_value(m, table.values[m][i, j]) for m in table.measures])
        cells = [Text(tag)] + ([Text("all")] if per_query else [])
        grid.add_row(*cells, str(int(table.n_queries[i])),
                     *[_value(m, table.means[m][i]) for m in table.measures])
    rich_console().print(grid)


def _json(table: ScoreTable, per_query: bool) -> dict:
    def values(i: int, j: int | None) -> dict:
        if j is None:
            return {label: float(table.means[m][i]) for label, m in zip(table.labels, table.measures)}
        return {label: float(table.values[m][i, j]) for label, m in zip(table.labels, table.measures)}

    return {
        "source": table.source,
        "measures": list(table.labels),
        "systems": [
            {
                "system": tag,
                "n_queries": int(table.n_queries[i]),
                "mean": values(i, None),
                **(
                    {"per_query": {table.queries[j]: values(i, j)
                                   for j in np.flatnonzero(table.present[i]).tolist()}}
                    if per_query else {}
                ),
            }
            for i, tag in enumerate(table.systems)
        ],
    }


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
@click.option("--nuggets", "nuggets", is_flag=True,
              help="Score the runs' generated answers by their nugget assignments (docs/nuggets.md).")
@click.option("--answered-only", is_flag=True,
              help="With --nuggets: average over the topics each run answered (default: every topic with nuggets).")
@db_option
@click.pass_context
def score(ctx, measures, assessor, consensus, source, per_query, fmt, nuggets, answered_only, db) -> None:
    """Score every stored system against qrels derived from the stored judgments."""
    if nuggets:
        from workbench.cli.nugget_score import score_nuggets

        score_nuggets(ctx, db, measures, assessor, source, per_query, fmt, answered_only)
        return
    from workbench.campaign.database import Database
    from workbench.campaign.scoring.scores import ScoreTracker
    from workbench.cli.sources import qrels_source

    chosen = qrels_source(source=source, assessor=assessor, consensus=consensus)
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
    finally:
        database.close()
    if not table.queries:
        click.echo(f"workbench: warning: no judged query to score against {table.source}", err=True)
    if fmt == "trec":
        from workbench.formats.evaluation_output import write_trec

        write_trec(sys.stdout, tracker.evaluations(), per_query, runid_first=True)
    elif fmt == "json":
        click.echo(json.dumps(_json(table, per_query), indent=2))
    elif fmt == "csv":  # the same writer as `export scores -q`
        from workbench.campaign.scoring.export import write_long_scores

        write_long_scores(table, sys.stdout, per_query)
    else:
        _print_table(table, per_query)
