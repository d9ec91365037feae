"""The `workbench` command (docs/architecture.md#command-line-contract).

Subcommands live one per module in this package and are imported only when run, so that
`workbench eval` never imports Textual or SQLAlchemy. Exit codes: 0 ok, 1 bad input,
2 usage.
"""

from __future__ import annotations

import importlib
import sys

import click

from workbench.errors import WorkbenchError, is_driver_error, one_line
from workbench.visible import visible

# name -> (module, attribute, one-line help). Order is the order of `workbench --help`.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "demo": ("workbench.cli.tui_cmd", "demo", "Open the TUI on a fresh copy of the sample database."),
    "judge": ("workbench.cli.tui_cmd", "judge", "Open the judging screen for an assessor."),
    "init": ("workbench.cli.db_cmd", "init", "Create or upgrade the database schema."),
    "scale": ("workbench.cli.scale_cmd", "scale", "Show the relevance scale, or set it before the first grade."),
    "guidelines": ("workbench.cli.guidelines_cmd", "guidelines", "Show or set the judging guidelines."),
    "campaign": ("workbench.cli.campaign_cmd", "campaign", "Show or change the campaign's settings (blind judging, name)."),
    "import": ("workbench.cli.import_cmd", "import_", "Import queries, documents, a run or qrels."),
    "nuggets": ("workbench.cli.nuggets_cmd", "nuggets", "Make and edit a topic's nugget bank, or freeze it."),
    "pool": ("workbench.cli.pool_cmd", "pool", "Build the judging pool and assign it to assessors."),
    "list": ("workbench.cli.manage_cmd", "list_", "List queries, documents, runs or assessors with progress."),
    "remove": ("workbench.cli.manage_cmd", "remove", "Remove a run, a query or an assessor."),
    "rename": ("workbench.cli.manage_cmd", "rename", "Rename a run."),
    "queue": ("workbench.cli.queue_cmd", "queue", "List what an assessor has left to grade."),
    "grade": ("workbench.cli.grade_cmd", "grade", "Record grades without the TUI."),
    "adjudicate": ("workbench.cli.adjudicate_cmd", "adjudicate", "Set an item's final grade as the lead (--lead NAME)."),
    "export": ("workbench.cli.export_cmd", "export", "Export qrels, judgments or scores."),
    "eval": ("workbench.cli.eval_cmd", "eval_", "Evaluate run files against qrels (trec_eval compatible)."),
    "measures": ("workbench.cli.measures_cmd", "measures", "List every measure: trec_eval and ir_measures names, parameters, definition."),
    "quick": ("workbench.cli.quick_cmd", "quick", "Per-query calculator: DCG/nDCG/AP/RR from grades."),
    "score": ("workbench.cli.score_cmd", "score", "Score stored systems against stored judgments."),
    "agree": ("workbench.cli.agree_cmd", "agree", "Agreement between assessors (kappa, alpha)."),
    "compare": ("workbench.cli.compare_cmd", "compare", "Compare systems: rankings, correlation, significance."),
    "autojudge": ("workbench.cli.autojudge_cmd", "autojudge", "Label the pool with a model (an OpenAI-compatible endpoint)."),
    "simulate": ("workbench.cli.planning_cmd", "simulate", "Replay judging with known qrels: what a budget finds."),
    "reusability": ("workbench.cli.planning_cmd", "reusability", "Leave-one-out test: is the pool fair to new runs?"),
    "plan": ("workbench.cli.plan_cmd", "plan", "Plan a campaign: topics needed to detect a difference."),
    "panel": ("workbench.cli.panel_cmd", "panel", "Judge panels: machines whose labels are aggregated (panel:NAME)."),
    "meta": ("workbench.cli.meta_cmd", "meta", "Judge the judges: correlations with a truth leaderboard, with intervals."),
    "calibrate": ("workbench.cli.calibrate_cmd", "calibrate", "Calibrate a machine assessor against people: kappa, confusion, rankings."),
    "serve": ("workbench.cli.serve_cmd", "serve", "Serve the judging screen to browsers, behind personal links."),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module_name, attr, help_text = COMMANDS[name]
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise

            @click.command(name=name, help=help_text)
            def missing() -> None:
                raise click.UsageError(f"`workbench {name}` is not available in this build")

            return missing
        return getattr(module, attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Help text from the table above: listing commands must not import them all.
        rows = [(name, help_text) for name, (_, _, help_text) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _checked_db(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """A `--db` the workbench cannot open is a malformed command line (exit 2), said while
    parsing, before any command opens or reads anything."""
    if value is not None and not value.strip():
        # '' used to mean ./workbench.sqlite, which `init` then created: an empty value is a mistake
        raise click.BadParameter("is empty: give a SQLite path or a postgresql:// URL")
    if value:
        from workbench.store.urls import check_url  # no SQLAlchemy: cheap for `eval`

        check_url(value)
    return value


DB_HELP = "Database URL or SQLite path (default ./workbench.sqlite)."


@click.group(cls=LazyGroup, invoke_without_command=True)
@click.option("--db", envvar="WORKBENCH_DB", default=None, callback=_checked_db, help=DB_HELP)
@click.version_option(package_name="workbench")
@click.pass_context
def cli(ctx: click.Context, db: str | None) -> None:
    """workbench: judge relevance in the terminal and score systems like trec_eval."""
    ctx.ensure_object(dict)
    ctx.obj["db"] = db
    if ctx.invoked_subcommand is None:
        from workbench.cli.tui_cmd import confirm_new_database, open_tui

        confirm_new_database(db)
        open_tui(db)


def db_option(f):
    """`--db` on a subcommand too (`workbench score --db x.sqlite`); falls back to the group's."""
    return click.option(
        "--db", "db", envvar="WORKBENCH_DB", default=None, callback=_checked_db, help=DB_HELP,
    )(f)


def checked_name(ctx: click.Context, param: click.Parameter, value):
    """click callback for `--assessor NAME` options that may create assessors (one name,
    several, or None): each name is checked by workbench.names while the command line is
    parsed, before any work; a bad one is InvalidName (one line, exit 1, as import qrels
    always refused them)."""
    from workbench.names import check_name

    if isinstance(value, tuple):
        return tuple(check_name(v) for v in value)
    return None if value is None else check_name(value)


def table_text(text: str) -> str:
    """Free text (a title, a reason) for one cell of a plain table on a terminal: runs of
    whitespace become one space, and the rest goes through the screens' one sanitiser
    (workbench.visible: ESC shows as ␛, C1 and bidi controls as U+FFFD), so that imported
    text cannot move the cursor, recolour or retitle the terminal. (csv and json outputs keep
    the text as stored.)"""
    from workbench.visible import visible

    return visible(" ".join(text.split()))


def rich_console(**kwargs):
    """The one way a command makes a Rich console: names, tags and titles in its tables are
    data, never markup (`[/x]` in a run tag crashed `compare` with a MarkupError, `[red]b`
    recoloured), nor emoji codes or highlighting (Rich would turn `:name:` into an emoji and colour what
    looks like a number)."""
    from rich.console import Console

    return Console(markup=False, emoji=False, highlight=False, **kwargs)


def echo_table(header, cells, right) -> None:
    """Rows of text cells as a plain table, columns two spaces apart; `right(j, cell)`
    says which cells are right-aligned (numbers). Widths are terminal cells, not
    characters: a CJK title takes two cells per character (counted as one, it broke the columns)."""
    from rich.cells import cell_len

    widths = [max([cell_len(h)] + [cell_len(r[j]) for r in cells]) for j, h in enumerate(header)]
    for r in [list(header), *cells]:
        line = []
        for j, (c, w) in enumerate(zip(r, widths)):
            pad = " " * (w - cell_len(c))
            line.append(pad + c if right(j, c) else c + pad)
        click.echo("  ".join(line).rstrip())


def resolve_db(ctx: click.Context, db: str | None) -> str | None:
    if db:
        return db
    root = ctx.find_root()
    return (root.obj or {}).get("db")


_collections_tuned = False


def _fewer_collections() -> None:
    """A command's start-up (SQLAlchemy, click, numpy, our modules) creates some 10^5
    objects that live until exit; with the default thresholds the cyclic collector walks
    them again and again while they are imported, and once more at exit. Collect 30 times
    less often (cycles are still freed) and leave the start-up objects out of the final
    collection: about 0.1 s of every command (bench/campaign_bench.py)."""
    global _collections_tuned
    if _collections_tuned:  # main() ran before in this process (tests call it often)
        return
    import atexit
    import gc

    gc.set_threshold(20_000, 20, 20)
    atexit.register(gc.freeze)  # atexit runs before the interpreter's final collection
    _collections_tuned = True


def main(argv: list[str] | None = None) -> int:
    """Console entry point: maps WorkbenchError to its exit code with a one-line message."""
    _fewer_collections()
    try:
        # With standalone_mode=False click returns ctx.exit()'s code instead of exiting.
        rv = cli.main(args=argv, prog_name="workbench", standalone_mode=False)
    except WorkbenchError as exc:
        # a message may quote outside text (a file name, a value): made harmless, as on
        # screens (click strips ANSI sequences only off a terminal, and never C1 or bidi)
        click.echo(f"workbench: {visible(str(exc))}", err=True)
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 1
    except click.ClickException as exc:
        exc.show()
        return 2 if isinstance(exc, click.UsageError) else exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except BrokenPipeError:
        return 0
    except Exception as exc:
        # A database driver error (disk full, read-only file, server gone) is the user's to
        # fix: one line, not a traceback. Anything else is a bug and keeps its traceback.
        if not is_driver_error(exc):
            raise
        click.echo(f"workbench: database error: {visible(one_line(exc))}", err=True)
        return 1
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
