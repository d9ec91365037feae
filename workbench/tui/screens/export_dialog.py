"""Export dialog of the lead screens: a file path and a format; dismisses with
(path, format) or None. Changing the format suggests a new path (until the user edits it)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Select, Static


class ExportDialog(ModalScreen[tuple[str, str] | None]):
    CSS_PATH = "../lead.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, suggest: Callable[[str], str], formats: list[str]) -> None:
        super().__init__()
        self.suggest = suggest  # format -> suggested path
        self.formats = formats
        self.path = suggest(formats[0])

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog"):
            yield Static(Text("Export  (Enter writes the file, Esc cancels)", style="bold"))
            yield Select([(name, name) for name in self.formats], value=self.formats[0],
                         allow_blank=False, id="export-format")
            yield Input(value=self.path, id="export-path")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        box = self.query_one("#export-path", Input)
        if box.value == self.path:  # not edited by hand: follow the format
            self.path = box.value = self.suggest(str(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        path = event.value.strip()
        if not path:
            self.notify("Type a file name.", severity="warning", markup=False)
            return
        self.dismiss((path, str(self.query_one("#export-format", Select).value)))

    def action_cancel(self) -> None:
        self.dismiss(None)
