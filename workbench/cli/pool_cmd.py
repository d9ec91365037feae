"""`workbench pool`: build the judging pool and fill assessors' queues (DESIGN §4)."""

from __future__ import annotations

import sys

import click

from workbench.cli import checked_name, db_option, resolve_db


@click.command("pool")
@click.option("--depth", "-k", type=click.IntRange(min=1), default=None,
              help="Top K documents of every system per query (default: the campaign's pool depth).")
@click.option("--assessor", "-a", "assessors", multiple=True, metavar="NAME", callback=checked_name,
              help="Assign the pool to this assessor (repeat the option for several).")
@click.option("--overlap", type=click.FloatRange(0.0, 1.0), default=None,
              help="Split each query's pool between the assessors; this share is judged by "
                   "all of them (default: everyone judges everything).")
@click.option("--repeat", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="Share of each assessor's documents shown a second time, unmarked, later in the queue.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the split and of the per-(assessor, query) shuffles.")
@db_option
@click.pass_context
def pool(ctx, depth, assessors, overlap, repeat, seed, db):
    """Pool the top K of every system per query (deduplicated) and assign it.

    Re-running is safe: documents already pooled or assigned stay where they are and new
    ones are appended to the queues.
    """
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text
    from workbench.campaign.database import Database
    from workbench.campaign.pooling import assign, build_pool, queue_counts
    from workbench.campaign.settings import campaign_pool_depth

    if (overlap is not None or repeat) and not assessors:
        raise click.UsageError("--overlap and --repeat need at least one --assessor")
    database = Database.open(resolve_db(ctx, db), create=False)
    on_wait = _say_waiting if sys.stderr.isatty() else None
    try:
        if depth is None:
            depth = campaign_pool_depth(database)
        summary = build_pool(database, depth, on_wait=on_wait)
        click.echo(
            f"pool depth {summary.depth}: {summary.n_entries} documents over "
            f"{summary.n_queries} queries ({summary.n_added} new)"
        )
        if assessors:
            assign(database, list(assessors), overlap=overlap, repeat=repeat, seed=seed,
                   on_wait=on_wait)
        counts = queue_counts(database)
    finally:
        database.close()
    if not counts:
        click.echo("no assessor has a queue yet (use --assessor NAME)")
        return
    table = Table("assessor", "assigned", "repeats", "total items")
    for name, (items, repeats) in counts.items():
        table.add_row(Text(name), str(items), str(repeats), str(items + repeats))
    Console(soft_wrap=True).print(table)


def _say_waiting() -> None:
    from workbench.campaign.writing import WAITING

    click.echo(WAITING, err=True)
