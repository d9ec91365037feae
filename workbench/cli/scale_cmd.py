"""`workbench scale [SPEC]`: show the relevance scale, or set it before the first grade."""

from __future__ import annotations

import click

from workbench.cli import db_option, resolve_db


def echo_scale(levels) -> None:
    from workbench.visible import visible

    for grade, label, desc in levels:  # labels are a lead's free text: made harmless
        click.echo(visible(f"{grade}  {label}" + (f"  ({desc})" if desc else "")))


@click.command("scale")
@click.argument("spec", required=False, metavar="[SPEC]")
@db_option
@click.pass_context
def scale(ctx, spec, db) -> None:
    """Show the relevance scale, or set it: SPEC is "0=Not relevant,1=Related,2=Relevant,
    3=Highly relevant" or one of binary, 0-3, 0-4. Refused once a grade exists."""
    from workbench.campaign.database import Database
    from workbench.campaign.scale import set_scale, show_scale

    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        echo_scale(set_scale(database, spec) if spec else show_scale(database))
    finally:
        database.close()
