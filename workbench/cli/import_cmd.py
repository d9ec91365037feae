"""`workbench import queries|docs|run|qrels|leaderboard FILE`: all-or-nothing imports with a summary line.

A progress bar is drawn on stderr when it is a terminal (big files take a few seconds);
the summary goes to stdout.

Ctrl-C: before the commit it aborts the import and nothing is written ("aborted before the
commit: nothing was written", exit 1). Once the commit has begun (the importer's
"committing" stage) Ctrl-C is only noted: the commit of a big import takes a moment (the
WAL fsync), and a KeyboardInterrupt raised right after it used to print "aborted" for an
import that was on disk. The import then finishes, its summary ends with "(interrupted after
commit)", and the exit code is 0: what the message says is what happened.
"""

from __future__ import annotations

import signal
import sys
import threading
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
    from workbench.cli import rich_console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bar = Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=rich_console(stderr=True), transient=True,
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


class _CommitGuard:
    """From `arm()` on, SIGINT is noted instead of raising KeyboardInterrupt (main thread
    only: signal handlers can be set nowhere else)."""

    def __init__(self) -> None:
        self.interrupted = False
        self._previous = None
        self._armed = False

    def arm(self) -> None:
        if self._armed or threading.current_thread() is not threading.main_thread():
            return
        self._previous = signal.signal(signal.SIGINT, self._note)
        self._armed = True

    def _note(self, signum, frame) -> None:
        self.interrupted = True

    def disarm(self) -> None:
        if self._armed:
            signal.signal(signal.SIGINT, self._previous if self._previous is not None
                          else signal.default_int_handler)
            self._armed = False


def _run(ctx: click.Context, db: str | None, importer, file, **kwargs) -> None:
    """Open the database, run one importer with a progress bar, print its summary (or
    summaries: `file` may be a list of files for importers that take several)."""
    from workbench.campaign.database import Database
    from workbench.errors import is_driver_error, one_line
    from workbench.errors import DatabaseError, WorkbenchError

    database = Database.open(resolve_db(ctx, db))
    guard = _CommitGuard()
    try:
        with _progress() as bar:

            def progress(stage: str, done: int, total: int | None) -> None:
                if stage == "committing":
                    guard.arm()
                if bar is not None:
                    bar(stage, done, total)

            summary = importer(database, file, progress=progress, **kwargs)
        for one in summary if isinstance(summary, list) else [summary]:
            message = one.message()
            click.echo(f"{message} (interrupted after commit)" if guard.interrupted else message)
    except KeyboardInterrupt:  # before the commit: the transaction rolled back
        raise WorkbenchError(
            f"import of {_files(file)} aborted before the commit: nothing was written"
        ) from None
    except Exception as exc:  # e.g. a lost connection: the transaction rolled back
        if not is_driver_error(exc):
            raise
        raise DatabaseError(
            f"import of {_files(file)} failed, nothing was written: {one_line(exc)}"
        ) from None
    finally:
        database.close()
        guard.disarm()


def _files(file) -> str:
    return f"{len(file)} files" if isinstance(file, list) else str(file)


@click.group(name="import")
def import_() -> None:
    """Import queries, documents, a run or qrels (all-or-nothing: a bad line writes nothing).

    Ctrl-C before the commit writes nothing (exit 1); once the commit has begun the import
    completes and says "(interrupted after commit)" (exit 0).
    """


@import_.command()
@click.argument("file", type=click.Path())  # a directory is bad data: the reader says so, exit 1
@click.option("--format", "fmt", type=FORMAT_CHOICE, default=None, help="File format (default: sniffed).")
@db_option
@click.pass_context
def queries(ctx: click.Context, file: str, fmt: str | None, db: str | None) -> None:
    """Import topics: TSV, JSONL or TREC topic files.

    \b
    TSV:   qid<TAB>title[<TAB>description[<TAB>narrative]]; a first line starting with
           qid, id or query_id is a header.
    JSONL: {"id", "title", "description", "narrative"}; also qid/query_id/_id/topic_id
           for the id, query/text for the title, desc/narr for the others.
    TREC:  <top> <num> Number: 401 <title> ... <desc> ... <narr> ... </top>, or the web
           track's <topic number="1"> <query>...</query> ...
    A file that looks like documents, a run or qrels is refused, naming what it looks like.
    """
    from workbench.campaign.catalog.importing import import_queries
    from workbench.formats.kinds import check_kind

    check_kind(file, "queries")
    _run(ctx, db, import_queries, file, format=fmt)


@import_.command(name="docs")
@click.argument("file", type=click.Path())  # a directory is bad data: the reader says so, exit 1
@click.option("--format", "fmt", type=FORMAT_CHOICE, default=None, help="File format (default: sniffed).")
@db_option
@click.pass_context
def docs(ctx: click.Context, file: str, fmt: str | None, db: str | None) -> None:
    """Import documents: TSV, JSONL or TREC <DOC> files.

    \b
    TSV:   id<TAB>text, id<TAB>title<TAB>text or id<TAB>url<TAB>title<TAB>text (the first
           record fixes the layout; a first line starting with id/docno/doc_id is a header).
    JSONL: {"id", "title", "text", "url"}; also docno/doc_id/docid/_id/pid for the id and
           contents/body for the text.
    TREC:  <DOC><DOCNO>..</DOCNO> [<TITLE>|<HEADLINE>..] <TEXT>..</TEXT></DOC>.
    A file that looks like topics, a run or qrels is refused, naming what it looks like.
    """
    from workbench.campaign.catalog.importing import import_documents
    from workbench.formats.kinds import check_kind

    check_kind(file, "documents")
    _run(ctx, db, import_documents, file, format=fmt)


