"""The assessor's queue for one query: a position and a judged mark per document.

Blind: an item never shows a system, original rank or score. Nor does it preview what is to
come or repeat what was given: an unjudged item is its number only, and no item shows a
grade (the document view shows the current document's own grade). So a hidden repeat looks
like any unjudged document, and the earlier grade of its document is not in sight.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from workbench.campaign.assessors import visibility
from workbench.campaign.judging.assessing import QueueItem
from workbench.tui.text import safe

JUDGED = "✓"
UNJUDGED = "·"
CANT_JUDGE = "✗"  # marked "can't judge / broken": settled, but no grade


def item_prompt(number: int, item: QueueItem) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    if item.cant_judge:
        text.append(f"{CANT_JUDGE} ", style="bold yellow")
        text.append(f"{number:>3} ", style="dim")
        text.append(visibility.list_label(item), style="dim")
    elif item.judged:
        text.append(f"{JUDGED} ", style="bold green")
        text.append(f"{number:>3} ", style="dim")
        # (no title while a hidden repeat would match one of them: assessors/visibility.py)
        text.append(visibility.list_label(item))
    else:
        text.append(f"{UNJUDGED} ", style="dim")
        text.append(f"{number:>3} ", style="dim")
        text.append(visibility.list_label(item), style="dim italic")
    return safe(text)


class PoolList(OptionList):
    """OptionList whose highlight is the judging cursor."""

    def show_items(self, items: tuple[QueueItem, ...] | list[QueueItem]) -> None:
        self.set_options(Option(item_prompt(i + 1, it)) for i, it in enumerate(items))

    def refresh_item(self, index: int, item: QueueItem) -> None:
        """Redraw one item's line (a grade, a mark). OptionList's own way
        (replace_option_prompt_at_index) drops every line's cached render and re-renders
        the whole visible list: half of the time from a grade key to the next document
        drawn (docs/performance.md, "Grading"). An item is always one line (no_wrap), so
        only its render is dropped and only its line repainted (textual is pinned)."""
        prompt = item_prompt(index + 1, item)
        option = self.get_option_at_index(index)
        try:
            cache, line = self._option_render_cache, self._line_cache.index_to_line.get(index)
            set_prompt = option._set_prompt
        except AttributeError:  # another Textual: the public way
            self.replace_option_prompt_at_index(index, prompt)
            return
        set_prompt(prompt)
        for key in [key for key in cache.keys() if key[0] is option]:
            cache.discard(key)
        if line is None:  # not laid out yet
            self.refresh()
        else:
            self.refresh_line(line)
