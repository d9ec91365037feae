"""Adjudicate one item (lead): read the query and the document, see every assessor's grade
and note, press a grade to set the final one (x clears it). The write is a thread worker
(campaign.agreement.adjudication.adjudicate: one transaction with its `adjudicate` event); the dialog
closes only after the commit, with the record; an error stays in the dialog."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from workbench.campaign.agreement import adjudication
from workbench.campaign.agreement.adjudication import AdjudicationRecord, ItemView
from workbench.campaign.scale import not_on_scale, on_scale
from workbench.campaign.judging.assessing import ScaleEntry, scale
from workbench.tui.text import describe, safe


@dataclass
class ItemLoaded(Message):
    item: ItemView
    levels: list[ScaleEntry]


@dataclass
class Adjudicated(Message):
    record: AdjudicationRecord


@dataclass
class AdjudicationFailed(Message):
    error: str


# Terminals lower than this get the compact dialog (AdjudicateScreen._fit).
COMPACT_BELOW = 32


class AdjudicateScreen(ModalScreen[AdjudicationRecord | None]):
    CSS_PATH = "../lead.tcss"
    BINDINGS = [
        *[Binding(str(d), f"final({d})", f"final {d}", show=False) for d in range(10)],
        Binding("x", "final(-1)", "Clear final"),
        Binding("n", "note", "Note"),
        Binding("escape", "cancel", "Back"),
    ]

    def __init__(self, query: str, document: str, lead: str, *, same_person: bool = False) -> None:
        super().__init__()
        self.query_ext = query
        self.document = document
        self.lead = lead  # the lead's own name (asked once: lead_name.py)
        self.same_person = same_person
        self.item: ItemView | None = None
        self.levels: list[ScaleEntry] = []
        self._saving = False

    def compose(self) -> ComposeResult:
        with Vertical(id="adj-dialog"):
            yield Static(safe(Text(f"Adjudicate {self.query_ext} / {self.document}: loading…")), id="adj-query")
            yield Static(id="adj-grades")
            with VerticalScroll(id="adj-text"):
                yield Static(id="adj-doc")
            yield Input(placeholder="note for the final grade (optional; n focuses, Enter keeps it)",
                        id="adj-note")
            yield Static(id="adj-status")

    def on_mount(self) -> None:
        self._fit(self.app.size.height)
        self.query_one("#adj-text").focus()
        self._load()

    @work(thread=True, group="adj-load", exclusive=True)
    def _load(self) -> None:
        db = self.app.db
        try:
            self.post_message(ItemLoaded(adjudication.read_item(db, self.query_ext, self.document), scale(db)))
        except Exception as exc:  # noqa: BLE001
            self.post_message(AdjudicationFailed(describe(exc)))

    def on_item_loaded(self, message: ItemLoaded) -> None:
        self.item, self.levels = message.item, message.levels
        self._draw()
        item = self.item
        if item.final_note and not self.query_one("#adj-note", Input).value:
            self.query_one("#adj-note", Input).value = item.final_note

    def on_resize(self, event) -> None:
        self._fit(event.size.height)
        if self.item is not None:
            self._draw()

    def _fit(self, height: int) -> None:
        """Below COMPACT_BELOW rows the dialog takes the whole terminal, the query shows 3
        lines and the grades run on one line: at 80×24 the document box was left one row,
        its title, and no text."""
        self.set_class(height < COMPACT_BELOW, "-compact")

    def _draw(self) -> None:
        item = self.item
        compact = self.has_class("-compact")
        query = Text.assemble((f"Query {item.query}: ", "bold"), (item.query_title, "bold"))
        for part in (item.query_description, item.query_narrative):
            if part:
                query.append("\n")
                query.append(part, style="dim")
        self.query_one("#adj-query", Static).update(safe(query))
        grades = Text()
        for name, grade, note in item.grades:
            grades.append(f"{name}: ", style="bold")
            grades.append(f"{grade} {self._label(grade)}")
            if note:
                grades.append(f"  “{note}”", style="italic")
            grades.append(" · " if compact else "\n")
        grades.append("final: ", style="bold")
        if item.final is None:
            grades.append("not adjudicated", style="dim")
        else:
            grades.append(f"{item.final} {self._label(item.final)} (by {item.adjudicator})", style="bold green")
            if item.final_note:
                grades.append(f"  “{item.final_note}”", style="italic")
        keys = " · ".join(f"{e.grade} {e.label}" for e in self.levels)
        grades.append(f"\nkeys: {keys} · x clear final · n note · Esc back (as {self.lead})", style="dim")
        self.query_one("#adj-grades", Static).update(safe(grades))
        doc = Text.assemble((f"{item.document} · ", "dim"), (item.title or "(no title)", "bold"), "\n")
        if item.url:
            doc.append(item.url + "\n", style="dim underline")
        doc.append("\n")
        doc.append(item.text)
        self.query_one("#adj-doc", Static).update(safe(doc))

    def _label(self, grade: int) -> str:
        for e in self.levels:
            if e.grade == grade:
                return f"({e.label})"
        return ""

    def action_final(self, grade: int) -> None:
        if self.item is None or self._saving:
            return
        if grade >= 0 and not on_scale(grade, allowed := [e.grade for e in self.levels]):
            self._status(not_on_scale(grade, allowed), error=True)
            return
        self._saving = True
        self._status("saving…")
        self._save(None if grade < 0 else grade, self.query_one("#adj-note", Input).value.strip())

    @work(thread=True, group="adj-save")
    def _save(self, grade: int | None, note: str) -> None:
        try:
            record = adjudication.adjudicate(self.app.db, self.lead, self.query_ext, self.document,
                                             grade, note=note, same_person=self.same_person)
        except Exception as exc:  # noqa: BLE001
            self.post_message(AdjudicationFailed(describe(exc)))
            return
        self.post_message(Adjudicated(record))

    def on_adjudicated(self, message: Adjudicated) -> None:
        self._saving = False
        self.dismiss(message.record)

    def on_adjudication_failed(self, message: AdjudicationFailed) -> None:
        self._saving = False
        self._status(message.error, error=True)

    def _status(self, text: str, error: bool = False) -> None:
        self.query_one("#adj-status", Static).update(safe(Text(text, style="bold red" if error else "dim")))

    def action_note(self) -> None:
        self.query_one("#adj-note", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#adj-text").focus()
        self._status("note kept: press a grade to save it with the final grade")

    def action_cancel(self) -> None:
        if self.query_one("#adj-note", Input).has_focus:
            self.query_one("#adj-text").focus()
            return
        self.dismiss(None)
