"""The query's title, description and narrative (the guidelines): always visible."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from workbench.campaign.judging.assessing import QueryView
from workbench.tui.text import safe


def query_text(view: QueryView) -> Text:
    """Imported text as rich Text (never markup: a title may contain "[/x]")."""
    text = Text()
    text.append(view.query, style="bold reverse")
    text.append("  ")
    text.append(view.title or "(no title)", style="bold")
    if view.description:
        text.append("\n")
        text.append(view.description)
    if view.narrative:
        text.append("\n")
        text.append("Guidelines: ", style="italic")
        text.append(view.narrative, style="italic")
    return text


class QueryPanel(VerticalScroll, can_focus=False):
    view: QueryView | None = None  # the query shown

    def compose(self):
        yield Static(id="query-text")

    def show(self, view: QueryView) -> None:
        self.view = view
        self.query_one("#query-text", Static).update(safe(query_text(view)))
