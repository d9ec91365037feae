"""`workbench compare`: systems ranked under each qrels source, rank correlation between
those rankings, and the significance of every system pair.

    workbench compare [-m MEASURE] [--by-assessor] [--assessor NAME ...]
                      [--consensus majority|mean|adjudicated | --source SPEC] [--test t|randomization|bootstrap]
                      [-n N] [--seed S] [--rbo-p P] [--format table|csv|json] [--db URL]

    workbench compare --qrels A.txt [B.txt ...] --run r1 r2 [...] [-m MEASURE] [-l N] [...]

On files each qrels file is a source (the first one is the reference and the one the tests
use) and each run file a system. Formats: `table` (rich), `json` (docs/architecture.md#command-line-contract) and `csv` (one
value per row: kind,source,a,b,statistic,value).
"""

from __future__ import annotations

import json
import math
import sys

import click

from workbench.cli import db_option, resolve_db
from workbench.defaults import FILES_MEASURE
from workbench.formats.csv_cells import csv_writer
from workbench.formats.numbers import DECIMALS, number, p_value

FORMATS = click.Choice(["table", "csv", "json"])
TESTS = click.Choice(["t", "randomization", "bootstrap", "ppi"])
CONSENSUS = click.Choice(["majority", "mean", "adjudicated"])


class _FilesCommand(click.Command):
    """`compare`: --qrels and --run take the files after them (parsed by _split_files, not
    by click), so they are added to the help's option list by hand."""

    FILE_OPTIONS = [
        ("--qrels FILE [FILE ...]", "On files: qrels, one source each (the first the "
                                    "reference); the files follow the flag."),
        ("--run FILE [FILE ...]", "On files: run files, one system each."),
    ]

    def format_options(self, ctx, formatter) -> None:
        rows = [r for p in self.get_params(ctx)
                if isinstance(p, click.Option) and (r := p.get_help_record(ctx)) is not None]
        with formatter.section("Options"):
            formatter.write_dl(self.FILE_OPTIONS + rows)


@click.command("compare", cls=_FilesCommand, context_settings={"ignore_unknown_options": True})
@click.argument("files", nargs=-1, type=click.UNPROCESSED)
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure to rank by (default: the campaign's first default measure; "
                   f"{FILES_MEASURE} on files). Repeat to add rankings by other measures under the "
                   "consensus (or the first qrels file); tests use the first.")
@click.option("-l", "--level", "level", type=int, default=1, show_default=True, metavar="N",
              help="Relevance threshold on files (grade >= N relevant).")
@click.option("--by-assessor", is_flag=True,
              help="Also rank under each assessor's own grades and correlate the rankings.")
@click.option("--assessor", "-a", "assessors", multiple=True, metavar="NAME",
              help="Rank under these assessors' grades (repeatable; implies --by-assessor).")
@click.option("--consensus", type=CONSENSUS, default=None,
              help="The consensus qrels: the first source, and the one tests use (default majority).")
@click.option("--source", "source", default=None, metavar="SPEC",
              help="Instead of --consensus, the first qrels source: majority, mean, adjudicated, assessor:NAME or hybrid:MACHINE.")
@click.option("--test", "test", type=TESTS, default="t", show_default=True,
              help="Paired significance test between systems (two-sided, Holm-corrected); "
                   "ppi: prediction-powered, with --source hybrid:MACHINE and -m P@k, DCG@k, CG@k or RBP(rel=N) "
                   "(docs/uncertainty.md).")
@click.option("-n", "--resamples", type=click.IntRange(min=1), default=None, metavar="N",
              help="Permutations (randomization) or resamples (bootstrap); default 10 000.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random tests.")
@click.option("--rbo-p", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.9,
              show_default=True, help="RBO persistence p.")
@click.option("--lists", nargs=2, default=None, metavar="SYSTEM SYSTEM",
              help="Instead: compare two systems' result lists query by query (shared "
                   "documents, Kendall tau-b over them, RBO).")
@click.option("--depth", type=click.IntRange(min=1), default=None, metavar="K",
              help="With --lists: cut each list at K documents.")
@click.option("--pair", nargs=2, default=None, metavar="A B",
              help="With --per-query: two systems (stored, or run tags of the --run files) "
                   "query by query: wins/ties/losses, sorted differences, the queries that "
                   "differ most.")
@click.option("--per-query", is_flag=True, help="With --pair: the per-query report.")
@click.option("--plot", "plot", default=None, metavar="FILE",
              help="Also draw the ranking (with --pair: the sorted per-query differences) "
                   "to FILE (.png, .svg or .pdf).")
