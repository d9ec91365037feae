"""`workbench panel create|list`: judge panels, virtual machine assessors whose labels are
derived from their members' labels when read (`--source panel:NAME`, `hybrid:panel:NAME`,
`meta --judge panel:NAME`).

    workbench panel create NAME --member MACHINE --member MACHINE ... --aggregate majority|median|mean|dawid-skene
    workbench panel list [--format table|json]
"""

from __future__ import annotations

import json

import click

from workbench.cli import db_option, resolve_db


@click.group("panel")
def panel() -> None:
    """Judge panels: machines whose labels are aggregated (never stored)."""


@panel.command("create")
@click.argument("name")
@click.option("--member", "members", multiple=True, required=True, metavar="MACHINE",
              help="A machine assessor (repeat; at least two).")
@click.option("--aggregate", type=click.Choice(["majority", "median", "mean", "dawid-skene"]), required=True,
              help="majority (ties to the lower grade), median or mean (rounded half up), dawid-skene (seeded EM).")
@db_option
@click.pass_context
def create(ctx, name, members, aggregate, db) -> None:
    """Create the panel NAME of the given machine assessors."""
    from workbench.campaign.assessors.panels import create_panel
    from workbench.campaign.database import Database

    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        create_panel(database, name, list(members), aggregate)
    finally:
        database.close()
    click.echo(f"created panel {name} ({aggregate} of {', '.join(members)}): use it as panel:{name}")


@panel.command("list")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@db_option
@click.pass_context
def list_(ctx, fmt, db) -> None:
    """The panels, their aggregate and members."""
    from workbench.campaign.assessors.panels import list_panels
    from workbench.campaign.database import Database
    from workbench.cli import table_text

    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        panels = list_panels(database)
    finally:
        database.close()
    if fmt == "json":
        click.echo(json.dumps([{"name": p.name, "aggregate": p.aggregate, "members": list(p.members)}
                               for p in panels], indent=2))
        return
    if not panels:
        click.echo("no panels (workbench panel create NAME --member MACHINE ... --aggregate majority)")
    for p in panels:
        click.echo(table_text(f"panel:{p.name}  {p.aggregate}  {', '.join(p.members)}"))
