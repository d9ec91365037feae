"""`workbench campaign [--blind | --not-blind] [--name NAME] [--idle-cap SECONDS]
[--compat 9|10]`: show or change the campaign's settings."""

from __future__ import annotations

import click

from workbench.cli import db_option, resolve_db


@click.command("campaign")
@click.option("--blind/--not-blind", "blind", default=None,
              help="Blind (the default for a new campaign): the judging screen shows no "
                   "per-system score. --not-blind lets assessors open live scores under the "
                   "real run tags (for tuning sessions where the people judging own the systems).")
@click.option("--name", default=None, help="Rename the campaign.")
@click.option("--idle-cap", "idle_cap", type=click.IntRange(min=1), default=None, metavar="SECONDS",
              help="Seconds on one document count up to this (default 300): time above it is "
                   "idle time, not judging, in the stored seconds and in every speed figure.")
@click.option("--compat", type=click.Choice(["9", "10"]), default=None,
              help="Order run scores as trec_eval 10 does (doubles, the default) or as trec_eval 9 "
                   "(floats): the stored runs are re-sorted, and score, pool, the adaptive queues, "
                   "simulate and reusability follow.")
@db_option
@click.pass_context
def campaign(ctx: click.Context, blind: bool | None, name: str | None, idle_cap: int | None,
             compat: str | None, db: str | None) -> None:
    """Show the campaign's settings; with an option, change it first."""
    from workbench.campaign.database import Database
    from workbench.campaign.settings import (
        campaign_settings,
        describe_idle_cap,
        rename_campaign,
        set_blind,
        set_idle_cap,
        set_score_compat,
    )

    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        if name is not None:
            rename_campaign(database, name)
        if blind is not None:
            set_blind(database, blind)
        if idle_cap is not None:
            set_idle_cap(database, idle_cap)
        if compat is not None:
            set_score_compat(database, int(compat))
        settings = campaign_settings(database)
    finally:
        database.close()
    judging = "blind (no per-system scores while judging)" if settings.blind else (
        "NOT blind: assessors may open live scores under the real run tags (key s)"
    )
    click.echo(f"name: {settings.name}")
    click.echo(f"judging: {judging}")
    click.echo(f"relevance threshold: {settings.relevance_threshold}")
    click.echo(f"default measures: {settings.default_measures}")
    click.echo(f"pool depth: {settings.pool_depth}")
    cap = settings.idle_cap_seconds
    click.echo(f"idle cap: {cap} s per document ({describe_idle_cap(cap)}; longer is idle time, not counted)")
    precision = "doubles" if settings.score_compat == 10 else "floats"
    click.echo(f"score order: trec_eval {settings.score_compat} (scores compared as {precision})")
