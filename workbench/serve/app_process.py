"""The app a session runs: its command line, fixed by the server.

Nothing of the request reaches the command line except the name the token maps to, and that
name is quoted. The database is passed in the environment (WORKBENCH_DB), not on the
command line, so a password in a PostgreSQL URL does not show in `ps`.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
from contextlib import suppress

from textual_serve.app_service import AppService

from workbench.campaign.access.links import ASSESSOR, Grant

STOP_WAIT_S = 10.0


def app_command(grant: Grant) -> str:
    """`python -m workbench judge --assessor NAME` for an assessor (the blind judging screen
    only); the bare TUI, with the lead's screens, for the lead."""
    base = [sys.executable, "-m", "workbench"]
    args = [*base, "judge", "--assessor", grant.name] if grant.role == ASSESSOR else base
    # textual-serve runs it through /bin/sh: `exec` makes the app the process it stops
    return "exec " + shlex.join(args)


class WorkbenchAppService(AppService):
    """textual-serve's AppService with the database in the environment, and a stop that
    cannot hang: an app that does not quit within STOP_WAIT_S is killed."""

    def __init__(self, command: str, *, db: str | None, **kwargs) -> None:
        super().__init__(command, **kwargs)
        self._db = db

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        if self._db:
            environment["WORKBENCH_DB"] = self._db
        environment.pop("TEXTUAL", None)  # never devtools in a served app
        return environment

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(super().stop(), STOP_WAIT_S)
        except (asyncio.TimeoutError, Exception):
            process = self._process
            if process is not None and process.returncode is None:
                with suppress(ProcessLookupError):
                    process.kill()
                with suppress(Exception):
                    await process.wait()
        finally:
            # asyncio leaves a finished process's transport open until garbage collection,
            # which may come after its event loop closed (an error printed at exit)
            transport = getattr(self._process, "_transport", None)
            if transport is not None:
                transport.close()

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid


def db_for_children(db: str | None) -> str | None:
    """An SQLite path made absolute (the app may run from another folder one day); URLs as
    given."""
    if db and "://" not in db:
        return os.path.abspath(db)
    return db
