"""The app process of `workbench serve` (run as `python -m workbench.cli.served_app`).

Its command line is fixed and holds nothing from any request, so the server can start it
before any token is checked (a small pool of warm apps, workbench/serve/pool.py). It pays
for the imports and opens the database (WORKBENCH_DB, in its environment), says it is ready,
then waits for its binding on stdin (workbench/serve/binding.py): the role and name a
checked token maps to. Only then does it open that assessor's blind judging screen, as
`workbench judge --assessor NAME` would (the same checks), or the lead's TUI. An app whose
stdin closes first exits without opening anything.
"""

from __future__ import annotations

import os
import sys


def warm():
    """Everything a session needs before knowing whose it is: the imports of the judging
    screens and an open database."""
    import importlib

    from workbench.campaign.database import Database

    for module in ("workbench.tui.app", "workbench.tui.screens.query_list",
                   "workbench.tui.screens.judge"):
        importlib.import_module(module)
    return Database.open(os.environ.get("WORKBENCH_DB"), create=False)


def main() -> int:
    from workbench.serve.binding import READY, read_binding

    database = warm()
    try:
        os.write(sys.__stdout__.fileno(), READY)
        binding = read_binding(0)
        if binding is None:
            return 0  # never bound: the server closed our stdin
        os.environ["COLUMNS"], os.environ["ROWS"] = str(binding.width), str(binding.height)
        return run(database, binding)
    finally:
        database.close()


def run(database, binding) -> int:
    import click

    from workbench.cli.tui_cmd import check_assessor_in
    from workbench.errors import WorkbenchError
    from workbench.names import check_name
    from workbench.tui.app import make_app

    try:
        name = check_name(binding.name)
        if binding.role == "assessor":
            check_assessor_in(database, name, new=False)
    except (click.UsageError, WorkbenchError) as exc:  # as `judge` would say it, then exit
        message = exc.format_message() if isinstance(exc, click.UsageError) else str(exc)
        print(f"workbench serve: {message}", file=sys.stderr)
        return 2
    from workbench.campaign.assessors.visibility import BROWSER, LEAD

    app = make_app(database, assessor=name, audience=BROWSER) if binding.role == "assessor" \
        else make_app(database, audience=LEAD)
    app.served = True  # in a browser: no host names, pids or server paths (docs/serve.md)
    app.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
