"""`workbench grade`: record grades without the TUI, through the same code path
(campaign.judging.grades.record_grade): one transaction per grade, `ok query doc` printed and
flushed only after its commit (docs/architecture.md#command-line-contract, #rules-that-hold-everywhere). With an adaptive pool (`pool --method
mtf|bandit`) each grade that finishes the assessor's queue on a query serves the next
document of that query (campaign/pooling/adaptive.py).

`--batch FILE|-` reads `query doc grade [note...]` lines, streaming (a producer may keep
`-` open and feed it forever); lines end as in every reader (formats.textlines: \n, \r\n
or a lone \r). A bad line is reported on stderr as `FILE:LINE: reason` and skipped; the
exit code is 1 at the end if any line failed.
"""

from __future__ import annotations

import re
import sys

import click

from workbench.cli import checked_name, db_option, resolve_db
from workbench.names import check_id
from workbench.visible import visible

STDIN_NAME = "<stdin>"
_BLANKS = " \t\r\n"
_COLUMNS = re.compile(r"[ \t]+")


def parse_grade_line(text: str) -> tuple[str, str, int, str | None] | None:
    """(query, doc, grade, note) from one batch line; None for a blank or `#` line.
    Raises ValueError with the reason for a malformed line."""
    stripped = text.strip(_BLANKS)
    if not stripped or stripped.startswith("#"):
        return None
    # columns split at ASCII blanks, as the TREC readers split them (not at U+00A0 & co.)
    parts = _COLUMNS.split(stripped, 3)
    if len(parts) < 3:
        raise ValueError(
            f"expected `query doc grade [note]`, got {len(parts)} column{'s' if len(parts) != 1 else ''}"
        )
    query, doc, grade_text = parts[:3]
    check_id(query, "query id")  # (InvalidName is a ValueError: the line's reason)
    check_id(doc, "document id")
    grade = parse_grade(grade_text)
    note = parts[3].strip(_BLANKS) if len(parts) == 4 else None
    return query, doc, grade, note


def parse_grade(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"grade {text!r} is not an integer") from None


@click.command("grade")
@click.option("--assessor", "-a", required=True, metavar="NAME", callback=checked_name,
              help="Who is grading: an assessor of the pool (`pool -a NAME`), or any name "
                   "before a pool exists.")
@click.option("--new", is_flag=True,
              help="NAME is a new assessor: create it. Without it, once a pool exists, a name "
                   "that is not an assessor is refused (a typo would count in the majority).")
@click.option("--batch", "batch", metavar="FILE|-", default=None,
              help="Read `query doc grade [note]` lines from FILE, or stdin for -.")
@click.option("--note", default=None, help="A note to store with a single grade.")
@click.option("--cant-judge", "cant_judge", is_flag=True,
              help="Mark QUERY DOC \"can't judge / broken document\" instead of grading it "
                   "(stored as its own state, not a grade; --note gives the reason; a later "
                   "grade removes the mark). The lead lists marks with `workbench list cant-judge`.")
@click.option("--anywhere", is_flag=True,
              help="Accept grades outside the assessor's assignment (with a warning); "
                   "without it they are refused once a pool exists.")
@click.argument("args", nargs=-1, metavar="[QUERY DOC GRADE]")
@db_option
@click.pass_context
def grade(ctx, assessor, new, batch, note, cant_judge, anywhere, args, db):
    """Record one grade (QUERY DOC GRADE) or a batch of them, or mark a document
    "can't judge" (--cant-judge QUERY DOC).

    Each grade is committed on its own; `ok QUERY DOC` is printed only once it is on disk.
    """
    _check_assessor(ctx, db, assessor, new)
    if cant_judge:
        _mark(ctx, db, assessor, args, batch, note, anywhere)
        return
    if batch is not None and args:
        raise click.UsageError("give either QUERY DOC GRADE or --batch, not both")
    if batch is None and len(args) != 3:
        raise click.UsageError("expected QUERY DOC GRADE (or --batch FILE|-)")
    if batch is not None and note is not None:
        raise click.UsageError("--note is for a single grade; put notes in the batch lines")

    from workbench.campaign.database import Database
    from workbench.errors import InputError, WorkbenchError

    if batch is None:
        query, doc, grade_text = args
        check_id(query, "query id")
        check_id(doc, "document id")
        try:
            value = parse_grade(grade_text)
        except ValueError as exc:
            raise InputError("GRADE", None, str(exc)) from None
        database = Database.open(resolve_db(ctx, db), create=False)
        try:
            from workbench.campaign.writing import OUTAGE_RETRY_S, through_outages
            from workbench.errors import one_line

            with _lease(database, assessor) as held:  # the one lease policy: take over
                through_outages(
                    lambda: (_check_assignment(database, assessor, query, doc, anywhere),
                             _record(database, assessor, query, doc, value, note, held.guard)),
                    on_retry=lambda exc: click.echo(
                        f"workbench: the database cannot be reached ({one_line(exc)}); retrying "
                        f"for up to {OUTAGE_RETRY_S:g} s", err=True),
                )
        except InputError as exc:  # "grade: ..." would name no file: give just the reason
            raise WorkbenchError(exc.reason) from None
        finally:
            database.close()
        _ok(query, doc)
        return

    batch_name = STDIN_NAME if batch == "-" else batch
    if batch == "-":
        failed = _run_batch(ctx, db, assessor, sys.stdin, STDIN_NAME, anywhere)
    else:
        try:
            stream = open(batch, "rb")
        except OSError as exc:
            raise InputError(batch, None, f"cannot read: {exc.strerror}") from None
        with stream:
            failed = _run_batch(ctx, db, assessor, stream, batch, anywhere)
    if failed:
        # An error, not ctx.exit(1): main() maps WorkbenchError to exit code 1.
        raise WorkbenchError(f"{failed} line{'s' if failed != 1 else ''} of {batch_name} failed")


