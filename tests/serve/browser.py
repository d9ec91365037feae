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
    """One page's websocket frames, as text."""

    def __init__(self, page) -> None:
        self.frames: list[bytes] = []
        self.closed = False
        page.on("websocket", self._attach)

    def _attach(self, ws) -> None:
        ws.on("framereceived", lambda payload: self.frames.append(
            payload if isinstance(payload, bytes) else payload.encode("utf-8")))
        ws.on("close", lambda _ws: setattr(self, "closed", True))

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
