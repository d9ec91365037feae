"""`workbench export qrels|judgments|scores` (docs/architecture.md#command-line-contract). `-o FILE` goes through
formats.output.atomic_output (a file replaced atomically, a FIFO written in place);
without it, or with `-o -`, the export goes to stdout."""

from __future__ import annotations

import sys

import click

from workbench.cli import db_option, resolve_db

CONSENSUS = click.Choice(["majority", "mean", "adjudicated"])


@click.group("export")
def export() -> None:
    """Export qrels, judgments, scores or a run from the database."""


def _open(ctx, db):
    from workbench.campaign.database import Database

    return Database.open(resolve_db(ctx, db), create=False)


def _done(output, count: int, what: str) -> None:
    if output not in (None, "-"):
        click.echo(f"wrote {count} {what} to {output}", err=True)


@export.command("judgments")
@click.option("--history", is_flag=True, help="Every judgment event (with an `event` column), not only current grades.")
@click.option("--assessor", "-a", default=None, metavar="NAME", help="Only this assessor's judgments.")
@click.option("--format", "fmt", type=click.Choice(["csv", "jsonl"]), default="csv", show_default=True)
@click.option("-o", "--output", default=None, metavar="FILE", help="Write to FILE instead of stdout (a file is replaced atomically, a FIFO written in place).")
@db_option
@click.pass_context
def judgments(ctx, history, assessor, fmt, output, db):
    """Judgments as CSV (query,document,assessor,grade,note,seconds,updated_at) or JSONL."""
    from workbench.campaign.catalog.exporting import export_judgments, write_output

    database = _open(ctx, db)
    try:
        count = write_output(
            output,
            lambda out: export_judgments(database, out, format=fmt, history=history, assessor=assessor),
            sys.stdout,
        )
    finally:
        database.close()
    _done(output, count, "events" if history else "judgments")


@export.command("run")
@click.argument("tag")
@click.option("-o", "--output", default=None, metavar="FILE", help="Write to FILE instead of stdout (a file is replaced atomically, a FIFO written in place).")
@db_option
@click.pass_context
def run(ctx, tag, output, db):
    """A stored run as a TREC run file (qid Q0 docno rank score tag): trec_eval gives the
    same numbers on it as on the file imported."""
    from workbench.campaign.catalog.listing import export_run
    from workbench.campaign.catalog.exporting import write_output

    database = _open(ctx, db)
    try:
        count = write_output(output, lambda out: export_run(database, tag, out), sys.stdout)
    finally:
        database.close()
    _done(output, count, "run lines")


@export.command("qrels")
@click.option("--assessor", "-a", default=None, metavar="NAME", help="This assessor's current grades.")
@click.option("--consensus", type=CONSENSUS, default=None,
              help="A consensus over the people's grades (default majority, as `score`; the "
                   "rules: `workbench score --help`).")
@click.option("--source", "source", default=None, metavar="SPEC",
              help="Qrels source: majority, mean, adjudicated, assessor:NAME or hybrid:MACHINE.")
@click.option("-o", "--output", default=None, metavar="FILE", help="Write to FILE instead of stdout (a file is replaced atomically, a FIFO written in place).")
@db_option
@click.pass_context
def qrels(ctx, assessor, consensus, source, output, db):
    """TREC qrels `qid iter docno rel`, sorted by qid then docno; `iter` is 0, or M where
    the grade is a machine's label (hybrid:MACHINE, a machine assessor). The majority
    consensus unless --assessor, --consensus or --source says otherwise."""
    if not (assessor or consensus or source):
        consensus = "majority"  # as `score` and `export scores` default
    from workbench.campaign.catalog.exporting import export_qrels, write_output
    from workbench.cli.sources import qrels_source

    chosen = qrels_source(source=source, assessor=assessor, consensus=consensus)

    database = _open(ctx, db)
    try:
        count = write_output(
            output,
            lambda out: export_qrels(database, out, chosen),
            sys.stdout,
        )
    finally:
        database.close()
    _done(output, count, "qrels lines")


