"""The campaign's judging guidelines beside the current query's own (its narrative): shown
at an assessor's first start and on `g` in the judging screen. Esc or g closes it."""

from __future__ import annotations

from rich.markdown import Markdown
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
        head = Text()
        head.append("Judging guidelines", style="bold")
        head.append("  (Esc or g closes; g shows them again)", style="dim")
        # The lead writes them in Markdown (examples/guidelines.md): headings, lists and
        # emphasis are rendered; Rich markup in them stays text, links are not followed.
        body = (Markdown(safe(self.guidelines), hyperlinks=False) if self.guidelines
                else Text("No campaign guidelines are set."))
        with VerticalScroll(id="guidelines-dialog"):
            yield Static(head, id="guidelines-head")
            yield Static(body, id="guidelines-text")
            if self.narrative:
                tail = Text()
                tail.append(f"For query {self.query_name}: ", style="bold")
                tail.append(self.narrative, style="italic")
                yield Static(safe(tail), id="guidelines-narrative")

    def action_close(self) -> None:
        self.dismiss(None)
