"""`workbench nuggets edit TOPIC` (the lead's nugget screen), `nuggets freeze|unfreeze TOPIC`."""

from __future__ import annotations

import click

from workbench.cli import db_option, resolve_db


@click.group("nuggets")
def nuggets() -> None:
    """Make and edit a topic's nugget bank (docs/nuggets.md)."""


@nuggets.command("edit")
@click.argument("topic")
@db_option
@click.pass_context
def edit(ctx, topic: str, db) -> None:
    """Open the nugget screen of TOPIC (a lead's screen: it shows the bank's origins)."""
    from workbench.campaign.answers.bank import bank_view
    from workbench.campaign.database import Database
    from workbench.tui.screens.nugget_bank import nugget_bank_app

    database = Database.open(resolve_db(ctx, db), create=False)
    bank_view(database, topic)  # an unknown topic is said here, before the screen
    nugget_bank_app(database, topic).run()


def _freeze(ctx, db, topic: str, frozen: bool) -> None:
    from workbench.campaign.answers.bank import set_frozen
    from workbench.campaign.database import Database

    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        set_frozen(database, topic, frozen)
    finally:
        database.close()
    click.echo(f"the nugget bank of {topic!r} is {'frozen' if frozen else 'open for edits'}")


@nuggets.command("freeze")
@click.argument("topic")
@db_option
@click.pass_context
def freeze(ctx, topic: str, db) -> None:
    """Freeze TOPIC's bank: no edit and no new nugget from then on."""
    _freeze(ctx, db, topic, True)


@nuggets.command("unfreeze")
@click.argument("topic")
@db_option
@click.pass_context
def unfreeze(ctx, topic: str, db) -> None:
    _freeze(ctx, db, topic, False)
