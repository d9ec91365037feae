"""A modal to write a note on the current document; dismisses with the text or None."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from workbench.tui.text import safe


class NoteScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, initial: str = "", document: str = "", *,
                 heading: str | None = None, placeholder: str = "why this grade…") -> None:
        super().__init__()
        self.initial = initial
        self.document = document
        self.heading = heading or f"Note on {document}  (Enter saves, Esc cancels)"
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(id="note-dialog"):
            yield Static(safe(Text(self.heading)))
            yield Input(value=safe(self.initial), placeholder=self.placeholder, id="note-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
