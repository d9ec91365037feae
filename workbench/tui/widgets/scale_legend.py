"""The relevance scale's legend, from the campaign's ScaleLevel rows."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from workbench.campaign.judging.assessing import ScaleEntry
from workbench.tui.text import safe


def legend_text(levels: list[ScaleEntry]) -> Text:
    text = Text()
    for i, level in enumerate(levels):
        if i:
            text.append("   ")
        text.append(f" {level.grade} ", style="bold reverse")
        text.append(f" {level.label}")
    return text


class ScaleLegend(Static):
    def show(self, levels: list[ScaleEntry]) -> None:
        self.update(safe(legend_text(levels)))
