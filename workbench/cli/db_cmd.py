"""`workbench init [--db URL]`: create a new campaign database or upgrade one to head."""

from __future__ import annotations

import click

from workbench.cli import db_option, resolve_db


@click.command()
@db_option
@click.pass_context
def init(ctx: click.Context, db: str | None) -> None:
    """Create or upgrade the database schema (alembic upgrade head)."""
    from workbench.store.engine import make_engine
    from workbench.store.schema import check_database, current_revision, init_database

    url = resolve_db(ctx, db)
    probe = make_engine(url)
    try:
        state = check_database(probe, allow_older=True)  # refuses foreign or newer databases
        before = current_revision(probe) if state == "older" else None
    finally:
        probe.dispose()
    engine = init_database(url)
    try:
        revision = current_revision(engine)
        where = engine.url.render_as_string(hide_password=True)
    finally:
        engine.dispose()
    verb = {"new": "created at", "older": f"upgraded from revision {before} to", "current": "already at"}[state]
    click.echo(f"{where}: {verb} revision {revision} (head)")