@import_.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())  # a directory: bad data, exit 1
@click.option("--name", default=None, help="System tag (default: the run file's tag column; one FILE only).")
@click.option("--replace", is_flag=True, help="Replace the results of a run already imported under this tag.")
@db_option
@click.pass_context
def run(ctx: click.Context, files: tuple[str, ...], name: str | None, replace: bool, db: str | None) -> None:
    """Import TREC runs (qid Q0 docno rank score tag), one system per FILE.

    Several files go in one transaction: each is checked first, and a bad line in any of
    them writes nothing (`import run runs/*` is also much faster than one command per file).
    """
    from workbench.campaign.catalog.importing import import_run, import_runs
    from workbench.formats.kinds import check_kind

    for f in files:
        check_kind(f, "run")
    if len(files) == 1:
        _run(ctx, db, import_run, files[0], name=name, replace=replace)
        return
    if name is not None:
        raise click.UsageError("--name names one run: give one FILE with it")
    _run(ctx, db, import_runs, list(files), replace=replace)


@import_.command()
@click.argument("file", type=click.Path())  # a directory is bad data: the reader says so, exit 1
@click.option("--assessor", "-a", default=None, metavar="NAME", callback=checked_name,
              help="Whose judgments these are (required for people; a machine's defaults to --model).")
@click.option("--machine", is_flag=True,
              help="The labels are a model's, made elsewhere (UMBRELA, another tool, a previous "
                   "year): stored as a machine assessor with its provenance.")
@click.option("--model", default=None, metavar="NAME", help="With --machine: the model that made the labels.")
@click.option("--prompt", "prompt_file", default=None, metavar="FILE", type=click.Path(dir_okay=False),
              help="With --machine: the prompt the labels were made with (stored with its sha256).")
@click.option("--endpoint", default=None, metavar="URL",
              help="With --machine: where the model ran (stored without credentials).")
@click.option("--format", "fmt", type=click.Choice(["trec", "umbrela"]), default="trec", show_default=True,
              help="trec (qid iter docno grade) or, with --machine, umbrela (UMBRELA's JSONL: queries and "
                   "passages matched by exact text, the grade read from `prediction`).")
@click.option("--strict", is_flag=True,
              help="Refuse the file (exit 1, nothing written) when a grade is outside the "
                   "assessor's assignment (an assessor with a queue; without --strict they "
                   "are imported and counted in the summary).")
@db_option
@click.pass_context
def qrels(ctx: click.Context, file: str, assessor: str | None, machine: bool, model: str | None,
          prompt_file: str | None, endpoint: str | None, fmt: str, strict: bool,
          db: str | None) -> None:
    """Import TREC qrels (qid iter docno grade) as one assessor's judgments; with --machine
    --model NAME, as a machine assessor's labels (docs/machine-assessors.md); with
    --machine --format umbrela, UMBRELA's JSONL (the model named in the file)."""
    import os

    from workbench.campaign.catalog.importing import import_qrels
    from workbench.formats.kinds import check_kind

    if fmt == "umbrela":
        if not machine:
            raise click.UsageError("--format umbrela reads a model's labels: add --machine")
        from workbench.campaign.machine.umbrela import import_umbrela

        prompt = ""
        if prompt_file is not None:
            from workbench.cli.autojudge_cmd import read_prompt

            prompt = read_prompt(prompt_file, check=False)
        _run(ctx, db, import_umbrela, file, assessor=assessor, model=model, prompt=prompt,
             endpoint=endpoint or "")
        return
    provenance = None
    if machine:
        if not model:
            raise click.UsageError("--machine needs --model NAME (the model that made the labels)")
        from workbench.campaign.machine.provenance import make_provenance

        prompt = ""
        if prompt_file is not None:
            from workbench.cli.autojudge_cmd import read_prompt

            prompt = read_prompt(prompt_file, check=False)
        provenance = make_provenance(model, endpoint=endpoint or "", prompt=prompt,
                                     origin=f"import {os.path.basename(file)}")
        assessor = assessor or checked_name(ctx, None, model)
    elif model or prompt_file or endpoint:
        raise click.UsageError("--model, --prompt and --endpoint describe a machine: add --machine")
    elif assessor is None:
        raise click.UsageError("Missing option '--assessor' (whose judgments these are)")
    check_kind(file, "qrels")
    _run(ctx, db, import_qrels, file, assessor=assessor, machine=provenance, strict=strict)