@export.command("scores")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure name (repeatable; default: the campaign's measures).")
@click.option("--assessor", "-a", default=None, metavar="NAME", help="Score against this assessor's grades.")
@click.option("--consensus", type=CONSENSUS, default=None, help="Score against a consensus (default majority).")
@click.option("--source", "source", default=None, metavar="SPEC",
              help="Qrels source: majority, mean, adjudicated, assessor:NAME or hybrid:MACHINE; "
                   "with -q also leaderboard:NAME.")
@click.option("-q", "per_query", is_flag=True,
              help="Long CSV rows system,query,measure,value with every query (query `all` = the mean).")
@click.option("--format", "fmt", type=click.Choice(["csv", "json", "markdown", "latex", "tot", "ir_measures", "jsonl"]),
              default="csv", show_default=True,
              help="The scoreboard's systems x measures table (what its `e` export writes); with -q "
                   "also a leaderboard file: tot, ir_measures or jsonl (AutoJudge's formats).")
@click.option("-o", "--output", default=None, metavar="FILE", help="Write to FILE instead of stdout (a file is replaced atomically, a FIFO written in place).")
@db_option
@click.pass_context
def scores(ctx, measures, assessor, consensus, source, per_query, fmt, output, db):
    """Scores of every stored system: the scoreboard's table (measures, Judged@k and
    unjudged@k; the qrels source named in the file), or with -q long per-query rows."""
    from workbench.cli.sources import qrels_source

    board = None
    if source and source.startswith("leaderboard:"):
        if assessor or consensus:
            raise click.UsageError("give one source: --source leaderboard:NAME alone")
        if not per_query:
            raise click.UsageError("a leaderboard is exported with -q (its per-topic rows)")
        board, chosen = source[len("leaderboard:"):], None
    else:
        chosen = qrels_source(source=source, assessor=assessor, consensus=consensus)
    leaderboard_format = fmt in ("tot", "ir_measures", "jsonl")
    if per_query and fmt not in ("csv", "tot", "ir_measures", "jsonl"):
        raise click.UsageError("-q (per-query rows) needs --format csv, tot, ir_measures or jsonl")
    if leaderboard_format and not per_query:
        raise click.UsageError(f"--format {fmt} writes per-topic rows: add -q")
    from workbench.campaign.catalog.exporting import export_scores, write_output
    from workbench.campaign.scoring.export import export_score_table

    def write(out):
        if leaderboard_format or board is not None:
            from workbench.campaign.scoring.export import export_leaderboard

            return export_leaderboard(database, out, fmt, measures=list(measures) or None,
                                      source=chosen, leaderboard=board)
        if not per_query:
            return export_score_table(database, out, fmt, measures=list(measures) or None,
                                      source=chosen)
        return export_scores(database, out, measures=list(measures) or None,
                             source=chosen, per_query=True)

    database = _open(ctx, db)
    try:
        count = write_output(output, write, sys.stdout)
    finally:
        database.close()
    _done(output, count, "score rows")


def _jsonl_export(ctx, db, output, records, what: str) -> None:
    from workbench.campaign.catalog.exporting import write_output
    from workbench.formats.answer_files import write_jsonl

    database = _open(ctx, db)
    try:
        rows = records(database)

        def write(out) -> int:
            write_jsonl(out, rows)
            return len(rows)

        count = write_output(output, write, sys.stdout)
    finally:
        database.close()
    _done(output, count, what)


_OUTPUT = click.option("-o", "--output", default=None, metavar="FILE",
                       help="Write to FILE instead of stdout (a file is replaced atomically).")
_NUGGET_SOURCE = click.option("--source", "source", default="majority", show_default=True, metavar="SPEC",
                              help="Whose labels: assessor:NAME, majority (people) or hybrid:MACHINE.")


@export.command("nuggets")
@_OUTPUT
@db_option
@click.pass_context
def nuggets(ctx, output, db):
    """Nugget banks as nuggetizer's create output JSONL ({qid, query, nuggets})."""
    from workbench.campaign.answers.exporting import nugget_records

    _jsonl_export(ctx, db, output, nugget_records, "topics")


@export.command("assignments")
@_NUGGET_SOURCE
@_OUTPUT
@db_option
@click.pass_context
def assignments(ctx, source, output, db):
    """Nugget assignments as nuggetizer's assign output JSONL, one record per (topic, run)."""
    from workbench.campaign.answers.exporting import assignment_records
    from workbench.cli.sources import qrels_source

    chosen = qrels_source(source=source)
    _jsonl_export(ctx, db, output, lambda d: assignment_records(d, chosen), "records")


@export.command("nugget-scores")
@_NUGGET_SOURCE
@click.option("--answered-only", is_flag=True, help="Average over the topics each run answered.")
@_OUTPUT
@db_option
@click.pass_context
def nugget_scores(ctx, source, answered_only, output, db):
    """Nugget scores as nuggetizer's metrics JSONL: one line per (run, topic), then the
    run's mean with qid "all"."""
    from workbench.campaign.answers.exporting import score_records
    from workbench.cli.sources import qrels_source

    chosen = qrels_source(source=source)
    _jsonl_export(ctx, db, output, lambda d: score_records(d, chosen, answered_only=answered_only), "lines")


@export.command("answers")
@_OUTPUT
@db_option
@click.pass_context
def answers(ctx, output, db):
    """The generated answers as imported (TREC RAG 2024 or 2025 JSONL)."""
    from workbench.campaign.answers.exporting import answer_records

    _jsonl_export(ctx, db, output, answer_records, "answers")
