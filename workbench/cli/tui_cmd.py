"""`workbench` (bare), `workbench judge --assessor NAME` and `workbench demo`: the TUI.

Textual and the store are imported inside the functions, so that listing commands or
running `workbench eval` never pays for them.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import click

from workbench.cli import checked_name, db_option, resolve_db
from workbench.errors import DatabaseError

SAMPLE_NAME = "sample.sqlite"


def open_tui(db: str | None, *, assessor: str | None = None, lead: bool = True) -> None:
    """Run the app on `db` (URL or path; default ./workbench.sqlite). `lead=False` (the
    `judge` command) leaves out the team-lead screens: assessors stay blind."""
    from workbench.tui.app import make_app

    make_app(db, assessor=assessor, lead=lead).run()


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
    for writing. Fails with a clear message when the sample is empty (not built yet)."""
    source = sample_path()
    if source.stat().st_size == 0:
        raise DatabaseError(
            f"the sample database {source} is empty (not built yet): run `make sample`"
        )
    target_dir = Path(target_dir) if target_dir else Path(tempfile.mkdtemp(prefix="workbench-demo-"))
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / SAMPLE_NAME
    shutil.copyfile(source, target)
    target.chmod(0o644)
    return target


@click.command()
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to put the copy (default: a new temporary folder).")
@click.option("--assessor", default=None, callback=checked_name,
              help="Open straight on this assessor's judging screen.")
def demo(directory: Path | None, assessor: str | None) -> None:
    """Open the TUI on a fresh copy of the sample database."""
    copy = fresh_sample_copy(directory)
    click.echo(f"demo database: {copy}", err=True)
    open_tui(str(copy), assessor=assessor)


@click.command()
@click.option("--assessor", required=True, callback=checked_name, help="Who is judging (created on first use).")
@db_option
@click.pass_context
def judge(ctx: click.Context, assessor: str, db: str | None) -> None:
    """Open the judging screen for an assessor, at their first unjudged document."""
    open_tui(resolve_db(ctx, db), assessor=assessor, lead=False)
