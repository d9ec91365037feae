"""`workbench pool`: build the judging pool and fill assessors' queues (docs/architecture.md#command-line-contract)."""

from __future__ import annotations

import sys

import click

from workbench.cli import checked_name, db_option, resolve_db
from workbench.formats.numbers import number


@click.command("pool")
@click.option("--method", type=click.Choice(["depth", "mtf", "bandit"]), default="depth",
              show_default=True,
              help="depth: the top K of every run; mtf: move-to-front (Cormack et al. 1998); "
                   "bandit: Thompson sampling (Losada et al. 2016). mtf and bandit serve one "
                   "document at a time, chosen from the grades so far.")
@click.option("--depth", "-k", type=click.IntRange(min=1), default=None,
              help="Top K documents of every system per query (default: the campaign's pool "
                   "depth for depth, the whole runs for mtf and bandit).")
@click.option("--budget", type=click.IntRange(min=1), default=None, metavar="N",
              help="At most N documents to judge, spread evenly over the queries.")
@click.option("--assessor", "-a", "assessors", multiple=True, metavar="NAME", callback=checked_name,
              help="Assign the pool to this assessor (repeat the option for several).")
@click.option("--overlap", type=click.FloatRange(0.0, 1.0), default=None,
              help="Split each query's pool between the assessors; this share is judged by "
                   "all of them (default: everyone judges everything).")
@click.option("--repeat", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="Share of each assessor's documents shown a second time, unmarked, later in the queue.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the split, the per-(assessor, query) shuffles and the adaptive choices.")
@click.option("--validate", "validate", default=None, metavar="MACHINE",
              help="Instead: choose --budget of this machine assessor's labelled items for "
                   "the --assessor people to judge (a validation sample for `calibrate`).")
@click.option("--strategy", type=click.Choice(["stratified", "disagreement"]), default=None,
              help="With --validate: stratified (by machine grade, with inclusion "
                   "probabilities; the default) or disagreement (where machines disagree "
                   "with each other or with --against).")
@click.option("--against", default=None, metavar="SOURCE",
              help="With --validate --strategy disagreement: qrels to disagree with "
                   "(majority, mean, adjudicated, assessor:NAME).")
@click.option("--answers", "answers", is_flag=True,
              help="Pool the generated answers instead: deal each topic's answers to the "
                   "assessors (--overlap shares), each in their own shuffled order (docs/nuggets.md).")
@db_option
@click.pass_context
def pool(ctx, method, depth, budget, assessors, overlap, repeat, seed, validate, strategy, against, answers, db):
    """Pool the top K of every system per query (deduplicated) and assign it, or start an
    adaptive pool (--method mtf|bandit) that grows one document per grade.

    Re-running is safe: documents already pooled stay pooled; in each queue what the assessor
    reached (up to the last graded document) stays in place, and the documents not reached
    yet are shuffled together with the new ones (so deeper documents do not come last).
    """
    from workbench.cli import rich_console
    from rich.table import Table
    from rich.text import Text
    from workbench.campaign.database import Database
    from workbench.campaign.pooling.build import make_pool
    from workbench.campaign.pooling.assign import queue_counts

    if answers:
        from workbench.campaign.answers.pooling import pool_answers
        from workbench.campaign.database import Database

        if not assessors:
            raise click.UsageError("pool --answers needs at least one --assessor")
        database = Database.open(resolve_db(ctx, db), create=False)
        try:
            click.echo(pool_answers(database, list(assessors), overlap=overlap, seed=seed).message())
        finally:
            database.close()
        return
    if validate is not None:
        _validate(ctx, db, validate, budget, strategy or "stratified", assessors, seed, against,
                  method, depth, overlap, repeat)
        return
    if strategy is not None or against is not None:
        raise click.UsageError("--strategy and --against go with --validate MACHINE")
    if (overlap is not None or repeat) and not assessors:
        raise click.UsageError("--overlap and --repeat need at least one --assessor")
    database = Database.open(resolve_db(ctx, db), create=False)
    on_wait = _say_waiting if sys.stderr.isatty() else None
    try:
        before = queue_counts(database) if repeat else {}
        run = make_pool(database, method, depth=depth, budget=budget, assessors=assessors,
                        overlap=overlap, repeat=repeat, seed=seed, on_wait=on_wait)
        click.echo(_describe(run))
        counts = queue_counts(database)
    finally:
        database.close()
    _say_no_repeats(before, counts, assessors, repeat)
    if not counts:
        click.echo("no assessor has a queue yet (use --assessor NAME)")
        return
    table = Table("assessor", "assigned", "repeats", "total items")
    for name, (items, repeats) in counts.items():
        table.add_row(Text(name), str(items), str(repeats), str(items + repeats))
    rich_console(soft_wrap=True).print(table)


