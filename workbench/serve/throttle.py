"""Slowing down repeated bad tokens, per client address.

Each bad token from an address doubles the wait that address's next token check starts with
(0.1 s, 0.2 s, ... up to MAX_DELAY_S), and the checks of one address run one at a time, so
parallel guesses queue behind each other. An address that sends no bad token for FORGET_S
starts again from zero. With 2^256 tokens this is about noise in the logs and load, not odds.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

FIRST_DELAY_S = 0.1
MAX_DELAY_S = 5.0
FORGET_S = 600.0


class Throttle:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._failures: dict[str, tuple[int, float]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def delay(self, address: str) -> float:
        """The wait before the next token check from `address`."""
        failures, last = self._failures.get(address, (0, 0.0))
        if failures == 0 or self._clock() - last > FORGET_S:
            return 0.0
        return min(FIRST_DELAY_S * 2 ** (failures - 1), MAX_DELAY_S)

    def failed(self, address: str) -> None:
        failures, last = self._failures.get(address, (0, 0.0))
        if self._clock() - last > FORGET_S:
            failures = 0
        self._failures[address] = (failures + 1, self._clock())
        if len(self._failures) > 10_000:  # bound the memory a scan of many addresses takes
            oldest = min(self._failures, key=lambda a: self._failures[a][1])
            del self._failures[oldest]

    def lock(self, address: str) -> asyncio.Lock:
        lock = self._locks.get(address)
        if lock is None:
            if len(self._locks) > 10_000:
                self._locks = {a: l for a, l in self._locks.items() if l.locked()}
            lock = self._locks[address] = asyncio.Lock()
        return lock
