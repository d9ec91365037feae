"""`workbench simulate` and `workbench reusability`: planning a campaign.

    workbench simulate [--qrels FILE RUN...] [-m MEASURE] --method depth|mtf|bandit
                       --budget 200,500,1000 [--depth K] [--seed S] [-l N] [--format table|json]
    workbench reusability [--qrels FILE RUN...] [--depth K] [-m MEASURE] [--groups SEP]
                          [-l N] [--format table|json]

Without --qrels both read the stored campaign (--db): its runs, and the majority consensus
of the stored grades as the full qrels.
"""

from __future__ import annotations

import json

import click

from workbench.cli import db_option, resolve_db
from workbench.defaults import PLANNING_MEASURE, REUSABILITY_FILES_DEPTH
from workbench.errors import UsageError
from workbench.formats.numbers import number

FORMATS = click.Choice(["table", "json"])


COMPAT_HELP = ("With --qrels: order run scores as trec_eval 10 (doubles, the default) or 9 "
               "(floats). The stored campaign's runs follow `workbench campaign --compat`.")


RUN_FLAG_HELP = ("The RUN files follow (optional: files after --qrels FILE are runs); "
                 "the same spelling as `compare --qrels FILE --run RUN...`.")


def _stored_only(qrels, compat) -> None:
    """--compat orders the scores of run files; the stored runs keep the campaign's order."""
    if not qrels and compat is not None:
        raise UsageError("--compat goes with --qrels FILE; the stored runs follow "
                         "`workbench campaign --compat 9|10`")


def _stored_depth(ctx, db, qrels, runs, compat=None) -> int | None:
    """The stored campaign's own pool depth (None on files: _collection checks them)."""
    if qrels or runs:
        return None
    _stored_only(qrels, compat)
    from workbench.campaign.database import Database
    from workbench.campaign.settings import campaign_pool_depth

    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        return campaign_pool_depth(database)
    finally:
        database.close()


def _collection(ctx, qrels, runs, db, compat=None):
    if qrels:
        if not runs:
            raise UsageError("give the run files after --qrels FILE")
        from workbench.planning.collection import collection_from_files

        return collection_from_files(qrels, list(runs), compat=int(compat or 10))
    if runs:
        raise UsageError("run files need --qrels FILE (without it the stored campaign is used)")
    _stored_only(qrels, compat)
    from workbench.campaign.database import Database
    from workbench.campaign.pooling.simulation import stored_collection

    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        return stored_collection(database)
    finally:
        database.close()


