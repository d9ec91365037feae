"""One line of state: progress in the query, saving / saved / error."""

from __future__ import annotations
from workbench.tui.text import safe

from rich.text import Text
from textual.widgets import Static


class StatusLine(Static):
    def show(self, progress: str, state: str = "", *, error: bool = False) -> None:
        text = Text(progress)
        if state:
            text.append("   ")
            text.append(state, style="bold red" if error else "green")
        self.set_class(error, "error")
        self.update(safe(text), layout=False)  # always one line: no relayout per grade
