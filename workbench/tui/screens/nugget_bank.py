"""The lead's nugget screen for one topic (`workbench nuggets edit TOPIC`): the topic's
text and narrative, the documents people judged relevant (best first), and the nugget
list. Keys: a add, e edit, s split (two texts separated by " | "), m merge with the next,
J/K move down/up, d delete, v vital/okay, f freeze or unfreeze, j/k move the cursor.
Every edit goes through campaign/answers/bank.py (a frozen bank refuses it)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from workbench.campaign.answers import bank


class NuggetBankScreen(Screen):
    BINDINGS = [
        Binding("a", "add", "add"), Binding("e", "edit", "edit"), Binding("s", "split", "split"),
        Binding("m", "merge", "merge"), Binding("J", "move(1)", "down"), Binding("K", "move(-1)", "up"),
        Binding("d", "delete", "delete"), Binding("v", "toggle", "vital/okay"),
        Binding("f", "freeze", "freeze"), Binding("j,down", "cursor(1)", show=False),
        Binding("k,up", "cursor(-1)", show=False),
    ]
    DEFAULT_CSS = """
    NuggetBankScreen #docs { width: 1fr; border: round $primary; padding: 0 1; }
    NuggetBankScreen #bank { width: 1fr; border: round $secondary; padding: 0 1; }
    """

    def __init__(self, topic: str) -> None:
        super().__init__()
        self.topic = topic
        self.cursor = 0
        self.view: bank.BankView | None = None

    def compose(self) -> ComposeResult:
        with Horizontal():
            with VerticalScroll(id="docs"):
                yield Static(id="doc-text")
            with VerticalScroll(id="bank"):
                yield Static(id="bank-text")
        yield Footer()

    def on_mount(self) -> None:
        self.reload()

    def reload(self) -> None:
        self.view = bank.bank_view(self.app.db, self.topic)
        self.cursor = max(0, min(self.cursor, len(self.view.nuggets) - 1))
        v = self.view
        left = Text()
        left.append(f"{v.topic}: {v.title}\n", style="bold")
        if v.narrative:
            left.append(v.narrative + "\n", style="italic")
        left.append("\nJudged relevant, best first:\n", style="bold")
        for k, (title, text) in enumerate(v.documents):
            left.append(f"[{k + 1}] {title}\n", style="cyan")
            left.append(text[:1500] + "\n\n")
        self.query_one("#doc-text", Static).update(left)
        right = Text()
        right.append(f"{len(v.nuggets)} nuggets{'  (frozen)' if v.frozen else ''}\n\n", style="bold")
        for i, n in enumerate(v.nuggets):
            line = Text(f"{i + 1:2d}. [{n.importance:5}] [{n.origin:7}] ")
            line.append(n.text)
            if i == self.cursor:
                line.stylize("reverse")
            right.append_text(line)
            right.append("\n")
        self.query_one("#bank-text", Static).update(right)

    def _current(self):
        return self.view.nuggets[self.cursor] if self.view and self.view.nuggets else None

    def _do(self, action) -> None:
        try:
            action()
        except Exception as exc:
            self.app.notify(str(exc), severity="warning", markup=False)
        self.reload()

    def _ask(self, heading: str, initial: str, then) -> None:
        from workbench.tui.screens.note import NoteScreen

        def done(text: str | None) -> None:
            if text is not None:
                self._do(lambda: then(text))

        self.app.push_screen(NoteScreen(initial, heading=heading, placeholder="nugget text"), done)

    def action_cursor(self, step: int) -> None:
        if self.view and self.view.nuggets:
            self.cursor = max(0, min(len(self.view.nuggets) - 1, self.cursor + step))
            self.reload()

    def action_add(self) -> None:
        def added(text):
            bank.add(self.app.db, self.topic, text)
            self.cursor = len(self.view.nuggets)

        self._ask("New nugget (Enter adds, Esc cancels)", "", added)

    def action_edit(self) -> None:
        n = self._current()
        if n is not None:
            self._ask("Edit the nugget", n.text, lambda t: bank.edit(self.app.db, self.topic, n.id, t))

    def action_split(self) -> None:
        n = self._current()
        if n is None:
            return

        def split(text):
            first, sep, second = text.partition("|")
            if not sep:
                raise ValueError('separate the two nuggets with " | "')
            bank.split(self.app.db, self.topic, n.id, first, second)

        self._ask("Split into two: FIRST | SECOND", n.text + " | ", split)

    def action_merge(self) -> None:
        n = self._current()
        if n is None or self.cursor + 1 >= len(self.view.nuggets):
            return
        other = self.view.nuggets[self.cursor + 1]
        self._ask("Merge with the next nugget: the merged text", f"{n.text} {other.text}",
                  lambda t: bank.merge(self.app.db, self.topic, n.id, other.id, t))

    def action_move(self, step: int) -> None:
        n = self._current()
        if n is not None:
            self._do(lambda: bank.move(self.app.db, self.topic, n.id, step))
            self.cursor = max(0, min(len(self.view.nuggets) - 1, self.cursor + step))
            self.reload()

    def action_delete(self) -> None:
        n = self._current()
        if n is not None:
            self._do(lambda: bank.delete(self.app.db, self.topic, n.id))

    def action_toggle(self) -> None:
        n = self._current()
        if n is not None:
            self._do(lambda: bank.toggle(self.app.db, self.topic, n.id))

    def action_freeze(self) -> None:
        self._do(lambda: bank.set_frozen(self.app.db, self.topic, not self.view.frozen))


def nugget_bank_app(db, topic: str):
    """The lead's app opened on one topic's nugget screen (`workbench nuggets edit`)."""
    from pathlib import Path

    from workbench.tui import app as app_module
    from workbench.tui.app import WorkbenchApp

    class NuggetBankApp(WorkbenchApp):
        CSS_PATH = str(Path(app_module.__file__).parent / WorkbenchApp.CSS_PATH)

        def on_mount(self) -> None:
            super().on_mount()
            self.push_screen(NuggetBankScreen(topic))

    return NuggetBankApp(db, owns_db=True, lead=True)
