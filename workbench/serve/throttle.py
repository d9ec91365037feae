"""Slowing down bad tokens, per client address, without ever slowing down a good one.

A token is checked at once. Only a refusal waits: each bad token from an address doubles
the wait of that address's next refusal (0 s, 0.1 s, 0.2 s, ... up to MAX_DELAY_S), and
an address that sends no bad token for FORGET_S starts again from zero. A valid token never
waits on anyone's failures: behind a reverse proxy every assessor shares one address, and
an anonymous client sending bad links there must not shut them out.

The waiting refusals are bounded: at most MAX_WAITING wait at once (a refusal beyond that
is answered at once, still refused), and the failures remembered are bounded (MAX_ADDRESSES).
With 2^256 tokens this is about noise in the logs and load, not odds.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

FIRST_DELAY_S = 0.1
MAX_DELAY_S = 5.0
FORGET_S = 600.0
MAX_WAITING = 64
MAX_ADDRESSES = 10_000


class Throttle:
    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 max_waiting: int = MAX_WAITING) -> None:
        self._clock = clock
        self._failures: dict[str, tuple[int, float]] = {}
        self.max_waiting = max_waiting
        self.waiting = 0  # refusals waiting now

    def delay(self, address: str) -> float:
        """The wait of the next refusal to `address`."""
        failures, last = self._failures.get(address, (0, 0.0))
        if failures == 0 or self._clock() - last > FORGET_S:
            return 0.0
        return min(FIRST_DELAY_S * 2 ** (failures - 1), MAX_DELAY_S)

    def failed(self, address: str) -> None:
        failures, last = self._failures.get(address, (0, 0.0))
        if self._clock() - last > FORGET_S:
            failures = 0
        self._failures[address] = (failures + 1, self._clock())
        if len(self._failures) > MAX_ADDRESSES:  # bound the memory a scan of many addresses takes
            oldest = min(self._failures, key=lambda a: self._failures[a][1])
            del self._failures[oldest]

    async def refused(self, address: str) -> None:
        """A bad token from `address`: wait its delay (unless MAX_WAITING refusals already
        wait), then count the failure. Only the refusal waits."""
        wait = self.delay(address)
        if wait > 0 and self.waiting < self.max_waiting:
            self.waiting += 1
            try:
                await asyncio.sleep(wait)
            finally:
                self.waiting -= 1
        self.failed(address)
