"""Helpers of the browser tests: the system's Chromium driven by Playwright, and the text a
served app sent to the page (xterm.js draws on a canvas: the text is read from the
websocket's frames, with the terminal's escape sequences taken out)."""

from __future__ import annotations

import os
import re
import shutil
import time

import pytest

CHROMIUM = os.environ.get("WORKBENCH_CHROMIUM", "/usr/bin/chromium")
_ESCAPES = re.compile(rb"\x1b(\[[0-9;?<=>$]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78M])")


def need_browser():
    """Skip where there is no browser, except where CI says one must be there."""
    required = os.environ.get("WORKBENCH_REQUIRE_BROWSER") == "1"
    try:
        from playwright.sync_api import sync_playwright  # noqa: F401
    except ImportError:
        if required:
            raise
        pytest.skip("playwright is not installed (pip install -e '.[test]')")
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        if required:
            pytest.fail(f"no browser at {CHROMIUM} (apt-get install chromium)")
        pytest.skip(f"no browser at {CHROMIUM} (apt-get install chromium)")


class Screen:
    """One page's websocket frames, as text, and as the terminal's cells (pyte)."""

    def __init__(self, page) -> None:
        self.frames: list[bytes] = []
        self.events: list[tuple[str, object]] = []  # ("size", (cols, rows)) / ("data", bytes)
        self.closed = False
        page.on("websocket", self._attach)

    def _attach(self, ws) -> None:
        ws.on("framereceived", self._received)
        ws.on("framesent", self._sent)
        ws.on("close", lambda _ws: setattr(self, "closed", True))

    def _received(self, payload) -> None:
        data = payload if isinstance(payload, bytes) else payload.encode("utf-8")
        self.frames.append(data)
        self.events.append(("data", data))

    def _sent(self, payload) -> None:
        if isinstance(payload, str) and payload.startswith('["resize"'):
            import json

            size = json.loads(payload)[1]
            self.events.append(("size", (int(size["width"]), int(size["height"]))))

    @property
    def size(self) -> tuple[int, int]:
        """The terminal's (columns, rows), as the page last sent them."""
        sizes = [value for kind, value in self.events if kind == "size"]
        assert sizes, "the page sent no size"
        return sizes[-1]

    def cells(self):
        """The terminal's screen as drawn so far (a pyte Screen: .display, .buffer)."""
        import pyte

        screen, stream = None, None
        for kind, value in list(self.events):
            if kind == "size":
                if screen is None:
                    screen = pyte.Screen(*value)
                    stream = pyte.ByteStream(screen)
                else:
                    screen.resize(value[1], value[0])
            elif stream is not None:
                stream.feed(value)
        assert screen is not None, "the page sent no size"
        return screen

    def chip(self, label: str) -> tuple[int, int]:
        """(column, row) of the scale bar's chip " label " (drawn reversed)."""
        screen = self.cells()
        for y, line in enumerate(screen.display):
            start = line.find(f" {label} ")
            while start != -1:
                if all(screen.buffer[y][x].reverse for x in range(start, start + len(label) + 2)):
                    return start + 1, y
                start = line.find(f" {label} ", start + 1)
        raise AssertionError(f"no chip {label!r} on {screen.display!r}")

    def click_point(self, page, column: int, row: int) -> tuple[float, float]:
        """The page's (x, y) of the middle of a terminal cell."""
        box = page.locator("#terminal .xterm-screen").bounding_box()
        columns, rows = self.size
        return (box["x"] + (column + 0.5) * box["width"] / columns,
                box["y"] + (row + 0.5) * box["height"] / rows)

    def text(self) -> str:
        return _ESCAPES.sub(b"", b"".join(self.frames)).decode("utf-8", "replace")

    def wait_for(self, page, needle: str, timeout: float = 30.0) -> float:
        """Seconds until `needle` was drawn (pumping Playwright's events meanwhile)."""
        started = time.monotonic()
        while needle not in self.text():
            if time.monotonic() - started > timeout:
                raise AssertionError(f"{needle!r} not shown in {timeout} s; shown: {self.text()[-2000:]!r}")
            page.wait_for_timeout(20)
        return time.monotonic() - started