@import_.command(name="dataset")
@click.argument("dataset_id", metavar="ID")
@click.option("--docs", "docs", type=click.Choice(["pooled", "all", "none"]), default="pooled",
              show_default=True,
              help="Documents to fetch from the docstore: the judged ones and the pool's, "
                   "every one, or none.")
@click.option("--assessor", "-a", default=None, metavar="NAME", callback=checked_name,
              help="Whose grades the qrels become (default: the dataset id, / as -).")
@db_option
@click.pass_context
def dataset(ctx: click.Context, dataset_id: str, docs: str, assessor: str | None,
            db: str | None) -> None:
    """Import an ir_datasets dataset (pip install 'workbench[datasets]'): its queries (every
    field), documents, relevance scale (qrels_defs) and qrels as one assessor's grades, in
    one transaction. Offline, a dataset not downloaded gives one line and writes nothing."""
    from workbench.campaign.catalog.datasets import import_dataset

    name = assessor or checked_name(ctx, None, dataset_id.replace("/", "-"))
    _run(ctx, db, lambda database, ds, progress: import_dataset(
        database, ds, assessor=name, docs=docs, progress=progress), dataset_id)


@import_.command()
@click.argument("file", type=click.Path())
@click.option("--name", required=True, metavar="NAME", callback=checked_name,
              help="The leaderboard's name: the source leaderboard:NAME (an existing one is replaced).")
@click.option("--format", "fmt", type=click.Choice(["trec_eval", "tot", "ir_measures", "jsonl"]), default=None,
              help="trec_eval (measure topic value; run = file name), tot (run measure topic value), "
                   "ir_measures (run topic measure value) or jsonl ({run_id, topic_id, measure, value}). "
                   "A four-column file needs it.")
@click.option("--measure", default=None, metavar="M", help="Keep this measure only (a file may hold several).")
@db_option
@click.pass_context
def leaderboard(ctx: click.Context, file: str, name: str, fmt: str | None, measure: str | None,
                db: str | None) -> None:
    """Import a leaderboard (AutoJudge's formats): per-run, per-topic values of measures,
    topic `all` the summary; used as the source leaderboard:NAME (`meta`, `export scores`)."""
    from workbench.campaign.scoring.leaderboards import import_leaderboard

    _run(ctx, db, import_leaderboard, file, name=name, format=fmt, measure=measure)


@import_.command(name="answers")
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--replace", is_flag=True, help="Replace the answers of a (run, topic) already imported.")
@db_option
@click.pass_context
def answers(ctx: click.Context, files: tuple[str, ...], replace: bool, db: str | None) -> None:
    """Import generated answers: TREC RAG 2024 JSONL (run_id, topic_id, references,
    answer: [{text, citations}]) or the 2025 shape (metadata.run_id, metadata.narrative_id;
    citations as indexes or segment ids). All files in one transaction (docs/nuggets.md)."""
    from workbench.campaign.answers.importing import import_answers

    _run(ctx, db, import_answers, list(files), replace=replace)


@import_.command(name="nuggets")
@click.argument("file", type=click.Path())
@db_option
@click.pass_context
def nuggets(ctx: click.Context, file: str, db: str | None) -> None:
    """Import nugget banks: nuggetizer's create output ({qid, query, nuggets: [{text,
    importance}]}, one topic per line)."""
    from workbench.campaign.answers.importing import import_nuggets

    _run(ctx, db, import_nuggets, file)


@import_.command(name="assignments")
@click.argument("file", type=click.Path())
@click.option("--assessor", "-a", default=None, metavar="NAME", callback=checked_name,
              help="Whose labels these are (a machine's defaults to --model).")
@click.option("--machine", is_flag=True, help="The labels are a model's, made elsewhere.")
@click.option("--model", default=None, metavar="NAME", help="With --machine: the model that made the labels.")
@click.option("--prompt", "prompt_file", default=None, metavar="FILE", type=click.Path(dir_okay=False),
              help="With --machine: the prompt the labels were made with.")
@db_option
@click.pass_context
def assignments(ctx: click.Context, file: str, assessor: str | None, machine: bool, model: str | None,
                prompt_file: str | None, db: str | None) -> None:
    """Import nugget assignments: nuggetizer's assign output ({qid, run_id, nuggets:
    [{text, importance, assignment}]}), matched to the topic's nugget bank by text."""
    import os

    from workbench.campaign.answers.importing import import_assignments

    provenance = None
    if machine:
        if not model:
            raise click.UsageError("--machine needs --model NAME (the model that made the labels)")
        from workbench.campaign.machine.provenance import make_provenance

        prompt = ""
        if prompt_file is not None:
            from workbench.cli.autojudge_cmd import read_prompt

            prompt = read_prompt(prompt_file, check=False)
        provenance = make_provenance(model, prompt=prompt, origin=f"import {os.path.basename(file)}")
        assessor = assessor or checked_name(ctx, None, model)
    elif model or prompt_file:
        raise click.UsageError("--model and --prompt describe a machine: add --machine")
    elif assessor is None:
        raise click.UsageError("Missing option '--assessor' (whose labels these are)")
    _run(ctx, db, import_assignments, file, assessor=assessor, machine=provenance)