def _validate(ctx, db, machine, budget, strategy, assessors, seed, against, method, depth,
              overlap, repeat) -> None:
    """`pool --validate MACHINE --budget N [--strategy S] --assessor NAME ...`."""
    from workbench.campaign.database import Database
    from workbench.campaign.pooling.validation import validate_machine
    from workbench.cli.sources import qrels_source

    if budget is None:
        raise click.UsageError("--validate needs --budget N (how many items people judge)")
    if method != "depth" or depth is not None or overlap is not None or repeat:
        raise click.UsageError("--validate takes --budget, --strategy, --against, --assessor and --seed only")
    if not assessors:
        raise click.UsageError("--validate needs at least one --assessor (the people who judge the sample)")
    source = qrels_source(source=against) if against else None
    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        sample = validate_machine(database, machine, budget=budget, strategy=strategy,
                                  assessors=assessors, seed=seed, against=source,
                                  on_wait=_say_waiting if sys.stderr.isatty() else None)
    finally:
        database.close()
    click.echo(f"validation sample of {machine} ({strategy}, seed {seed}): {sample.n_items} items"
               + ("" if sample.n_items >= budget else f" (budget {budget}: no more candidates)"))
    for s in sample.strata:
        prob = "" if s.probability != s.probability else f", inclusion probability {number(s.probability)}"
        click.echo(f"  machine grade {s.grade}: {s.sampled} of {s.population}{prob}")
    for name, added in sample.queued.items():
        click.echo(f"  {name}: {added} added to the queue")


def _say_no_repeats(before, after, assessors, repeat) -> None:
    """--repeat draws among the documents a call adds to a queue (the positions already in
    a queue never move, so a repeat cannot be slipped in among them): an assessor whose queue
    existed and got nothing new gets no repeats. Say so rather than print 0 silently."""
    for name in dict.fromkeys(assessors):
        old, new = before.get(name), after.get(name)
        if old is None or new is None or new[1] > old[1]:
            continue
        click.echo(f"workbench: {name} already had a queue and got no new documents: --repeat "
                   f"{repeat} picks among newly added documents only, so {name} got no new "
                   "repeats (give --repeat with the first pool, or deepen the pool with "
                   "--depth to add documents)", err=True)


def _describe(run) -> str:
    plan = run.plan
    budget = f", budget {plan.budget}" if plan.budget is not None else ""
    if plan.method == "depth":
        head = f"pool depth {plan.depth}{budget}"
    else:
        deep = f" depth {plan.depth}" if plan.depth is not None else ""
        head = f"pool {plan.method}{deep}{budget}, seed {plan.seed}"
    text = (f"{head}: {_count(run.n_entries, 'document')} over "
            f"{_count(run.n_queries, 'query', 'queries')} ({run.n_added} new)")
    if plan.adaptive and plan.budget is not None and run.n_entries >= plan.budget:
        # a pool only grows: an earlier, larger pool leaves the method nothing to choose
        text += (f"; the budget is spent: the pool already holds {run.n_entries} documents, "
                 "so no document will be served")
    elif plan.adaptive:
        text += "; the next documents are chosen as grades come in"
    return text


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _say_waiting() -> None:
    from workbench.campaign.writing import WAITING

    click.echo(WAITING, err=True)
