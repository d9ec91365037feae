"""The current document: title and text, scrollable. Text is rich Text, never markup.

A long document is shown in pieces: the first PIECE characters at once, the next piece
each time the reader scrolls to within a screen of the end of what is shown. Laying out a
whole 50 MB document took 36 s (and 35 s more to move off it); the first piece shows at
once whatever the size, and moving off removes only the pieces shown.
"""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from workbench.campaign.assessors import visibility
from workbench.campaign.judging.assessing import QueueItem
from workbench.tui.text import safe

PIECE = 16_000  # characters laid out at a time (a few screens of text)


def next_piece(text: str, start: int, size: int = PIECE) -> int:
    """Where the piece of `text` starting at `start` ends: at a line end (else a space)
    in its second half when there is one, so that no line is cut in two."""
    end = start + size
    if end >= len(text):
        return len(text)
    for sep in ("\n", " "):
        cut = text.rfind(sep, start + size // 2, end)
        if cut != -1:
            return cut + 1
    return end


class DocumentView(VerticalScroll):
    _text = ""
    _shown = 0  # characters of the text laid out so far

    def compose(self):
        yield Static(id="doc-title")
        yield Static(id="doc-text")

    def show(self, item: QueueItem | None, number: int = 0, total: int = 0) -> None:
        title = self.query_one("#doc-title", Static)
        body = self.query_one("#doc-text", Static)
        self.query(".doc-more").remove()
        if item is None:
            self._text, self._shown = "", 0
            title.update(Text("Nothing to judge for this query.", style="italic"))
            body.update(Text(""))
            return
        head = Text()
        head.append(f"{number}/{total}  ", style="dim")
        head.append(item.title or "(untitled)", style="bold")
        head.append(f"  {item.document}", style="dim")
        status = visibility.item_status(item)  # the one owner of what an item shows
        if status == visibility.CANT_JUDGE:
            head.append("\nYou marked it: can't judge / broken (c removes the mark)", style="bold yellow")
        elif status == visibility.JUDGED:  # judged, its grade hidden beside a pending repeat
            head.append("\nJudged", style="bold green")
        elif status == visibility.GRADED:  # this document's own grade (the queue list shows none)
            head.append(f"\nYour grade: {item.grade}", style="bold green")
        if item.note:
            head.append("\nNote: ", style="italic")
            head.append(item.note, style="italic")
        title.update(safe(head))
        self._text = item.text or ""
        self._shown = next_piece(self._text, 0)
        body.update(safe(Text(self._text[:self._shown])))
        self.scroll_home(animate=False)

    @property
    def pieces(self) -> int:
        """How many pieces of the text are laid out."""
        return 1 + len(self.query(".doc-more"))

    @property
    def more(self) -> bool:
        """Part of the text is not laid out yet."""
        return self._shown < len(self._text)

    def show_more(self) -> None:
        """Lay out the next piece of the text, below what is shown."""
        if not self.more:
            return
        end = next_piece(self._text, self._shown)
        self.mount(Static(safe(Text(self._text[self._shown:end])), classes="doc-more"))
        self._shown = end

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.more and new_value >= self.max_scroll_y - self.size.height:
            self.show_more()

    def on_resize(self) -> None:
        # A short first piece may not fill the view: nothing to scroll, so show more.
        if self.more and self.max_scroll_y <= self.size.height:
            self.call_after_refresh(self.show_more)
