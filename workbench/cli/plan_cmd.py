"""`workbench plan topics`: how many topics a campaign needs (topic set size design).

    workbench plan topics -m MEASURE --min-diff D (--sigma S | --from-source SRC)
                          [--alpha 0.05] [--power 0.8] [--format table|json]
    workbench plan topics -m MEASURE --topics N (--sigma S | --from-source SRC) ...

The paired t-test's power through the noncentral t (Sakai 2016); sigma of the per-topic
differences is given, or estimated from the stored runs as sigma^2 = 2 V_E
(campaign/scoring/topic_plan.py).
"""

from __future__ import annotations

import json

import click

from workbench.cli import db_option, resolve_db
from workbench.defaults import PLANNING_MEASURE
from workbench.errors import UsageError
from workbench.formats.numbers import number


@click.group("plan")
def plan() -> None:
    """Plan a campaign: how many topics detect a difference."""


@plan.command("topics")
@click.option("-m", "--measure", default=PLANNING_MEASURE, show_default=True,
              help="The measure whose difference is to be detected.")
@click.option("--min-diff", type=float, default=None, metavar="D",
              help="The difference in the measure's mean to detect.")
@click.option("--topics", "n_topics", type=int, default=None, metavar="N",
              help="Instead of --min-diff: the smallest difference N topics detect.")
@click.option("--sigma", type=float, default=None, metavar="S",
              help="Standard deviation of the per-topic differences between two systems.")
@click.option("--from-source", "from_source", default=None, metavar="SRC",
              help="Estimate sigma from the stored runs scored against this qrels source "
                   "(majority, mean, adjudicated, assessor:NAME, hybrid:MACHINE): "
                   "sigma^2 = 2 V_E of the two-way ANOVA over systems x topics.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level (two-sided).")
@click.option("--power", type=float, default=0.8, show_default=True, help="Power to reach.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@db_option
@click.pass_context
def topics(ctx, measure, min_diff, n_topics, sigma, from_source, alpha, power, fmt, db) -> None:
    """Topics a paired t-test needs to detect --min-diff (or what --topics N detect)."""
    from workbench.campaign.scoring.topic_plan import plan_topics, stored_sigma

    if (sigma is None) == (from_source is None):
        raise UsageError("give one of --sigma S or --from-source SRC")
    if (min_diff is None) == (n_topics is None):
        raise UsageError("give one of --min-diff D or --topics N")
    if not measure.strip():
        raise UsageError("-m needs a measure name")
    estimated = None
    if from_source is not None:
        from workbench.campaign.database import Database
        from workbench.cli.sources import qrels_source

        source = qrels_source(source=from_source)
        database = Database.open(resolve_db(ctx, db), create=False)
        try:
            estimated = stored_sigma(database, measure, source)
        finally:
            database.close()
        sigma = estimated.sigma
    plan_, exact = plan_topics(sigma, min_diff=min_diff, topics=n_topics, alpha=alpha, power=power)
    if fmt == "json":
        data = plan_.to_json()
        data["measure"] = estimated.measure if estimated else measure
        if estimated is not None:
            data.update(source=estimated.source, sigma_systems=estimated.systems,
                        sigma_topics=estimated.topics)
        click.echo(json.dumps(data, indent=2))
        return
    if estimated is not None:
        click.echo(f"sigma {number(sigma)}: sqrt(2 V_E) of {estimated.measure} over "
                   f"{estimated.systems} systems x {estimated.topics} topics against {estimated.source}")
    if min_diff is not None:
        click.echo(f"{plan_.topics} topics detect a difference of {min_diff:g} in {measure} "
                   f"(D/sigma {number(min_diff / sigma)}, n = {exact:.3f} unrounded) with a paired "
                   f"t-test at alpha {alpha:g} with power {power:g}")
    else:
        click.echo(f"{n_topics} topics detect a difference of {number(plan_.min_diff)} in {measure} "
                   f"(D/sigma {number(exact)}) with a paired t-test at alpha {alpha:g} with power {power:g}")
