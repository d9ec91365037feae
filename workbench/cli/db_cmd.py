"""`workbench init [--db URL]`: create a new campaign database or upgrade one to head."""

from __future__ import annotations

import click

from workbench.cli import db_option, resolve_db


@click.command()
@click.option("--scale", "scale_spec", default=None, metavar="SPEC",
              help='The relevance scale: "0=Not relevant,1=Related,2=Relevant,3=Highly relevant", '
                   "or binary, 0-3 (default), 0-4. Only before the first grade.")
@db_option
@click.pass_context
def init(ctx: click.Context, scale_spec: str | None, db: str | None) -> None:
    """Create or upgrade the database schema (alembic upgrade head)."""
    from workbench.campaign.database import Database, initialise

    if scale_spec is not None:
        from workbench.campaign.scale import parse_scale

        parse_scale(scale_spec)  # a bad scale is a usage error before anything is created
    result = initialise(resolve_db(ctx, db))
    verb = {
        "new": "created at",
        "older": f"upgraded from revision {result.before} to",
        "current": "already at",
    }[result.state]
    click.echo(f"{result.where}: {verb} revision {result.revision} (head)")
    if scale_spec is not None:
        from workbench.campaign.scale import set_scale
        from workbench.cli.scale_cmd import echo_scale

        database = Database.open(resolve_db(ctx, db), create=False)
        try:
            echo_scale(set_scale(database, scale_spec))
        finally:
            database.close()