@click.option("--all-queries", is_flag=True,
              help="With several sources: rank each on every query it judged (default: only "
                   "on the queries all sources judged, so an unfinished assessor is comparable).")
@click.option("--format", "fmt", type=FORMATS, default="table", show_default=True)
@db_option
@click.pass_context
def compare(ctx, files, measures, level, by_assessor, assessors, consensus, source, test, resamples,
            seed, rbo_p, lists, depth, pair, per_query, plot, all_queries, fmt, db):
    """Compare stored systems: rankings under the consensus (and each assessor with
    --by-assessor), Kendall tau-b/tau-a, tau_AP and RBO between rankings, and paired tests
    of every system pair with Holm-Bonferroni correction.

    On files: `compare --qrels A.txt [B.txt ...] --run r1 r2 ...` (each qrels file a
    source, the first the reference; each run a system). Result lists: `compare --lists
    SYS_A SYS_B` (stored systems) or `compare --run r1 r2 --lists TAG_A TAG_B`."""
    measure, others = (measures[0], list(measures[1:])) if measures else (None, [])
    if test == "ppi" and (files or lists):
        raise click.UsageError("--test ppi works on the stored campaign with --source hybrid:MACHINE")
    from workbench.campaign.plotting import check

    check(plot)
    if pair or per_query:
        from workbench.cli.compare_pair import compare_pair

        compare_pair(ctx, db, files, pair, per_query, measure, level, source, consensus, test,
                     seed, resamples, fmt, plot)
        return
    if lists:
        _compare_lists(ctx, db, files, lists, depth, rbo_p, fmt)
        return
    if files:
        qrels_paths, run_paths = _split_files(files)
        from workbench.campaign.comparison.systems import compare_files

        report = compare_files(  # a bad measure name: MeasureError, one line, exit 2
            qrels_paths, run_paths, measure or FILES_MEASURE, other_measures=others,
            rel_level=level, test=test,
            seed=seed, n_resamples=resamples, rbo_p=rbo_p,
        )
        _output(report, fmt, plot)
        return

    from workbench.campaign.comparison.systems import compare_systems
    from workbench.campaign.database import Database
    from workbench.cli.sources import qrels_source
    from workbench.campaign.settings import campaign_measures

    chosen = qrels_source(source=source, consensus=consensus)

    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        if measure is None:
            measure = campaign_measures(database)[0]
        report = compare_systems(
            database, measure, by_assessor=by_assessor, source=chosen,
            other_measures=others,
            assessors=list(assessors) or None, test="t" if test == "ppi" else test, seed=seed,
            n_resamples=resamples, rbo_p=rbo_p, all_queries=all_queries,
        )
        if test == "ppi":
            from workbench.campaign.comparison.systems import with_ppi_tests

            report = with_ppi_tests(database, report, measure, chosen)
    finally:
        database.close()
    _output(report, fmt, plot)


