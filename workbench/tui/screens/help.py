"""Key help, generated from the bindings of the screen it is opened on (one registry)."""

from __future__ import annotations
from workbench.tui.text import safe

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


def bindings_table(rows: list[tuple[str, str]], extra: list[tuple[str, str]]) -> Table:
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for key, desc in extra + rows:
        table.add_row(safe(Text(key)), safe(Text(desc)))
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def __init__(self, rows: list[tuple[str, str]], extra: list[tuple[str, str]] | None = None):
        super().__init__()
        self.rows = rows
        self.extra = extra or []

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            yield Static(Text("Keys  (Esc closes; ctrl+p opens the command palette)", style="bold"))
            yield Static(bindings_table(self.rows, self.extra))

    def action_close(self) -> None:
        self.dismiss(None)
