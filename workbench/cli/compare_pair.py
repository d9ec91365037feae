"""`workbench compare --pair A B --per-query`: two systems query by query
(`campaign.comparison.pair`), as a table, CSV or JSON (docs/json-outputs.md)."""

from __future__ import annotations

import json
import sys

import click

from workbench.defaults import FILES_MEASURE
from workbench.errors import UsageError
from workbench.formats.numbers import number


def compare_pair(ctx, db, files, pair, per_query, measure, level, source, consensus, test,
                 seed, resamples, fmt, plot=None) -> None:
    from workbench.campaign.comparison import pair as pairs

    if not pair or not per_query:
        raise UsageError("give --pair A B --per-query together")
    a, b = pair
    kw = dict(test=test, seed=seed, n_resamples=resamples)
    if files:
        from workbench.cli.compare_cmd import _split_files

        qrels_paths, run_paths = _split_files(files)
        if len(qrels_paths) != 1:
            raise UsageError("--pair compares two runs under one --qrels file")
        report = pairs.pair_from_files(qrels_paths[0], run_paths, a, b, measure or FILES_MEASURE,
                                       rel_level=level, **kw)
    else:
        from workbench.campaign.database import Database
        from workbench.campaign.settings import campaign_measures
        from workbench.cli import resolve_db
        from workbench.cli.sources import qrels_source

        chosen = qrels_source(source=source, consensus=consensus)
        database = Database.open(resolve_db(ctx, db), create=False)
        try:
            report = pairs.pair_from_db(database, a, b, measure or campaign_measures(database)[0],
                                        chosen, **kw)
        finally:
            database.close()
    if plot is not None:
        from workbench.campaign.plotting import plot_pair

        plot_pair(plot, report)
    if fmt == "json":
        click.echo(json.dumps(report.to_json(), indent=2))
    elif fmt == "csv":
        _csv(report)
    else:
        _table(report)


def _csv(report) -> None:
    """query,a,b,diff rows, sorted by diff (largest first)."""
    from workbench.formats.csv_cells import csv_writer
    from workbench.formats.score_tables import csv_value

    w = csv_writer(sys.stdout)
    w.writerow(["query", report.a, report.b, "diff"])
    for q, va, vb in zip(report.queries, report.values_a.tolist(), report.values_b.tolist()):
        w.writerow([q, csv_value(va), csv_value(vb), csv_value(va - vb)])


def _f(v: float) -> str:
    return number(v)


def _table(report) -> None:
    from rich.text import Text

    from workbench.cli import rich_console
    from workbench.cli.compare_cmd import _p, _plain_table

    console = rich_console()
    r = report
    pct = int(round(r.confidence * 100))
    console.print(Text(
        f"{r.a} vs {r.b} on {r.measure}, {len(r.queries)} queries: {r.a} wins {r.wins}, "
        f"ties {r.ties}, loses {r.losses}; mean {r.a} − {r.b} = {_f(r.mean_diff)} "
        f"[{pct}% CI {_f(r.low)}, {_f(r.high)}], {r.test} test p = {_p(r.p_value)}"))
    if r.only_a or r.only_b:
        console.print(Text(f"left out: {r.only_a} queries scored for {r.a} only, "
                           f"{r.only_b} for {r.b} only", style="dim"))
    console.file.flush()
    top = r.most_different()
    rows = [(r.queries[i], _f(r.values_a[i]), _f(r.values_b[i]), number(r.diffs[i], signed=True))
            for i in top]
    click.echo(_plain_table(f"The {len(top)} queries where they differ most", ("query", r.a, r.b,
                            "diff"), rows, left={"query"}))
    rows = [(q, _f(va), _f(vb), number(va - vb, signed=True))
            for q, va, vb in zip(r.queries, r.values_a.tolist(), r.values_b.tolist())]
    click.echo(_plain_table(f"Per query, by {r.a} − {r.b}", ("query", r.a, r.b, "diff"), rows,
                            left={"query"}))
