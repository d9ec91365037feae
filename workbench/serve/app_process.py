"""The app a session runs: a fixed command line, started before the token is known, bound
to the person only after the token was checked.

The command line is `python -m workbench.cli.served_app`, the same for every app: nothing of
any request reaches it. The person (role and name, as the token maps them) reaches the app
afterwards on its stdin (binding.py). The database is passed in the environment
(WORKBENCH_DB), not on the command line, so a password in a PostgreSQL URL does not show in
`ps`.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
from collections.abc import Awaitable, Callable
from contextlib import suppress

from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from workbench.campaign.access.links import Grant
from workbench.serve.binding import READY, encode

STOP_WAIT_S = 10.0
READY_WAIT_S = 120.0  # a cold start on a loaded machine; an app never ready is killed


def app_command() -> str:
    """The one command line of every served app."""
    # textual-serve's way runs it through /bin/sh: `exec` makes the app the process it stops
    return "exec " + shlex.join([sys.executable, "-m", "workbench.cli.served_app"])


async def _nowhere(_data) -> None:  # an app not bound yet writes to nobody
    return None


async def _no_close() -> None:
    return None


class WorkbenchAppService(AppService):
    """textual-serve's AppService, started unbound (`launch`: the process pays for its imports
    and waits), then `bind`-ed to one checked person and one websocket. The database is in
    the environment; a stop cannot hang (an app that does not quit within STOP_WAIT_S is
    killed)."""

    def __init__(self, *, db: str | None, download_manager: DownloadManager) -> None:
        super().__init__(app_command(), write_bytes=_nowhere, write_str=_nowhere,
                         close=_no_close, download_manager=download_manager)
        self._db = db
        self.bound = False

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        if self._db:
            environment["WORKBENCH_DB"] = self._db
        environment.pop("TEXTUAL", None)  # never devtools in a served app
        return environment

    async def launch(self) -> bool:
        """Start the process and wait until it is warm (imports done, database open). False,
        with the process gone, when it did not get there."""
        await self._open_app_process()
        try:
            line = await asyncio.wait_for(self._process.stdout.readline(), READY_WAIT_S)
        except asyncio.TimeoutError:
            line = b""
        if line != READY:
            await self.discard()
            return False
        return True

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def bind(self, grant: Grant, width: int, height: int, *,
                   write_bytes: Callable[[bytes], Awaitable[None]],
                   write_str: Callable[[str], Awaitable[None]],
                   close: Callable[[], Awaitable[None]]) -> None:
        """Give the warm app its person (only the role and name of the checked grant) and
        its websocket; from here it is textual-serve's app session."""
        self.remote_write_bytes, self.remote_write_str = write_bytes, write_str
        self.remote_close = close
        self.bound = True
        self._task = asyncio.create_task(self.run())
        self.stdin.write(encode(grant.role, grant.name, width, height))
        await self.stdin.drain()

    async def discard(self) -> None:
        """End an app that was never bound: its stdin closes, so it exits without opening
        anything; killed if it does not within STOP_WAIT_S."""
        process = self._process
        if process is None:
            return
        with suppress(Exception):
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), STOP_WAIT_S)
        except (asyncio.TimeoutError, Exception):
            with suppress(ProcessLookupError):
                process.kill()
            with suppress(Exception):
                await process.wait()
        self._close_transport()

    async def stop(self) -> None:
        if not self.bound:
            await self.discard()
            return
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
            self._close_transport()

    def _close_transport(self) -> None:
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
