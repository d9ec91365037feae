"""Start screen: choose an assessor or create one (remembered for this database)."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from workbench.campaign.assessors import roster
from workbench.errors import NotFoundError, UsageError
from workbench.names import InvalidName, check_name
from workbench.tui.messages import AssessorChecked, AssessorsLoaded
from workbench.tui.settings import remembered_assessor
from workbench.tui.text import safe


class AssessorScreen(Screen):
    """The base screen of the `assess` mode."""

    BINDINGS = []  # Quit (ctrl+q) comes from the app, in every footer

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []
        self.machines: list[str] = []
        self.refused: str | None = None  # the new name refused last: Enter again creates it

    def compose(self) -> ComposeResult:
        with Vertical(id="assessor-box"):
            yield Static(Text("Who is judging?", style="bold"), id="assessor-title")
            yield Static(Text(""), id="assessor-db")
            yield OptionList(id="assessor-list")
            yield Input(placeholder="or type a new assessor name and press Enter", id="assessor-new")
            yield Static(Text("Enter continues as the highlighted name · Tab moves to the new-name box",
                              style="dim"), id="assessor-hint")
        yield Footer()

    def on_mount(self) -> None:
        from workbench.tui.screens.lead_modes import show_lead_keys

        show_lead_keys(self)  # a lead's footer shows the lead screens' F-keys
        line = Text(f"database: {self.app.db.url}", style="dim")
        if self.app.notice:  # `workbench demo`: the copy and its grades go at exit
            line.append(f"\n{self.app.notice}", style="bold yellow")
        self.query_one("#assessor-db", Static).update(safe(line))
        self._load()

    @work(thread=True, group="load")
    def _load(self) -> None:
        db = self.app.db
        self.post_message(AssessorsLoaded(roster.with_work(db), roster.machines(db)))

    def on_assessors_loaded(self, message: AssessorsLoaded) -> None:
        names = self.names = message.names
        self.machines = message.machines
        options = self.query_one("#assessor-list", OptionList)
        options.set_options(Option(safe(Text(n))) for n in names)
        options.display = bool(names)
        remembered = remembered_assessor(self.app.db.url)
        if names:
            options.highlighted = names.index(remembered) if remembered in names else 0
            options.focus()
        else:
            self.query_one("#assessor-new", Input).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.app.open_assessor(self.names[event.option_index])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not event.value.strip():
            self.notify("Type a name first.", markup=False)
            return
        try:
            name = check_name(event.value)  # the rule of every entry point (workbench.names)
        except InvalidName as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        if name in self.names:
            event.input.value = ""
            self.app.open_assessor(name)
            return
        # the roster's rule (as `judge`, `grade`, `queue`, `serve link`): a typo is refused
        # with the nearest name; a new person only when the same name is entered again
        self._check(name, new=name == self.refused)

    @work(thread=True, group="check", exclusive=True)
    def _check(self, name: str, new: bool) -> None:
        try:
            roster.check_assessor(self.app.db, name, new=new, create=CREATE_HINT)
        except (NotFoundError, UsageError) as exc:
            self.post_message(AssessorChecked(name, str(exc), creatable=isinstance(exc, NotFoundError)))
            return
        self.post_message(AssessorChecked(name, None))

    def on_assessor_checked(self, message: AssessorChecked) -> None:
        hint = self.query_one("#assessor-hint", Static)
        if message.refusal is not None:
            self.refused = message.name if message.creatable else None
            hint.update(Text(message.refusal, style="bold red"))
            self.notify(message.refusal, severity="error", markup=False)
            return
        self.refused = None
        self.query_one("#assessor-new", Input).value = ""
        self.app.open_assessor(message.name)


CREATE_HINT = "press Enter again to create this new assessor"
