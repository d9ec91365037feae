"""`workbench init [--db URL]`: create a new campaign database or upgrade one to head."""

from __future__ import annotations

import click

from workbench.cli import db_option, resolve_db


@click.command()
@db_option
@click.pass_context
def init(ctx: click.Context, db: str | None) -> None:
    """Create or upgrade the database schema (alembic upgrade head)."""
    from workbench.campaign.database import initialise

    result = initialise(resolve_db(ctx, db))
    verb = {
        "new": "created at",
        "older": f"upgraded from revision {result.before} to",
        "current": "already at",
    }[result.state]
    click.echo(f"{result.where}: {verb} revision {result.revision} (head)")
