"""The assessor's nugget assignment screen: one answer at a time, its sentences on the
left (each citation's document text on demand), the topic's nuggets on the right with the
current one highlighted. Keys: 2/1/0 label support / partial / not and move to the next
unlabelled nugget; j/k move; u undo; n note; l later (the next answer, this one comes back
at the end); c the cited documents; ? help; g guidelines. When every nugget is labelled the
next answer comes.

Blind: everything shown comes from campaign.answers.assessing.answer_view (no run, team,
other labels, machine labels or scores). Each label is written in the key's handler, in
its own transaction: it is on disk before the highlight moves."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from workbench.campaign.answers import assessing

LABEL_TEXT = {2: "support", 1: "partial", 0: "not"}
KEYS = [("2", "support"), ("1", "partial support"), ("0", "not supported"), ("j / k", "next / previous nugget"),
        ("u", "undo the last label"), ("n", "note on the current nugget"), ("l", "later: the next answer"),
        ("c", "show the cited documents' text"), ("g", "guidelines"), ("?", "this help")]


class AnswerJudgeScreen(Screen):
    BINDINGS = [
        Binding("2", "label(2)", "support"), Binding("1", "label(1)", "partial"),
        Binding("0", "label(0)", "not"), Binding("j,down", "move(1)", "next", show=False),
        Binding("k,up", "move(-1)", "previous", show=False), Binding("u", "undo", "undo"),
        Binding("n", "note", "note"), Binding("l", "later", "later"),
        Binding("c", "citations", "citations"), Binding("g", "guidelines", "guidelines"),
        Binding("question_mark", "help", "help"),
    ]
    DEFAULT_CSS = """
    AnswerJudgeScreen #answer { width: 3fr; border: round $primary; padding: 0 1; }
    AnswerJudgeScreen #nuggets { width: 2fr; border: round $secondary; padding: 0 1; }
    AnswerJudgeScreen #status { height: 1; }
    """

    def __init__(self, assessor: str) -> None:
        super().__init__()
        self.assessor = assessor
        self.view: assessing.AnswerView | None = None
        self.cursor = 0
        self.later: set[int] = set()
        self.show_citations = False
        self._since = time.monotonic()

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        with Horizontal():
            with VerticalScroll(id="answer"):
                yield Static(id="answer-text")
            with VerticalScroll(id="nuggets"):
                yield Static(id="nugget-list")
        yield Footer()

    def on_mount(self) -> None:
        self.load_next()

    # --- what is drawn ----------------------------------------------------------------

    def load_next(self, answer_id: int | None = None) -> None:
        if answer_id is None:
            answer_id = assessing.next_answer(self.db, self.assessor, skip=self.later)
        if answer_id is None:
            self.view = None
            self.query_one("#answer-text", Static).update(Text("Every answer in your queue is labelled. Thank you."))
            self.query_one("#nugget-list", Static).update(Text(""))
            self.query_one("#status", Static).update(Text("done"))
            return
        self.view = assessing.answer_view(self.db, self.assessor, answer_id)
        self.show_citations = False
        self.cursor = self._first_open(0)
        self._since = time.monotonic()
        self.redraw()

    @property
    def db(self):
        return self.app.db

    def _first_open(self, start: int) -> int:
        n = len(self.view.nuggets)
        for k in range(n):
            i = (start + k) % n
            if self.view.nuggets[i].label is None:
                return i
        return min(start, max(n - 1, 0))

    def redraw(self) -> None:
        v = self.view
        left = Text()
        left.append(v.topic + "\n", style="bold")
        if v.narrative:
            left.append(v.narrative + "\n", style="italic")
        left.append("\n")
        for s in v.sentences:
            left.append(s.text)
            if s.citations:
                left.append(" " + "".join(f"[{c}]" for c in s.citations), style="cyan")
            left.append("\n")
        if self.show_citations:
            cited = sorted({c for s in v.sentences for c in s.citations})
            left.append("\n")
            for c in cited:
                title, text = assessing.citation_text(self.db, v.answer_id, c)
                left.append(f"[{c}] {title}\n", style="bold cyan")
                left.append(text + "\n\n")
        self.query_one("#answer-text", Static).update(left)
        right = Text()
        for i, n in enumerate(v.nuggets):
            mark = LABEL_TEXT.get(n.label, "·") if n.label is not None else "·"
            line = Text(f"{'>' if i == self.cursor else ' '} {i + 1:2d}. [{mark:>7}] ", no_wrap=False)
            line.append(n.text)
            if n.note:
                line.append("  (note)", style="dim")
            if i == self.cursor:
                line.stylize("reverse")
            right.append_text(line)
            right.append("\n")
        self.query_one("#nugget-list", Static).update(right)
        done = sum(n.label is not None for n in v.nuggets)
        self.query_one("#status", Static).update(
            Text(f"{self.assessor}: nugget {self.cursor + 1} of {len(v.nuggets)}, {done} labelled"))

    # --- keys -------------------------------------------------------------------------

    def action_label(self, label: int) -> None:
        if self.view is None or not self.view.nuggets:
            return
        nugget = self.view.nuggets[self.cursor]
        seconds = time.monotonic() - self._since
        try:
            assessing.label_nugget(self.db, self.assessor, self.view.answer_id, nugget.nugget_id,
                                   label, seconds)
        except Exception as exc:  # the label is not on disk: say so, do not move
            self.app.notify(f"not saved: {exc}", severity="error", markup=False)
            return
        self._since = time.monotonic()
        self.view = assessing.answer_view(self.db, self.assessor, self.view.answer_id)
        if self.view.done:
            self.load_next()
            return
        self.cursor = self._first_open(self.cursor + 1)
        self.redraw()

    def action_move(self, step: int) -> None:
        if self.view is None or not self.view.nuggets:
            return
        self.cursor = max(0, min(len(self.view.nuggets) - 1, self.cursor + step))
        self.redraw()

    def action_undo(self) -> None:
        undone = assessing.undo_last(self.db, self.assessor)
        if undone is None:
            self.app.notify("nothing to undo", markup=False)
            return
        answer_id, nugget_id = undone
        if answer_id is not None and (self.view is None or self.view.answer_id != answer_id):
            self.load_next(answer_id)
        else:
            self.view = assessing.answer_view(self.db, self.assessor, self.view.answer_id)
        self.cursor = next((i for i, n in enumerate(self.view.nuggets) if n.nugget_id == nugget_id), 0)
        self.redraw()

    def action_note(self) -> None:
        if self.view is None or not self.view.nuggets:
            return
        from workbench.tui.screens.note import NoteScreen

        nugget = self.view.nuggets[self.cursor]

        def saved(text: str | None) -> None:
            if text is None:
                return
            try:
                assessing.note_nugget(self.db, self.assessor, self.view.answer_id, nugget.nugget_id, text)
            except Exception as exc:
                self.app.notify(str(exc), severity="warning", markup=False)
                return
            self.view = assessing.answer_view(self.db, self.assessor, self.view.answer_id)
            self.redraw()

        self.app.push_screen(NoteScreen(nugget.note, heading=f"Note on nugget {self.cursor + 1}  "
                                        "(Enter saves, Esc cancels)", placeholder="why this label…"), saved)

    def action_later(self) -> None:
        if self.view is not None:
            self.later.add(self.view.answer_id)
            self.load_next()

    def action_citations(self) -> None:
        if self.view is not None:
            self.show_citations = not self.show_citations
            self.redraw()

    def action_help(self) -> None:
        from workbench.tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(KEYS))

    def action_guidelines(self) -> None:
        from workbench.campaign.settings import guidelines
        from workbench.tui.screens.guidelines import GuidelinesScreen

        topic = self.view.topic if self.view is not None else ""
        narrative = self.view.narrative if self.view is not None else ""
        self.app.push_screen(GuidelinesScreen(guidelines(self.db), topic, narrative))
