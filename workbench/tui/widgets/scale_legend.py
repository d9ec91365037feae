"""The relevance scale's legend, from the campaign's ScaleLevel rows.

It is also the scale bar: a click (or a tap, in the browser) on a level's number or label
grades the current document with that level, as its digit key does. Each level's span
carries its grade in the style's meta, so the level under the pointer is known wherever the
legend wraps (the narrow layout wraps it over several lines)."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static

from workbench.campaign.judging.assessing import ScaleEntry
from workbench.tui.text import safe

GRADE_META = "workbench_grade"


def legend_text(levels: list[ScaleEntry]) -> Text:
    text = Text()
    for i, level in enumerate(levels):
        if i:
            text.append("   ")
        meta = Style.from_meta({GRADE_META: level.grade})
        text.append(f" {level.grade} ", style=Style(bold=True, reverse=True) + meta)
        text.append(f" {level.label}", style=meta)
    return text


class ScaleLegend(Static):
    class Picked(Message):
        """A level of the scale was clicked."""

        def __init__(self, grade: int) -> None:
            super().__init__()
            self.grade = grade

    def show(self, levels: list[ScaleEntry]) -> None:
        self.update(safe(legend_text(levels)))

    def on_click(self, event: events.Click) -> None:
        grade = event.style.meta.get(GRADE_META)
        if isinstance(grade, int):
            event.stop()
            self.post_message(self.Picked(grade))
