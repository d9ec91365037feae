"""The current document: title and full text, scrollable. Text is rich Text, never markup."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from workbench.campaign.judging.assessing import QueueItem
from workbench.tui.text import safe


class DocumentView(VerticalScroll):
    def compose(self):
        yield Static(id="doc-title")
        yield Static(id="doc-text")

    def show(self, item: QueueItem | None, number: int = 0, total: int = 0) -> None:
        title = self.query_one("#doc-title", Static)
        body = self.query_one("#doc-text", Static)
        if item is None:
            title.update(Text("Nothing to judge for this query.", style="italic"))
            body.update(Text(""))
            return
        head = Text()
        head.append(f"{number}/{total}  ", style="dim")
        head.append(item.title or "(untitled)", style="bold")
        head.append(f"  {item.document}", style="dim")
        if item.cant_judge:
            head.append("\nYou marked it: can't judge / broken (c removes the mark)", style="bold yellow")
        elif item.judged:  # this document's own grade (the queue list shows none)
            head.append(f"\nYour grade: {item.grade}", style="bold green")
        if item.note:
            head.append("\nNote: ", style="italic")
            head.append(item.note, style="italic")
        title.update(safe(head))
        body.update(safe(Text(item.text or "")))
        self.scroll_home(animate=False)
