"""`workbench score`: every stored system against qrels derived from the stored judgments.

The numbers come from `campaign.scoring.scores.ScoreTracker`, the same code as the TUI's live
panel. `--format trec` is printed by `eval`'s own trec printer
(`formats.evaluation_output.write_trec`: trec_eval's names and layout, counts as
integers); each system's block starts with its `runid` line (trec_eval
prints one run; `score` prints every stored system).
"""

from __future__ import annotations

import csv
import json
import sys

import click
import numpy as np

from workbench.cli import db_option, resolve_db
from workbench.errors import UsageError

FORMATS = ("trec", "table", "csv", "json")


def _value(measure, value: float) -> str:
    return str(int(round(value))) if measure.is_count else f"{value:.4f}"


def _rows(table, per_query: bool):
    """(system, query, measure, value) in output order; query 'all' for the means."""
    for i, tag in enumerate(table.systems):
        if per_query:
            for j in np.flatnonzero(table.present[i]).tolist():
                for m in table.measures:
                    yield tag, table.queries[j], m, table.values[m][i, j]
        for m in table.measures:
            yield tag, "all", m, table.means[m][i]


def _print_table(table, per_query: bool) -> None:
    from rich.console import Console
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
    Console().print(grid)


def _json(table, per_query: bool) -> dict:
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
@click.option("-q", "per_query", is_flag=True, help="Also print per-query values.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@db_option
@click.pass_context
def score(ctx, measures, assessor, consensus, per_query, fmt, db) -> None:
    """Score every stored system against qrels derived from the stored judgments."""
    from workbench.campaign.database import Database
    from workbench.campaign.scoring.scores import ScoreTracker

    if assessor and consensus:
        raise UsageError("give either --assessor or --consensus, not both")
    names = [n for raw in measures for n in raw.split()] or None  # "P.5,10" keeps its comma
    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        # an unknown measure name raises metrics' MeasureError: a usage error, exit 2
        tracker = ScoreTracker(database, names, assessor=assessor, consensus=consensus)
        table = tracker.load()
    finally:
        database.close()
    if not table.queries:
        click.echo(f"workbench: warning: no judged query to score against {table.source}", err=True)
    if fmt == "trec":
        from workbench.formats.evaluation_output import write_trec

        write_trec(sys.stdout, tracker.evaluations(), per_query, runid_first=True)
    elif fmt == "json":
        click.echo(json.dumps(_json(table, per_query), indent=2))
    elif fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(["system", "query", "measure", "value"])
        for tag, q, m, v in _rows(table, per_query):
            writer.writerow([tag, q, table.name_of(m), _value(m, v)])
    else:
        _print_table(table, per_query)
