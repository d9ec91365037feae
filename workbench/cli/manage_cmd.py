"""`workbench list`, `workbench remove` and `workbench rename`: managing the campaign.

    workbench list queries|docs|runs|assessors|cant-judge [--format table|csv|json]
    workbench remove run TAG | query ID | assessor NAME [--force]
    workbench rename run OLD NEW
"""

from __future__ import annotations

import json
import math
import sys

import click

from workbench.cli import db_option, echo_table, resolve_db, table_text
from workbench.formats.csv_cells import csv_writer


def _open(ctx, db):
    from workbench.campaign.database import Database

    return Database.open(resolve_db(ctx, db), create=False)


def _cell(name: str, v) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        return f"{v:.0%}" if name == "done" else f"{v:.3f}" if name.endswith("_p") else f"{v:.1f}"
    return _shares_text(v) if isinstance(v, dict) else table_text(str(v))


def _shares_text(shares: dict) -> str:
    from workbench.campaign.judging.pace import shares_text

    return shares_text(shares)


def _json_value(v):
    from workbench.formats.output import json_number

    return json_number(v) if isinstance(v, float) else v


@click.command("list")
@click.argument("what", type=click.Choice(["queries", "docs", "runs", "assessors", "cant-judge"]))
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table", show_default=True)
@click.option("--plot", "plot", default=None, metavar="FILE",
              help="With assessors: also draw their pace and drift to FILE (.png, .svg or .pdf).")
@db_option
@click.pass_context
def list_(ctx, what, fmt, plot, db) -> None:
    """Show the campaign's queries, documents, runs or assessors with counts and progress.

    \b
    queries:   pool size, documents judged (by anyone), judgments, assessors, share done
    docs:      queries whose pool holds it, judgments
    runs:      queries and results stored
    assessors: kind (human or machine), assigned, judged, share of the assignment done (can't-judge marks
               count as done), grades outside the assignment, repeat grades,
               can't-judge marks, documents per hour and median seconds per document
               (seconds above the campaign's idle cap, 300 unless `campaign --idle-cap`,
               on one document are idle time: capped, and counted), grade shares in their
               first and last quarter of grades and the chi-square test between them
               (drift); see docs/pace.md
    cant-judge: every "can't judge / broken document" mark: query, document,
               assessor, reason, when (not grades: fix or replace these documents)
    """
    from workbench.campaign.catalog.listing import listing

    if plot is not None:
        from workbench.campaign.plotting import check

        if what != "assessors":
            raise click.UsageError("--plot draws `list assessors` only")
        check(plot)
    database = _open(ctx, db)
    try:
        table = listing(database, what)
    finally:
        database.close()
    if plot is not None:
        from workbench.campaign.plotting import plot_assessors

        plot_assessors(plot, table)
    if fmt == "json":
        click.echo(json.dumps([{k: _json_value(v) for k, v in zip(table.header, row)} for row in table.rows], indent=2))
        return
    if fmt == "csv":
        w = csv_writer(sys.stdout)
        w.writerow(table.header)
        for row in table.rows:
            w.writerow(["" if isinstance(v, float) and math.isnan(v) else _shares_text(v) if isinstance(v, dict) else v
                        for v in row])
        return
    cells = [[_cell(h, v) for h, v in zip(table.header, row)] for row in table.rows]
    echo_table(table.header, cells, lambda j, c: j > 0 and _numeric(c))
    if not table.rows:
        click.echo(f"(no {what} yet)", err=True)
    elif table.note:
        click.echo(f"({table.note})")


def _numeric(text: str) -> bool:
    try:
        float(text.rstrip("%"))
    except ValueError:
        return text == "–"
    return True


@click.group("remove")
def remove() -> None:
    """Remove a run, a query or an assessor (one transaction; judgment history is kept)."""


def _remove(ctx, db, kind, name, force):
    from workbench.campaign.catalog.listing import remove as do_remove

    database = _open(ctx, db)
    try:
        click.echo(do_remove(database, kind, name, force=force))
    finally:
        database.close()


@remove.command("run")
@click.argument("tag")
@db_option
@click.pass_context
def remove_run(ctx, tag, db) -> None:
    """Remove a stored run (its results); judgments do not depend on runs."""
    _remove(ctx, db, "run", tag, False)


@remove.command("query")
@click.argument("query_id", metavar="ID")
@click.option("--force", is_flag=True, help="Remove it even though its judgments go with it.")
@db_option
@click.pass_context
def remove_query(ctx, query_id, force, db) -> None:
    """Remove a query with its pool, queue entries and judgments (refused without --force
    when it has judgments; their events are archived)."""
    _remove(ctx, db, "query", query_id, force)


@remove.command("assessor")
@click.argument("name")
@click.option("--force", is_flag=True, help="Remove them even though their judgments go with them.")
@db_option
@click.pass_context
def remove_assessor(ctx, name, force, db) -> None:
    """Remove an assessor with their queue and judgments (refused without --force when they
    have judgments or final grades; their events are archived)."""
    _remove(ctx, db, "assessor", name, force)


@click.group("rename")
def rename() -> None:
    """Rename a run."""


@rename.command("run")
@click.argument("old")
@click.argument("new")
@db_option
@click.pass_context
def rename_run(ctx, old, new, db) -> None:
    """Give a stored run a new tag."""
    from workbench.campaign.catalog.listing import rename_run as do_rename

    database = _open(ctx, db)
    try:
        click.echo(do_rename(database, old, new))
    finally:
        database.close()
