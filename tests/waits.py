"""Waiting in tests: poll a condition until it holds, with a deadline long enough for a loaded
machine (two CPU-bound processes beside the suite on 2 cores made 2 s waits run out). Never
a fixed sleep: a test that waits for something names the condition, and returns as soon as
it holds, so a long deadline costs nothing when the machine is idle.

`DEADLINE` (seconds) is the default for every wait; WORKBENCH_TEST_DEADLINE overrides it
(a very slow machine, a debugger).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import time
from collections.abc import Awaitable, Callable

DEADLINE = float(os.environ.get("WORKBENCH_TEST_DEADLINE", "60"))
POLL = 0.05


def wait_until(ready: Callable[[], object], what: str = "the condition", *,
               timeout: float | None = None, poll: float = POLL):
    """Poll `ready()` (a thread or process test) until it returns a true value, and return
    that value; AssertionError naming `what` after `timeout` seconds (default DEADLINE)."""
    end = time.monotonic() + (DEADLINE if timeout is None else timeout)
    while True:
        value = ready()
        if value:
            return value
        if time.monotonic() >= end:
            raise AssertionError(f"{what} not reached within {DEADLINE if timeout is None else timeout} s")
        time.sleep(poll)


async def eventually(ready: Callable[[], object], what: str = "the condition", *,
                     timeout: float | None = None,
                     pause: Callable[[], Awaitable[None]] | None = None) -> float:
    """The async form (Pilot tests): await `pause()` (default: asyncio.sleep(POLL)) between
    polls; returns the seconds it took. AssertionError naming `what` at the deadline."""
    limit = DEADLINE if timeout is None else timeout
    start = time.monotonic()
    while True:
        value = ready()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return time.monotonic() - start
        if time.monotonic() - start >= limit:
            raise AssertionError(f"{what} not reached within {limit} s")
        if pause is None:
            await asyncio.sleep(POLL)
        else:
            await pause()