def _budgets(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise UsageError(f"--budget takes whole numbers separated by commas, not {text!r}") from None
    if not values or min(values) < 0:
        raise UsageError("--budget needs at least one budget, each >= 0")
    return values


def _plain(header: list[str], rows: list[list[str]]) -> str:
    from rich.cells import cell_len  # terminal cells: a CJK run tag takes two per character

    widths = [max(cell_len(str(x)) for x in col) for col in zip(header, *rows)]

    def cell(i: int, c, w: int) -> str:
        pad = " " * (w - cell_len(str(c)))
        return pad + str(c) if i else str(c) + pad

    lines = ["  ".join(cell(i, c, w) for i, (c, w) in enumerate(zip(r, widths))) for r in [header, *rows]]
    return "\n".join(line.rstrip() for line in lines)


def _num(x: float) -> str:
    return number(x, missing="-")


@click.command("simulate")
@click.argument("runs", nargs=-1)
@click.option("--qrels", default=None, metavar="FILE", help="The full qrels (the oracle); then RUN files follow.")
@click.option("--run", "run_flag", is_flag=True, help=RUN_FLAG_HELP)
@click.option("-m", "--measure", default=PLANNING_MEASURE, show_default=True, help="Measure ranking the runs.")
@click.option("--method", "method", required=True, metavar="depth|mtf|bandit[,...]",
              help="Pooling method; several, comma-separated, share one reading of the data.")
@click.option("--budget", "budget", required=True, metavar="N[,N...]", help="Total judgments, one or more.")
@click.option("--depth", type=click.IntRange(min=1), default=None, metavar="K",
              help="Consider each run's top K only (default: the campaign's pool depth; "
                   "whole lists on files).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bandit's draws.")
@click.option("-l", "--level", type=int, default=1, show_default=True, help="Grade >= N is relevant.")
@click.option("--format", "fmt", type=FORMATS, default="table", show_default=True)
@click.option("--compat", type=click.Choice(["9", "10"]), default=None, help=COMPAT_HELP)
@click.option("--plot", "plot", default=None, metavar="FILE",
              help="Also draw relevant found and tau-b against the budget to FILE (.png, .svg or .pdf).")
@db_option
@click.pass_context
def simulate(ctx, runs, qrels, run_flag, measure, method, budget, depth, seed, level, fmt, compat,
             plot, db) -> None:
    """Replay judging with known qrels: what each budget finds and how the ranking holds."""
    from workbench.planning.simulate import simulate as run_simulation

    from workbench.planning.methods import METHODS

    methods = [m.strip() for m in method.split(",") if m.strip()]
    bad = [m for m in methods if m not in METHODS]
    if bad or not methods:
        raise UsageError(f"unknown pooling method {', '.join(bad) or method!r}; choose from {', '.join(METHODS)}")
    budgets = _budgets(budget)
    from workbench.campaign.plotting import check

    check(plot)
    if depth is None:
        depth = _stored_depth(ctx, db, qrels, runs, compat)
    c = _collection(ctx, qrels, runs, db, compat)
    results = run_simulation(c, methods, budgets, measure=measure, rel_level=level, depth=depth, seed=seed)
    if plot is not None:
        from workbench.campaign.plotting import plot_simulation

        plot_simulation(plot, results)
    if fmt == "json":
        data = [r.to_json() for r in results]
        click.echo(json.dumps(data[0] if len(data) == 1 else data, indent=2))
        return
    for i, result in enumerate(results):
        click.echo(("\n" if i else "") + f"{result.method} pooling, runs ranked by {result.measure}, "
                   f"{c.n_queries} queries, {c.n_runs} runs")
        click.echo(_plain(
            ["budget", "judged", "relevant", "tau_b", "max_rank_change"],
            [[str(p.budget), str(p.judged), str(p.relevant_found), _num(p.kendall_tau_b),
              str(p.max_rank_change)] for p in result.points],
        ))


@click.command("reusability")
@click.argument("runs", nargs=-1)
@click.option("--qrels", default=None, metavar="FILE", help="The qrels; then RUN files follow.")
@click.option("--run", "run_flag", is_flag=True, help=RUN_FLAG_HELP)
@click.option("--depth", type=click.IntRange(min=1), default=None, metavar="K",
              help="Pool depth: each run contributed its top K (default: the campaign's pool "
                   f"depth; {REUSABILITY_FILES_DEPTH} on files).")
@click.option("-m", "--measure", default=PLANNING_MEASURE, show_default=True)
@click.option("--groups", default=None, metavar="SEP",
              help="Leave out groups of runs: a run's group is its tag up to SEP.")
@click.option("-l", "--level", type=int, default=1, show_default=True, help="Grade >= N is relevant.")
@click.option("--format", "fmt", type=FORMATS, default="table", show_default=True)
@click.option("--compat", type=click.Choice(["9", "10"]), default=None, help=COMPAT_HELP)
@db_option
@click.pass_context
def reusability(ctx, runs, qrels, run_flag, depth, measure, groups, level, fmt, compat, db) -> None:
    """Zobel's leave-one-out test: how each run would fare without its own pool documents.

    For each run (or group), the documents only it contributed to the depth-K pool leave
    the qrels and it is scored again (left_out). rank_loo is the place that score takes
    among the other runs' full scores (1 + those scoring strictly more: a tie takes the better
    place); drop = rank_loo - rank.
    tau_b compares the full scores with the left-out scores of all runs."""
    from workbench.planning.reusability import reusability as run_test

    if depth is None:
        depth = _stored_depth(ctx, db, qrels, runs, compat) or REUSABILITY_FILES_DEPTH
    c = _collection(ctx, qrels, runs, db, compat)
    result = run_test(c, depth=depth, measure=measure, rel_level=level, groups=groups)
    if fmt == "json":
        click.echo(json.dumps(result.to_json(), indent=2))
        return
    drop = result.max_drop
    click.echo(f"leave-one-out at depth {depth}, runs by {result.measure}: "
               f"tau_b {_num(result.kendall_tau_b)} (full scores against left-out scores), "
               f"largest drop {drop} place{'' if drop == 1 else 's'}")
    click.echo("rank_loo: the place the left-out score takes among the other runs' full "
               "scores (1 + those above it); drop = rank_loo - rank")
    rows = sorted(result.runs, key=lambda r: (-r.drop, r.run))
    click.echo(_plain(
        ["run", "full", "rank", "left_out", "rank_loo", "drop", "unique_rel"],
        [[r.run, _num(r.score_full), str(r.rank_full), _num(r.score_loo), str(r.rank_loo),
          str(r.drop), str(r.unique_relevant)] for r in rows],
    ))
