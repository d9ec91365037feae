"""The assessor's queue for one query: position, judged mark and THIS assessor's grade.

Blind: an item shows only its place in the queue and the document title - never a system,
original rank or score.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from workbench.campaign.assessing import QueueItem

JUDGED = "✓"
UNJUDGED = "·"


def item_prompt(number: int, item: QueueItem) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    if item.judged:
        text.append(f"{JUDGED} {item.grade} ", style="bold green")
    else:
        text.append(f"{UNJUDGED}   ", style="dim")
    text.append(f"{number:>3} ", style="dim")
    text.append(item.title or item.document)
    return text


class PoolList(OptionList):
    """OptionList whose highlight is the judging cursor."""

    def show_items(self, items: tuple[QueueItem, ...] | list[QueueItem]) -> None:
        self.set_options(Option(item_prompt(i + 1, it)) for i, it in enumerate(items))

    def refresh_item(self, index: int, item: QueueItem) -> None:
        self.replace_option_prompt_at_index(index, item_prompt(index + 1, item))
