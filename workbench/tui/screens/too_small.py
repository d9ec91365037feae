"""Shown over everything while the terminal is too small to show a document.

At 20×6 the judging screen drew the query and the queue but no document, and the digits
still graded it: an assessor could grade what they never saw. While the
terminal is smaller than MIN_WIDTH × MIN_HEIGHT this screen covers the app and takes every
key but Ctrl+Q; it goes away by itself when the terminal is large enough again.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

# The judging screen shows a document's title and text from this size up (measured; below
# 64 columns it hides the queue list: its narrow layout, so that a phone's browser at 360 or
# 390 CSS px, 37 or 40 columns of 16 px, shows the document).
MIN_WIDTH = 34
MIN_HEIGHT = 12


def too_small(width: int, height: int) -> bool:
    return width < MIN_WIDTH or height < MIN_HEIGHT


class TooSmallScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    TooSmallScreen { align: center middle; }
    TooSmallScreen Static { width: 100%; height: auto; text-align: center; }
    """

    def compose(self) -> ComposeResult:
        yield Static(Text(f"Terminal too small: enlarge it to {MIN_WIDTH}×{MIN_HEIGHT} "
                          "or more to see the document. Nothing is graded meanwhile.",
                          style="bold"))

    def on_key(self, event) -> None:
        if event.key != "ctrl+q":
            event.stop()  # a digit must not reach the judging screen below
            event.prevent_default()
