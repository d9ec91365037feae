"""One long-lived thread for the judging screen's database writes.

Why not a Textual worker per grade: each thread worker is scheduled through an asyncio
task and the default executor and reports its state changes as messages, which measured
several milliseconds between the key press and the start of the write (more on a busy
machine). One dedicated thread starts each job at once, keeps writes in key order, and
its jobs post their results as messages exactly like workers do (they never touch
widgets). `wait_idle` lets tests (and shutdown) wait for it like `workers.wait_for_complete`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor


class Background:
    def __init__(self, name: str = "workbench-writer") -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._pending: set[Future] = set()

    def submit(self, job: Callable[..., object], *args: object) -> Future:
        """Run `job(*args)` on the thread, after every job submitted before it."""
        future = self._pool.submit(job, *args)
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)
        return future

    @property
    def busy(self) -> bool:
        return any(not f.done() for f in list(self._pending))

    async def wait_idle(self) -> None:
        while self.busy:
            await asyncio.sleep(0.001)

    def shutdown(self) -> None:
        """Finish the jobs already submitted (a grade in flight is committed), then stop."""
        self._pool.shutdown(wait=True)
