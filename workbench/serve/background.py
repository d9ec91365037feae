"""The server on a thread of its own (its own event loop), on a free port of 127.0.0.1: for
the browser tests and bench/serve_bench.py."""

from __future__ import annotations

import asyncio
import threading

from aiohttp import web

from workbench.campaign.database import Database
from workbench.serve.pool import DEFAULT_SIZE
from workbench.serve.server import SERVED, Served, make_app


class BackgroundServer:
    def __init__(self, db: Database, db_url: str | None, *, lead: str | None = None,
                 pool: int = DEFAULT_SIZE) -> None:
        self._app = make_app(db, db_url, lead=lead, pool=pool)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="workbench-serve", daemon=True)
        self._ready = threading.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def served(self) -> Served:
        return self._app[SERVED]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._runner = web.AppRunner(self._app)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.port = self._runner.addresses[0][1]
        self._ready.set()
        self._loop.run_forever()

    def start(self) -> "BackgroundServer":
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the server did not start in 30 s")
        return self

    def wait_pool(self, timeout: float = 120.0) -> bool:
        """Until the pool's apps are warm (as on a server started a while before)."""
        return asyncio.run_coroutine_threadsafe(
            self.served.pool.wait_full(timeout), self._loop).result(timeout + 5)

    async def _drain(self) -> None:
        """Close every session and wait for its app to stop (the apps are awaited here,
        not left to the runner's cancellation)."""
        for websocket in list(self.served.sessions.values()):
            await websocket.close()
        for _ in range(300):
            if not self.served.sessions:
                break
            await asyncio.sleep(0.05)
        await self._runner.cleanup()

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._drain(), self._loop).result(60)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        if not self._thread.is_alive():
            self._loop.close()

    def __enter__(self) -> "BackgroundServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
