"""`workbench guidelines show | set FILE | clear`: the campaign's judging guidelines, shown to
assessors at their first start and on `g` in the judging screen."""

from __future__ import annotations

import click

from workbench.cli import db_option, resolve_db


def _open(ctx, db):
    from workbench.campaign.database import Database

    return Database.open(resolve_db(ctx, db), create=False)


@click.group("guidelines")
def guidelines() -> None:
    """Show or set the campaign's judging guidelines."""


@guidelines.command("show")
@db_option
@click.pass_context
def show(ctx, db) -> None:
    """Print the guidelines."""
    from workbench.campaign.settings import guidelines as read

    database = _open(ctx, db)
    try:
        text = read(database)
    finally:
        database.close()
    from workbench.visible import visible

    # free text from a file: made harmless for the terminal, as on the judging screen
    click.echo(visible(text) if text else "(no guidelines set: workbench guidelines set FILE)")


@guidelines.command("set")
@click.argument("file", type=click.Path(dir_okay=False))
@db_option
@click.pass_context
def set_(ctx, file, db) -> None:
    """Set the guidelines from a UTF-8 text (or Markdown) FILE."""
    from workbench.campaign.settings import set_guidelines
    from workbench.formats.textlines import iter_lines

    text = "\n".join(line for _, line in iter_lines(file)).strip()  # file:line on bad bytes
    database = _open(ctx, db)
    try:
        set_guidelines(database, text)
    finally:
        database.close()
    click.echo(f"guidelines set: {len(text.splitlines())} lines from {file}")


@guidelines.command("clear")
@db_option
@click.pass_context
def clear(ctx, db) -> None:
    """Remove the guidelines."""
    from workbench.campaign.settings import set_guidelines

    database = _open(ctx, db)
    try:
        set_guidelines(database, "")
    finally:
        database.close()
    click.echo("guidelines removed")
