"""On opening: an assessor with answers to label gets the nugget assignment screen; one
with both a document pool and an answer pool chooses which (d documents, a answers)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static


def answer_work_screen(db, assessor: str) -> Screen | None:
    """The screen to open for `assessor` when they have an answer queue; None otherwise
    (the document screens as before)."""
    from workbench.campaign.answers.assessing import has_answer_queue, has_document_queue

    if not has_answer_queue(db, assessor):
        return None
    if has_document_queue(db, assessor):
        return WorkChoiceScreen(assessor)
    from workbench.tui.screens.answer_judge import AnswerJudgeScreen

    return AnswerJudgeScreen(assessor)


class WorkChoiceScreen(Screen):
    BINDINGS = [Binding("d", "documents", "documents"), Binding("a", "answers", "answers")]

    def __init__(self, assessor: str) -> None:
        super().__init__()
        self.assessor = assessor

    def compose(self) -> ComposeResult:
        yield Static(Text("You have documents to judge and answers to label.\n\n"
                          "  d  judge documents\n  a  label the nuggets of answers"), id="choice")
        yield Footer()

    def action_documents(self) -> None:
        from workbench.tui.screens.query_list import QueryListScreen

        self.app.push_screen(QueryListScreen(self.assessor, open_first=True))

    def action_answers(self) -> None:
        from workbench.tui.screens.answer_judge import AnswerJudgeScreen

        self.app.push_screen(AnswerJudgeScreen(self.assessor))
