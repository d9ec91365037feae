"""A few warm app processes, started before any token is checked and bound to a person only
after a token was (docs/serve.md#the-gate).

Starting an app costs about 1.5 s of CPU (Python, Textual, SQLAlchemy, the database): paid
while a browser waits, that is most of a link's opening time. The pool pays it ahead: it
keeps `size` apps started with the one fixed command line (app_process.py), each warm and
waiting for its binding. A session takes one (or starts one when the pool is empty), and the
pool starts the next in the background, one at a time, so that a crowd arriving together
does not start a crowd of processes at the same moment. An app in the pool is bound to
nobody, opens nothing, and exits when the server stops (its stdin closes).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import deque

from textual_serve.download_manager import DownloadManager

from workbench.serve.app_process import WorkbenchAppService

log = logging.getLogger("workbench.serve")

DEFAULT_SIZE = 4
REFILL_DELAY_S = 2.0  # the wait before each start of a refill: sessions' screens come first


class AppPool:
    def __init__(self, size: int, db: str | None, downloads: DownloadManager) -> None:
        self.size = max(0, size)
        self._db = db
        self._downloads = downloads
        self._idle: deque[WorkbenchAppService] = deque()
        self._filling: asyncio.Task | None = None
        self._closed = False
        self._failures = 0
        # at most one start per core at a time: a crowd's apps come up in the order asked,
        # the first ones soon, instead of all of them late together
        self._starting = asyncio.Semaphore(os.cpu_count() or 2)
        self._asked = 0  # sessions waiting for an app of their own: the refill waits for them
        self.started = 0  # processes started, pooled or not: for tests and the benchmark

    @property
    def idle_pids(self) -> list[int]:
        return [app.pid for app in self._idle if app.pid is not None]

    async def _launch(self) -> WorkbenchAppService | None:
        """A new warm app, or None (it did not start, and is gone)."""
        async with self._starting:
            self.started += 1
            app = WorkbenchAppService(db=self._db, download_manager=self._downloads)
            try:
                ready = await app.launch()
            except asyncio.CancelledError:  # the server stops while this one starts
                await asyncio.shield(app.discard())
                raise
        return app if ready else None

    def fill(self, delay: float = 0.0) -> None:
        """Start the missing apps in the background, one after another, each after `delay`
        (0 at the server's start; REFILL_DELAY_S after sessions took apps, so that refilling
        takes at most about a third of one core from the sessions being judged)."""
        if self._closed or self.size == 0:
            return
        if self._filling is None or self._filling.done():
            self._filling = asyncio.get_running_loop().create_task(self._fill(delay))

    async def _fill(self, delay: float) -> None:
        while not self._closed and len(self._idle) < self.size and self._failures < 3:
            await asyncio.sleep(delay)
            while self._asked and not self._closed:  # sessions' own apps start first
                await asyncio.sleep(max(delay, 0.1))
            if self._closed or len(self._idle) >= self.size:
                return
            app = await self._launch()
            if app is not None:
                self._failures = 0
                if self._closed:
                    await app.discard()
                    return
                self._idle.append(app)
            else:  # a broken installation or database: say so, try a few times, then stop
                self._failures += 1
                log.error("a pre-started app did not start (%d in a row)", self._failures)

    async def take(self) -> WorkbenchAppService:
        """A warm app for a session that passed the gate: from the pool, else a new one."""
        while self._idle:
            app = self._idle.popleft()
            if app.alive:
                self.fill(REFILL_DELAY_S)
                return app
            await app.discard()
        self.fill(REFILL_DELAY_S)
        self._asked += 1
        try:
            app = await self._launch()
        finally:
            self._asked -= 1
        if app is None:
            raise RuntimeError("the app did not start")
        self._failures = 0  # apps start again (the database is back): the pool refills
        return app

    async def wait_full(self, timeout: float) -> bool:
        """For tests and the benchmark: until `size` apps are warm (False after `timeout`)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while len(self._idle) < self.size:
            if loop.time() > end or self._failures >= 3:
                return False
            await asyncio.sleep(0.05)
        return True

    async def close(self) -> None:
        self._closed = True
        if self._filling is not None and not self._filling.done():
            self._filling.cancel()
            try:
                await self._filling
            except (asyncio.CancelledError, Exception):
                pass
        while self._idle:
            await self._idle.popleft().discard()
