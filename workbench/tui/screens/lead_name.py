"""Who adjudicates: asked once per session, before the first final grade. The name is the
lead's own (campaign/agreement/adjudication.py: never a fixed "lead" row). A name that is an assessor
with grades is asked about: the same person (y) decides on their own grades knowingly, or
another name is typed (n). Dismisses with (name, same_person), or None when cancelled."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from workbench.campaign.agreement.adjudication import lead_name
from workbench.campaign.assessors.roster import grading
from workbench.tui.text import describe, safe

_ASK = "Your name, recorded as the adjudicator of every final grade  (Enter, Esc cancels)"


@dataclass
class NameChecked(Message):
    name: str
    grader: bool  # an assessor of that name has grades


@dataclass
class NameRefused(Message):
    error: str


class LeadNameScreen(ModalScreen[tuple[str, bool] | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("y", "same(True)", "Same person", show=False),
        Binding("n", "same(False)", "Another name", show=False),
    ]

    def __init__(self, initial: str = "") -> None:
        super().__init__()
        self.initial = initial
        self.confirming: str | None = None  # the name asked about (y/n)

    def compose(self) -> ComposeResult:
        with Vertical(id="note-dialog"):
            yield Static(Text(_ASK), id="lead-ask")
            yield Input(value=self.initial, placeholder="e.g. Dana Lee", id="lead-input")
            yield Static(id="lead-status")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            name = lead_name(event.value)
        except Exception as exc:  # InvalidName, no name: said in the dialog
            self._status(describe(exc), error=True)
            return
        self._check(name)

    @work(thread=True, group="lead-name", exclusive=True)
    def _check(self, name: str) -> None:
        try:
            self.post_message(NameChecked(name, name in grading(self.app.db, machines=True)))
        except Exception as exc:  # noqa: BLE001
            self.post_message(NameRefused(describe(exc)))

    def on_name_checked(self, message: NameChecked) -> None:
        if not message.grader:
            self.dismiss((message.name, False))
            return
        self.confirming = message.name
        self.query_one("#lead-input", Input).disabled = True
        self.focus()
        self._status(f"{message.name!r} is an assessor with grades in this campaign. Are you "
                     f"{message.name}? y: yes, the same person (deciding on my own grades too) · "
                     "n: type another name")

    def on_name_refused(self, message: NameRefused) -> None:
        self._status(message.error, error=True)

    def action_same(self, same: bool) -> None:
        if self.confirming is None:
            return
        if same:
            self.dismiss((self.confirming, True))
            return
        self.confirming = None
        box = self.query_one("#lead-input", Input)
        box.disabled = False
        box.value = ""
        box.focus()
        self._status("")

    def _status(self, text: str, error: bool = False) -> None:
        self.query_one("#lead-status", Static).update(safe(Text(text, style="bold red" if error else "")))

    def action_cancel(self) -> None:
        self.dismiss(None)