def _check_assessor(ctx, db, assessor: str, new: bool) -> None:
    """A name that is not an assessor of the pool is refused before any grade."""
    from workbench.campaign.assessors.roster import check_assessor
    from workbench.campaign.database import Database

    database = Database.open(resolve_db(ctx, db), create=False)
    try:  # before any warning (--anywhere): a machine's name, a typo
        check_assessor(database, assessor, new=new)
    finally:
        database.close()


def _mark(ctx, db, assessor, args, batch, note, anywhere) -> None:
    """`grade --cant-judge QUERY DOC [--note REASON]`: store the mark, then `ok QUERY DOC`."""
    from workbench.campaign.judging.marks import mark_cant_judge
    from workbench.campaign.database import Database

    if batch is not None or len(args) != 2:
        raise click.UsageError("--cant-judge takes QUERY DOC (no grade, no --batch)")
    query, doc = args
    check_id(query, "query id")
    check_id(doc, "document id")
    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        _check_assignment(database, assessor, query, doc, anywhere)
        with _lease(database, assessor) as held:
            record = mark_cant_judge(database, assessor, query, doc, reason=note or "",
                                     guard=held.guard)
        _serve_next(database, assessor, query)  # a mark settles the item, as a grade does
    finally:
        database.close()
    if record.cleared_grade is not None:
        click.echo(f"workbench: {assessor}'s grade {record.cleared_grade} of {query} {doc} is "
                   "cleared: an item holds a grade or a can't-judge mark", err=True)
    _ok(query, doc)


def _check_assignment(database, assessor, query, doc, anywhere: bool, where: str = "") -> None:
    """Refuse a grade outside the assessor's assignment, or warn with --anywhere."""
    from workbench.campaign.judging.assessing import outside_assignment
    from workbench.errors import WorkbenchError

    reason = outside_assignment(database, assessor, query, doc)
    if reason is None:
        return
    if not anywhere:
        raise WorkbenchError(f"{reason}: pass --anywhere to grade it anyway")
    click.echo(f"workbench: warning: {where}{reason}; graded anyway (--anywhere)", err=True)


def _lease(database, assessor):
    """The judging lease for the command's run (campaign/assessors/lease.py): an open
    judging screen of the assessor stops, saying so; this command is told on stderr."""
    from workbench.campaign.assessors.lease import CommandLease

    return CommandLease(database, assessor, notice=lambda text: click.echo(f"workbench: {text}", err=True))


def _record(database, assessor, query, doc, value, note, guard=None):
    """Commit the grade, then (adaptive pool) serve the assessor the query's next document
    once their queue on it is all judged."""
    from workbench.campaign.judging.grades import record_grade

    record = record_grade(database, assessor, query, doc, value, note=note, guard=guard)
    _serve_next(database, assessor, query)
    return record


def _serve_next(database, assessor, query) -> None:
    """Adaptive pool: serve the assessor the query's next document once their queue on it
    is settled. A failure only warns: what was recorded is committed."""
    from workbench.campaign.pooling.adaptive import serve_next

    try:
        serve_next(database, assessor, query)
    except Exception as exc:  # serving is retried by the next grade or the judging screen
        from workbench.errors import one_line

        click.echo(f"workbench: warning: {query}: the next document was not served "
                   f"({one_line(exc)}); the next grade or the judging screen serves it", err=True)


def _ok(query: str, doc: str) -> None:
    sys.stdout.write(f"ok {query} {doc}\n")
    sys.stdout.flush()


def _run_batch(ctx, db, assessor: str, stream, name: str, anywhere: bool = False) -> int:
    """Grade every line of `stream`; return the number of lines that failed."""
    from workbench.campaign.database import Database
    from workbench.campaign.writing import OUTAGE_RETRY_S, through_outages
    from workbench.errors import InputError, WorkbenchError, is_driver_error, one_line
    from workbench.formats.textlines import iter_stream_lines

    from workbench.campaign.assessors.lease import SessionEnded

    database = Database.open(resolve_db(ctx, db), create=False)
    failed = 0
    held = _lease(database, assessor).__enter__()
    try:
        for number, text, problem in iter_stream_lines(stream):
            try:
                if problem is not None:
                    raise ValueError(problem)
                parsed = parse_grade_line(text)
                if parsed is None:
                    continue
                query, doc, value, note = parsed
                where = f"{name}:{number}: "
                through_outages(
                    lambda: (_check_assignment(database, assessor, query, doc, anywhere, where),
                             _record(database, assessor, query, doc, value, note, held.guard)),
                    on_retry=lambda exc: click.echo(
                        f"{where}the database cannot be reached ({one_line(exc)}); retrying for "
                        f"up to {OUTAGE_RETRY_S:g} s", err=True),
                )
            except ValueError as exc:
                reason = str(exc)
            except SessionEnded:  # another session took over: the batch stops here
                raise
            except InputError as exc:
                reason = exc.reason
            except WorkbenchError as exc:
                reason = str(exc)
            except Exception as exc:  # a driver error (e.g. still locked): report, go on
                if not is_driver_error(exc):
                    raise
                reason = f"not saved: {one_line(exc)}"
            else:
                _ok(query, doc)
                continue
            failed += 1
            click.echo(visible(f"{name}:{number}: {reason}"), err=True)  # quotes the line
    finally:
        held.__exit__(None, None, None)
        database.close()
    return failed
