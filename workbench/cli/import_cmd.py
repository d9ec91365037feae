"""`workbench import queries|docs|run|qrels FILE`: all-or-nothing imports with a summary line.

A progress bar is drawn on stderr when it is a terminal (big files take a few seconds);
the summary goes to stdout.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import click

from workbench.cli import db_option, resolve_db

FORMAT_CHOICE = click.Choice(["tsv", "jsonl", "trec"], case_sensitive=False)


@contextmanager
def _progress(enabled: bool | None = None):
    """A progress callback for the importers: a rich bar on stderr, or nothing."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bar = Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=Console(stderr=True), transient=True,
    )
    tasks: dict[str, int] = {}

    def update(stage: str, done: int, total: int | None) -> None:
        if stage not in tasks:
            tasks[stage] = bar.add_task(stage, total=total)
        bar.update(tasks[stage], completed=done, total=total)

    with bar:
        yield update


def _open(ctx: click.Context, db: str | None):
    from workbench.campaign.database import Database

    return Database.open(resolve_db(ctx, db))


@click.group(name="import")
def import_() -> None:
    """Import queries, documents, a run or qrels (all-or-nothing: a bad line writes nothing)."""


@import_.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=FORMAT_CHOICE, default=None, help="File format (default: sniffed).")
@db_option
@click.pass_context
def queries(ctx: click.Context, file: str, fmt: str | None, db: str | None) -> None:
    """Import topics: TSV (qid<TAB>title), JSONL or TREC topic files."""
    from workbench.campaign.importing import import_queries

    database = _open(ctx, db)
    try:
        with _progress() as progress:
            summary = import_queries(database, file, format=fmt, progress=progress)
    finally:
        database.close()
    click.echo(summary.message())


@import_.command(name="docs")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=FORMAT_CHOICE, default=None, help="File format (default: sniffed).")
@db_option
@click.pass_context
def docs(ctx: click.Context, file: str, fmt: str | None, db: str | None) -> None:
    """Import documents: TSV (id<TAB>[title<TAB>]text), JSONL or TREC <DOC> files."""
    from workbench.campaign.importing import import_documents

    database = _open(ctx, db)
    try:
        with _progress() as progress:
            summary = import_documents(database, file, format=fmt, progress=progress)
    finally:
        database.close()
    click.echo(summary.message())


@import_.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--name", default=None, help="System tag (default: the run file's tag column).")
@click.option("--replace", is_flag=True, help="Replace the results of a run already imported under this tag.")
@db_option
@click.pass_context
def run(ctx: click.Context, file: str, name: str | None, replace: bool, db: str | None) -> None:
    """Import a TREC run (qid Q0 docno rank score tag) as one system."""
    from workbench.campaign.importing import import_run

    database = _open(ctx, db)
    try:
        with _progress() as progress:
            summary = import_run(database, file, name=name, replace=replace, progress=progress)
    finally:
        database.close()
    click.echo(summary.message())


@import_.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--assessor", required=True, help="Whose judgments these are.")
@db_option
@click.pass_context
def qrels(ctx: click.Context, file: str, assessor: str, db: str | None) -> None:
    """Import TREC qrels (qid iter docno grade) as one assessor's judgments."""
    from workbench.campaign.importing import import_qrels

    database = _open(ctx, db)
    try:
        with _progress() as progress:
            summary = import_qrels(database, file, assessor=assessor, progress=progress)
    finally:
        database.close()
    click.echo(summary.message())
