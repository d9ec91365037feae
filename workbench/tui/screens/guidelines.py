"""The campaign's judging guidelines beside the current query's own (its narrative): shown
at an assessor's first start and on `g` in the judging screen. Esc or g closes it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from workbench.tui.text import safe


class GuidelinesScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,g,q", "close", "Close")]

    def __init__(self, guidelines: str, query: str = "", narrative: str = "") -> None:
        super().__init__()
        self.guidelines = guidelines
        self.query_name = query
        self.narrative = narrative

    def compose(self) -> ComposeResult:
        text = Text()
        text.append("Judging guidelines", style="bold")
        text.append("  (Esc or g closes; g shows them again)\n\n", style="dim")
        text.append(self.guidelines or "No campaign guidelines are set.")  # plain text, never markup
        if self.narrative:
            text.append(f"\n\nFor query {self.query_name}: ", style="bold")
            text.append(self.narrative, style="italic")
        with VerticalScroll(id="guidelines-dialog"):
            yield Static(safe(text), id="guidelines-text")

    def action_close(self) -> None:
        self.dismiss(None)
