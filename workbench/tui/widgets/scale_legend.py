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


# Between two levels: the widest gap that keeps the legend on one line of `width` cells
# (at 80 columns the sample's four levels wrapped "3  Highly relevant" onto a second line
# with three spaces; two fit). A legend too long for one line wraps with the widest gap.
GAPS = ("   ", "  ", " ")


def legend_text(levels: list[ScaleEntry], width: int | None = None) -> Text:
    """The legend with the widest gap that fits in `width` cells (None: the widest)."""
    texts = [_legend(levels, gap) for gap in GAPS]
    if width is not None:
        for text in texts:
            if text.cell_len <= width:
                return text
    return texts[0]


def _legend(levels: list[ScaleEntry], gap: str) -> Text:
    text = Text()
    for i, level in enumerate(levels):
        if i:
            text.append(gap)
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

    levels: list[ScaleEntry] = []

    def show(self, levels: list[ScaleEntry]) -> None:
        self.levels = list(levels)
        self._draw()

    def _draw(self) -> None:
        width = self.content_region.width or None  # 0 before the first layout
        self.update(safe(legend_text(self.levels, width)))

    def on_resize(self, event: events.Resize) -> None:
        if self.levels:
            self._draw()

    def on_click(self, event: events.Click) -> None:
        grade = event.style.meta.get(GRADE_META)
        if isinstance(grade, int):
            event.stop()
            self.post_message(self.Picked(grade))
