"""`workbench score --nuggets`: the runs' generated answers scored by nugget assignments
(campaign/answers/scores.py; docs/json-outputs.md#score---nuggets)."""

from __future__ import annotations

import json
import sys

import click
import numpy as np

from workbench.cli import resolve_db
from workbench.formats.numbers import number


def score_nuggets(ctx, db, measures, assessor, source, per_query: bool, fmt: str,
                  answered_only: bool) -> None:
    from workbench.campaign.answers.scores import nugget_table, table_json
    from workbench.campaign.database import Database
    from workbench.cli.sources import qrels_source
    from workbench.errors import UsageError

    chosen = qrels_source(source=source, assessor=assessor)
    names = [n for raw in measures for n in raw.split()] or None
    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        try:
            table = nugget_table(database, chosen, names, answered_only=answered_only)
        except UsageError as exc:
            raise click.UsageError(str(exc)) from None
    finally:
        database.close()
    if not table.queries:
        click.echo("workbench: warning: no topic has nuggets", err=True)
    if fmt == "json":
        click.echo(json.dumps(table_json(table, per_query), indent=2))
        return
    if fmt == "csv" or fmt == "trec":
        out = sys.stdout
        out.write("system,query,measure,value\n")
        for i, tag in enumerate(table.systems):
            cols = np.flatnonzero(table.counted[i]).tolist() if per_query else []
            for j in cols:
                for m in table.measures:
                    out.write(f"{tag},{table.queries[j]},{m},{table.values[m][i, j]:.6f}\n")
            for m in table.measures:
                out.write(f"{tag},all,{m},{table.means[m][i]:.6f}\n")
        return
    from rich.table import Table
    from rich.text import Text

    from workbench.cli import rich_console

    over = "answered topics" if answered_only else "all topics with nuggets"
    grid = Table(title=Text(f"nugget scores under {table.source} (mean over {over})"))
    grid.add_column("system")
    if per_query:
        grid.add_column("topic")
    grid.add_column("topics", justify="right")
    for m in table.measures:
        grid.add_column(m, justify="right")
    for i, tag in enumerate(table.systems):
        if per_query:
            for j in np.flatnonzero(table.counted[i]).tolist():
                grid.add_row(Text(tag), Text(table.queries[j]), "",
                             *[number(table.values[m][i, j]) for m in table.measures])
        grid.add_row(Text(tag), *([Text("all")] if per_query else []), str(int(table.n_queries[i])),
                     *[number(table.means[m][i]) for m in table.measures])
    rich_console().print(grid)
