"""`workbench import queries|docs|run|qrels FILE`: all-or-nothing imports with a summary line.

A progress bar is drawn on stderr when it is a terminal (big files take a few seconds);
the summary goes to stdout.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import click

from workbench.cli import checked_name, db_option, resolve_db

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
            for earlier in tasks.values():  # one line at a time: reading, then writing
                bar.update(earlier, visible=False)
            tasks[stage] = bar.add_task(stage, total=total)
        bar.update(tasks[stage], completed=done, total=total)

    with bar:
        yield update


def _run(ctx: click.Context, db: str | None, importer, file: str, **kwargs) -> None:
    """Open the database, run one importer with a progress bar, print its summary."""
    from sqlalchemy.exc import SQLAlchemyError

    from workbench.campaign.database import Database
    from workbench.errors import DatabaseError

    database = Database.open(resolve_db(ctx, db))
    try:
        with _progress() as progress:
            summary = importer(database, file, progress=progress, **kwargs)
    except SQLAlchemyError as exc:  # e.g. a lost connection: the transaction rolled back
        first = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise DatabaseError(f"import of {file} failed, nothing was written: {first}") from None
    finally:
        database.close()
    click.echo(summary.message())


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

    _run(ctx, db, import_queries, file, format=fmt)


@import_.command(name="docs")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=FORMAT_CHOICE, default=None, help="File format (default: sniffed).")
@db_option
@click.pass_context
def docs(ctx: click.Context, file: str, fmt: str | None, db: str | None) -> None:
    """Import documents: TSV (id<TAB>[title<TAB>]text), JSONL or TREC <DOC> files."""
    from workbench.campaign.importing import import_documents

    _run(ctx, db, import_documents, file, format=fmt)


@import_.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--name", default=None, help="System tag (default: the run file's tag column).")
@click.option("--replace", is_flag=True, help="Replace the results of a run already imported under this tag.")
@db_option
@click.pass_context
def run(ctx: click.Context, file: str, name: str | None, replace: bool, db: str | None) -> None:
    """Import a TREC run (qid Q0 docno rank score tag) as one system."""
    from workbench.campaign.importing import import_run

    _run(ctx, db, import_run, file, name=name, replace=replace)


@import_.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--assessor", required=True, callback=checked_name, help="Whose judgments these are.")
@db_option
@click.pass_context
def qrels(ctx: click.Context, file: str, assessor: str, db: str | None) -> None:
    """Import TREC qrels (qid iter docno grade) as one assessor's judgments."""
    from workbench.campaign.importing import import_qrels

    _run(ctx, db, import_qrels, file, assessor=assessor)