def _compare_lists(ctx, db, files, systems, depth, rbo_p, fmt) -> None:
    from workbench.campaign.comparison.lists import compare_lists, lists_from_db, lists_from_run
    from workbench.errors import NotFoundError

    a, b = systems
    if files:
        _, run_paths = _split_files(files, need_qrels=False)
        from workbench.formats.trec import read_run

        runs = {}
        for path in run_paths:
            run = read_run(path)
            runs[run.tag or path] = run
            runs.setdefault(path, run)
        for name in (a, b):
            if name not in runs:
                raise NotFoundError(f"no run file with tag or path {name!r}")
        lists_a, lists_b = lists_from_run(runs[a]), lists_from_run(runs[b])
    else:
        from workbench.campaign.database import Database

        database = Database.open(resolve_db(ctx, db), create=False)
        try:
            lists_a, lists_b = lists_from_db(database, a), lists_from_db(database, b)
        finally:
            database.close()
    report = compare_lists(a, b, lists_a, lists_b, p=rbo_p, depth=depth)
    if fmt == "json":
        click.echo(json.dumps(report.to_json(), indent=2))
        return
    if fmt == "csv":
        writer = csv_writer(sys.stdout)
        writer.writerow(["query", "n_a", "n_b", "shared", "kendall_tau_b", "rbo"])
        for r in report.rows:
            writer.writerow([r.query, r.n_a, r.n_b, r.shared,
                             "" if math.isnan(r.kendall_tau_b) else f"{r.kendall_tau_b:.6f}",
                             f"{r.rbo:.6f}"])
        return
    from rich import box
    from workbench.cli import rich_console
    from rich.table import Table
    from rich.text import Text

    console = rich_console()
    if not console.is_terminal:
        console.width = 120
    cut = f", top {depth}" if depth else ""
    table = Table(title=f"Result lists of {a} and {b} (RBO p = {rbo_p}{cut})",
                  title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("query", f"|{a}|", f"|{b}|", "shared", "τ-b shared", "RBO"):
        table.add_column(Text(col), justify="left" if col == "query" else "right")
    for r in report.rows:
        table.add_row(Text(r.query), str(r.n_a), str(r.n_b), str(r.shared),
                      _fmt(r.kendall_tau_b), _fmt(r.rbo))
    table.add_row("mean", "", "", "", _fmt(report.mean_kendall_tau_b), _fmt(report.mean_rbo),
                  style="bold")
    console.print(table)


def _split_files(tokens, need_qrels: bool = True) -> tuple[list[str], list[str]]:
    """`--qrels A B --run r1 r2` (either order, flags repeatable) -> qrels and run paths."""
    qrels: list[str] = []
    runs: list[str] = []
    target = None
    for token in tokens:
        if token == "--qrels":
            target = qrels
        elif token == "--run":
            target = runs
        elif token.startswith("-") and token != "-":
            raise click.UsageError(f"no such option: {token}")
        elif target is None:
            raise click.UsageError(f"unexpected argument {token!r}: files follow --qrels or --run")
        else:
            target.append(token)
    if (need_qrels and not qrels) or not runs:
        raise click.UsageError("on files, give --qrels FILE [FILE ...] and --run FILE [FILE ...]")
    return qrels, runs


def _output(report, fmt: str, plot=None) -> None:
    if fmt != "json":
        for warning in getattr(report, "warnings", ()):
            click.echo(f"workbench: warning: {warning}", err=True)
    if plot is not None:
        from workbench.campaign.plotting import plot_ranking

        plot_ranking(plot, report)
    if fmt == "json":
        click.echo(json.dumps(report.to_json(), indent=2))
    elif fmt == "csv":
        _write_csv(report, sys.stdout)
    else:
        _print_tables(report)


def _fmt(value: float, digits: int = DECIMALS) -> str:
    return number(value, digits)


def _p(value: float) -> str:
    return p_value(value)


def _csv_rows(report):
    for source, order in report.rankings.items():
        for rank, system in enumerate(order, 1):
            yield ("ranking", source, system, "", "rank", rank)
            yield ("ranking", source, system, "", "mean", report.means[source][system])
    for c in report.correlations:
        for name in ("kendall_tau_b", "kendall_tau_a", "tau_ap", "rbo"):
            yield ("correlation", "", c.a, c.b, name, getattr(c, name))
    names = ("mean_diff", "p_value", "p_holm", "ci_low", "ci_high", "effect_size",
             "effect_size_low", "effect_size_high")
    attr = {"ci_low": "low", "ci_high": "high", "effect_size_low": "effect_low",
            "effect_size_high": "effect_high"}
    for t in report.tests:
        for name in names:
            yield ("test", report.tests_source, t.a, t.b, name, getattr(t, attr.get(name, name)))


def _write_csv(report, out) -> None:
    writer = csv_writer(out)
    writer.writerow(["kind", "source", "a", "b", "statistic", "value"])
    for kind, source, a, b, name, value in _csv_rows(report):
        if isinstance(value, int):
            text = str(value)
        else:
            text = "" if math.isnan(value) else f"{value:.6f}"
        writer.writerow([kind, source, a, b, name, text])


def _print_tables(report) -> None:
    from rich import box
    from workbench.cli import rich_console
    from rich.table import Table
    from rich.text import Text

    console = rich_console()
    if not console.is_terminal:  # piped: do not squeeze the tables into 80 columns
        console.width = 120
    # coverage first: what each ranking below stands on
    if report.coverage:
        cov = Table(title="Coverage of each qrels source", title_justify="left",
                    box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("source", "queries judged", "Judged@10 (mean)"):
            cov.add_column(col, justify="left" if col == "source" else "right")
        for source, c in report.coverage.items():
            cov.add_row(Text(source), str(c["queries"]), _fmt(c["judged_at_10"]))
        console.print(cov)
        if report.left_out:
            console.print(Text(f"Left out (no judged query): {', '.join(report.left_out)}.",
                               style="yellow"))
        if report.common_queries is not None:
            console.print(Text(f"Every source is compared on the {report.common_queries} queries all of "
                               "them judged (--all-queries: each on its own).", style="dim"))
    sources = list(report.rankings)
    ranks = Table(title=f"Systems ranked by {report.measure}", title_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False)
    ranks.add_column("#", justify="right")
    for source in sources:
        ranks.add_column(source)
        ranks.add_column("mean", justify="right")
    depth = max((len(r) for r in report.rankings.values()), default=0)
    for i in range(depth):
        cells: list = [str(i + 1)]
        for source in sources:
            order = report.rankings[source]
            if i < len(order):
                cells += [Text(order[i]), _fmt(report.means[source][order[i]])]
            else:
                cells += ["", ""]
        ranks.add_row(*cells)
    console.print(ranks)
    if depth == 0:
        console.print(Text("No system could be scored: no stored runs, or no judgments yet."))
        return

    if report.correlations:
        table = Table(title="Rank correlation between the rankings", title_justify="left",
                      box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("a (reference)", "b", "systems", "τ-b", "τ-a", "τ_AP", "RBO"):
            table.add_column(col, justify="right" if col not in ("a (reference)", "b") else "left")
        for c in report.correlations:
            table.add_row(Text(c.a), Text(c.b), str(c.n_systems), _fmt(c.kendall_tau_b),
                          _fmt(c.kendall_tau_a), _fmt(c.tau_ap), _fmt(c.rbo))
        console.print(table)

    if report.tests:
        names = {"t": "paired t-test", "randomization": "randomization test",
                 "bootstrap": "bootstrap test", "ppi": "prediction-powered test"}
        ci = "95% CI" + {"bootstrap": " (bootstrap)", "ppi": " (ppi)"}.get(report.test, " (t)")
        cols = ("a", "b", "queries", "mean a−b", ci, "g_z", "g_z 95% CI", "p", "p Holm", "")
        rows = []

        def interval(low: float, high: float, fmt=_fmt) -> str:
            return "–" if math.isnan(low) or math.isnan(high) else f"[{fmt(low)}, {fmt(high)}]"

        def es(x: float) -> str:
            return "–" if math.isnan(x) else f"{x:.3f}"

        for t in report.tests:
            mark = "significant" if not math.isnan(t.p_holm) and t.p_holm < report.alpha else ""
            rows.append((t.a, t.b, str(t.n_queries), _fmt(t.mean_diff), interval(t.low, t.high),
                         es(t.effect_size), interval(t.effect_low, t.effect_high, es),
                         _p(t.p_value), _p(t.p_holm), mark))
        console.file.flush()
        click.echo(_plain_table(
            f"{names[report.test]} under {report.tests_source}, Holm-corrected over "
            f"{len(report.tests)} pairs", cols, rows, left={"a", "b", ""},
        ))
        order = report.rankings[report.tests_source]
        if len(order) >= 3:
            click.echo(_matrix(report, order))
        console.print(Text(f"significant: Holm-adjusted p < {report.alpha}; g_z: paired effect "
                           "size (Cohen's d_z with Hedges' correction), its interval from the "
                           "noncentral t", style="dim"))
        console.file.flush()
        for t in report.tests:
            click.echo(t.sentence(report.alpha))


def _plain_table(title: str, headers, rows, *, left=frozenset()) -> str:
    """A table as plain text, laid out like rich's SIMPLE_HEAD box. The tests table has
    n(n-1)/2 rows (4 950 for 100 systems): rich took seconds to lay that out."""
    from rich.cells import cell_len

    widths = [max([cell_len(h)] + [cell_len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def line(cells) -> str:
        out = []
        for i, (cell, w) in enumerate(zip(cells, widths)):
            pad = " " * (w - cell_len(cell))
            out.append(cell + pad if headers[i] in left else pad + cell)
        return "  ".join(out).rstrip()

    rule = "  ".join("─" * w for w in widths)
    return "\n".join([title, line(headers), rule, *(line(r) for r in rows), ""])


def _matrix(report, order) -> str:
    """Systems x systems in ranking order: Holm p of row vs column, * when significant."""
    p_holm = {}
    for t in report.tests:
        p_holm[(t.a, t.b)] = p_holm[(t.b, t.a)] = t.p_holm
    rows = []
    for i, row in enumerate(order[:-1]):
        cells = [row]
        for j, col in enumerate(order[1:], 1):
            if j <= i:
                cells.append("")
                continue
            p = p_holm.get((row, col), math.nan)
            star = "*" if not math.isnan(p) and p < report.alpha else " "
            cells.append(f"{_p(p)}{star}")
        rows.append(tuple(cells))
    return _plain_table("Significance matrix (Holm p; * significant)", ("", *order[1:]), rows,
                        left={""})
