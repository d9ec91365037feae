"""`workbench` (bare), `workbench judge --assessor NAME` and `workbench demo`: the TUI.

Textual and the store are imported inside the functions, so that listing commands or
running `workbench eval` never pays for them.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import click

from workbench.cli import checked_name, db_option, resolve_db
from workbench.errors import DatabaseError

SAMPLE_NAME = "sample.sqlite"


# What the demo's screens say while it runs (not only after quitting: whoever tries the demo knows from the start that nothing is kept).
DEMO_NOTICE = ("Demo: a temporary copy of the sample database. Your grades are thrown away "
               "when you quit (workbench demo --dir DIR keeps them).")


def open_tui(db: str | None, *, assessor: str | None = None, lead: bool = True,
             notice: str = "", audience: str | None = None) -> None:
    """Run the app on `db` (URL or path; default ./workbench.sqlite). `lead=False` (the
    `judge` command) leaves out the team-lead screens: assessors stay blind. `notice`: what
    the screens say about the database while the app runs."""
    from workbench.tui.app import make_app

    make_app(db, assessor=assessor, lead=lead, notice=notice, audience=audience).run()


def confirm_new_database(db: str | None) -> None:
    """The TUI opens (and so creates) whatever database it is given: a typo in `--db` would
    leave a new, empty campaign behind. Ask first on a terminal; refuse when stdin is not one.
    `workbench init` and `workbench import` remain the ways to create a database."""
    from workbench.campaign.database import missing_database_file

    path = missing_database_file(db)
    if path is None:
        return
    if not sys.stdin.isatty():
        raise DatabaseError(
            f"no such database file: {path} (create it with `workbench init --db {path}`)"
        )
    click.confirm(f"{path} does not exist. Create a new campaign database there?",
                  default=False, abort=True, err=True)


def sample_path() -> Path:
    """The packaged sample database: workbench/_sample/ in a wheel, else the repository's
    sample_db/ folder."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "_sample" / SAMPLE_NAME, here.parent / "sample_db" / SAMPLE_NAME):
        if candidate.is_file():
            return candidate
    raise DatabaseError(
        "the sample database is missing from this installation "
        "(looked in workbench/_sample/ and sample_db/; build it with `make sample`)"
    )


def fresh_sample_copy(target_dir: Path | None = None) -> Path:
    """Copy the sample database to a new writable file; the packaged one is never opened
    for writing. Fails with a clear message when the sample is empty (not built yet), and
    never overwrites: an existing DIR/sample.sqlite may hold someone's grades."""
    source = sample_path()
    if source.stat().st_size == 0:
        raise DatabaseError(
            f"the sample database {source} is empty (not built yet): run `make sample`"
        )
    target_dir = Path(target_dir) if target_dir else Path(tempfile.mkdtemp(prefix="workbench-demo-"))
    target = target_dir / SAMPLE_NAME
    try:
        target_dir.mkdir(parents=True, exist_ok=True)
        # O_EXCL: the check and the creation are one step; 0666 minus the umask, like any
        # new database file.
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        raise DatabaseError(
            f"{target} already exists; the demo never overwrites a database: open it with "
            f"`workbench --db {target}`, or give another --dir"
        ) from None
    except OSError as exc:
        raise DatabaseError(f"cannot create {target}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as out, open(source, "rb") as src:
            shutil.copyfileobj(src, out)
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return target


@click.command()
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to put the copy, kept after exit (default: a new temporary "
                   "folder, removed at exit).")
@click.option("--assessor", "-a", default=None, metavar="NAME", callback=checked_name,
              help="Open straight on this assessor's judging screen.")
def demo(directory: Path | None, assessor: str | None) -> None:
    """Open the TUI on a fresh copy of the sample database."""
    copy = fresh_sample_copy(directory)
    if directory is not None:
        click.echo(f"demo database: {copy}", err=True)
        open_tui(str(copy), assessor=assessor)
        return
    # A temporary copy is removed at exit, so that demos do not pile up in /tmp;
    # --dir DIR keeps one.
    click.echo(f"demo database: {copy} (a temporary copy, removed at exit; --dir DIR keeps it)",
               err=True)
    try:
        open_tui(str(copy), assessor=assessor, notice=DEMO_NOTICE)
    finally:
        shutil.rmtree(copy.parent, ignore_errors=True)


@click.command()
@click.option("--assessor", "-a", required=True, metavar="NAME", callback=checked_name,
              help="Who is judging: an assessor of the pool (`pool -a NAME`).")
@click.option("--new", is_flag=True,
              help="NAME is a new assessor: create it (and give it the whole pool). Without "
                   "it, once a pool exists, a name that is not an assessor is refused.")
@db_option
@click.pass_context
def judge(ctx: click.Context, assessor: str, new: bool, db: str | None) -> None:
    """Open the judging screen for an assessor, at their first unjudged document."""
    db = resolve_db(ctx, db)
    confirm_new_database(db)
    _check_assessor(db, assessor, new)
    from workbench.campaign.assessors.visibility import ASSESSOR_SCREEN

    open_tui(db, assessor=assessor, audience=ASSESSOR_SCREEN)  # blind: no lead screen


def _check_assessor(db: str | None, assessor: str, new: bool) -> None:
    """Before the screen opens: judging under a machine assessor's name would show its
    labels, refused; and once a pool exists a name that is not an assessor (a typo) is
    refused with the nearest name (campaign.assessors.roster.check_assessor) unless --new.
    A database that does not exist yet, or is empty, has neither machine nor pool."""
    from workbench.campaign.database import Database, missing_database_file

    if missing_database_file(db) is not None:
        return
    try:
        database = Database.open(db, create=False)
    except DatabaseError:  # empty, older...: the TUI says what to do; it has no machine
        return
    try:
        check_assessor_in(database, assessor, new)
    finally:
        database.close()


def check_assessor_in(database, assessor: str, new: bool) -> None:
    """`_check_assessor` on an open database (`workbench serve`'s pre-started apps)."""
    from workbench.campaign.assessors.roster import check_assessor
    from workbench.errors import UsageError

    try:
        check_assessor(database, assessor, new=new)
    except UsageError as exc:  # a machine's name: a usage error, as before
        raise click.UsageError(str(exc)) from None
