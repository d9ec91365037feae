"""The workbench Textual app and its factory (`make_app`), used by the CLI and the tests.

Modes (Textual MODES: independent screen stacks). The assessor's flow is the `assess` mode:
AssessorScreen -> QueryListScreen -> JudgeScreen (started for one assessor, the mode's base
is that assessor's QueryListScreen). Team-lead modes (scores, agreement, disagreements,
systems, quick) are registered by `screens/lead_modes.py` only when the app runs with
lead=True (bare `workbench`, `workbench demo`); `workbench judge` runs with lead=False, so
an assessor's app has no lead mode, key or palette entry at all (blind, docs/architecture.md#rules-that-hold-everywhere).
A screen reaches the database as `self.app.db`; judging writes go through
`self.app.background` (one writer thread, see background.py).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from workbench.campaign.database import Database
from workbench.errors import UsageError
from workbench.tui.background import Background
from workbench.tui.screens.assessor_select import AssessorScreen
from workbench.tui.settings import remember_assessor


# Textual's own terminal drivers: they read keys from stdin and draw on stdout.
_TERMINAL_DRIVERS = ("textual.drivers.linux_driver", "textual.drivers.windows_driver")


def require_terminal() -> None:
    """UsageError unless stdin and stdout are both terminals."""
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
        try:
            tty = stream is not None and stream.isatty()
        except (AttributeError, ValueError):  # a closed or replaced stream
            tty = False
        if not tty:
            raise UsageError(
                f"the workbench screens need a terminal, but {name} is not one (a pipe or a "
                "file): run it in a terminal, or grade without one with `workbench grade`"
            )


class WorkbenchApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "workbench"
    DEFAULT_MODE = "assess"
    # mode name -> base screen type. Lead screens go here (e.g. "scores": ScoresScreen).
    MODES = {"assess": AssessorScreen}
    # mode name -> key that switches to it (e.g. "scores": "f2"); none for assessors.
    MODE_KEYS: dict[str, str] = {}
    # Quit is shown in every screen's footer (a new user looks there first).
    BINDINGS = [Binding("ctrl+q", "quit", "Quit")]
    # True in `workbench serve`'s app processes: the person is in a browser, not on the
    # server's host (no host names or pids shown, no server paths written; docs/serve.md)
    served = False

    def notify(self, message: str, *, title: str = "", markup: bool = False, **kwargs) -> None:
        """Every notification passes the one sanitiser and is never markup: messages quote
        names, ids and errors that came from outside (workbench.visible: terminal control characters made harmless)."""
        from workbench.tui.text import safe

        super().notify(safe(message), title=safe(title), markup=False, **kwargs)

    def __init__(
        self,
        db: Database,
        *,
        assessor: str | None = None,
        measures: list[str] | None = None,
        owns_db: bool = False,
        lead: bool = False,
        notice: str = "",
        audience: str | None = None,
    ) -> None:
        from workbench.campaign.assessors import visibility

        super().__init__()
        self.db = db
        # What the screens say about this database while the app runs (`workbench demo`:
        # a temporary copy, thrown away at exit): the start screen's database line, and a
        # message when the app starts.
        self.notice = notice
        # Lead modes (scores, agreement, ...) show systems and every assessor's grades:
        # they exist only for a lead (bare `workbench`, `workbench demo`), never in `judge`
        # nor in an assessor's browser: the audience decides (assessors/visibility.py).
        self.audience = audience or (visibility.LEAD if lead else visibility.ASSESSOR_SCREEN)
        self.lead = lead = visibility.lead_screens(self.audience)
        if lead:
            from workbench.tui.screens.lead_modes import register_lead_modes

            register_lead_modes(self)
        self.start_assessor = assessor
        # Who adjudicates: the lead's own name, asked once per session (screens/lead_name.py)
        self.lead_name: str | None = None
        self.lead_same_person = False
        self._modes["assess"] = self._assess_base  # instance copy of MODES (Textual's)
        self.measures = measures
        self._owns_db = owns_db
        # The judging screen's writes run here, in key order (see background.py).
        self.background = Background()
        self._quitting = False  # Ctrl+Q came while a grade was being saved
        self._trackers: dict = {}
        self._runs_cache = None
        self._trackers_lock = threading.RLock()  # workers ask for trackers and the runs cache
        self._score_dirty: dict[str, set[str]] = {}
        for mode, key in self.MODE_KEYS.items():
            self.bind(key, f"switch_mode('{mode}')", description=mode.title())

    def run(self, *args, headless: bool = False, **kwargs):
        """Run on the terminal. With stdin or stdout not a terminal (`echo | workbench
        judge`, output to a file) Textual's terminal driver waits for keys that never come
        and spins at 100 % CPU: refuse instead. Another driver (a web server's, set through
        TEXTUAL_DRIVER) brings its own input and is left alone."""
        if not headless and self.driver_class.__module__ in _TERMINAL_DRIVERS:
            require_terminal()
        return super().run(*args, headless=headless, **kwargs)

    def on_resize(self, event) -> None:
        self._cover_when_too_small(event.size.width, event.size.height)

    def _cover_when_too_small(self, width: int, height: int) -> None:
        """Cover the app while the terminal cannot show a document (screens/too_small.py)."""
        from workbench.tui.screens.too_small import TooSmallScreen, too_small

        covered = isinstance(self.screen, TooSmallScreen)
        if too_small(width, height) and not covered:
            self.push_screen(TooSmallScreen())
        elif covered and not too_small(width, height):
            self.pop_screen()

    def push_screen(self, screen, *args, **kwargs):
        """A screen opened while the app is covered (the judging screen after its query
        list loaded) goes under the cover, which stays on top."""
        from workbench.tui.screens.too_small import TooSmallScreen

        covered = isinstance(self.screen, TooSmallScreen) and not isinstance(screen, TooSmallScreen)
        if covered:
            self.pop_screen()
        result = super().push_screen(screen, *args, **kwargs)
        if covered:
            super().push_screen(TooSmallScreen())
        return result

    def on_mount(self) -> None:
        self.call_after_refresh(lambda: self._cover_when_too_small(*self.size))
        if self.start_assessor:
            remember_assessor(self.db.url, self.start_assessor)
            self.sub_title = self.start_assessor
        if self.notice:
            self.notify(self.notice, severity="warning", timeout=30, markup=False)

    def _assess_base(self) -> Screen:
        """The `assess` mode's base screen: the assessor chooser, or - when the app was
        started for one assessor (`judge --assessor`) - that assessor's query list, which
        opens the judging screen at once (fewer screens to build before the first usable
        one, and no way back to other assessors)."""
        if self.start_assessor:
            from workbench.tui.screens.work_choice import answer_work_screen

            chosen = answer_work_screen(self.db, self.start_assessor)  # answers to label?
            if chosen is not None:
                return chosen
            from workbench.tui.screens.query_list import QueryListScreen

            return QueryListScreen(self.start_assessor, open_first=True)
        return AssessorScreen()

    def open_assessor(self, name: str, *, open_first: bool = False) -> None:
        """Continue as assessor `name`: remember it for this database, show their queries (or,
        with answers to label, the nugget assignment screen or the choice between the two, as
        `judge --assessor` opens)."""
        from workbench.tui.screens.query_list import QueryListScreen
        from workbench.tui.screens.work_choice import answer_work_screen

        remember_assessor(self.db.url, name)
        self.sub_title = name
        chosen = answer_work_screen(self.db, name)
        self.push_screen(chosen if chosen is not None else QueryListScreen(name, open_first=open_first))

    def score_tracker(self, assessor: str):
        """One cached ScoreTracker per assessor (the live panel's scores from their grades).
        Imported here: scoring pulls in numpy, which startup does not need."""
        from workbench.campaign.scoring.live import assessor_tracker

        with self._trackers_lock:  # called from worker threads
            if assessor not in self._trackers:
                self._trackers[assessor] = assessor_tracker(
                    self.db, self.measures, assessor, runs=self.runs_cache
                )
            return self._trackers[assessor]

    @property
    def runs_cache(self):
        """The stored runs, read once per session and again only after a run changed."""
        with self._trackers_lock:  # called from worker threads
            if self._runs_cache is None:
                from workbench.campaign.scoring.scores import RunsCache

                self._runs_cache = RunsCache()
            return self._runs_cache

    def score_dirty(self, assessor: str) -> set[str]:
        """Queries whose scores changed while the panel was closed (main thread only)."""
        return self._score_dirty.setdefault(assessor, set())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        # Textual's "Screenshot" writes to ~/Downloads and fails where that folder does not
        # exist; the screens' own `e` exports are the way to save what is shown.
        yield from (c for c in super().get_system_commands(screen) if c.title != "Screenshot")
        if self.lead:
            from workbench.tui.screens.lead_modes import lead_commands

            for title, help_text, callback in lead_commands(self):
                yield SystemCommand(title, help_text, callback)
        palette = getattr(screen, "palette_commands", None)
        if palette is not None:
            for title, help_text, callback in palette():
                yield SystemCommand(title, help_text, callback)

    async def action_quit(self) -> None:
        """Quit once the writer thread is idle. A grade waiting for a lock (another writer)
        used to leave a blank terminal for up to 37 s after Ctrl+Q: the
        screen stays up and says why until the grade is on disk (or its wait gives up)."""
        if not self.background.busy:
            self.exit()
            return
        self.notify("A grade is being saved (waiting for the database); quitting as soon as "
                    "it is on disk.", severity="warning", timeout=60, markup=False)
        if not self._quitting:
            self._quitting = True
            self.run_worker(self._quit_when_saved(), group="quit")  # the screen stays live

    async def _quit_when_saved(self) -> None:
        await self.background.wait_idle()
        self.exit()

    async def on_unmount(self) -> None:
        self.background.shutdown()  # a grade in flight is committed before we close
        if self._owns_db:
            self.db.close()


def make_app(
    db: Database | str | Path | None,
    *,
    assessor: str | None = None,
    measures: list[str] | None = None,
    lead: bool = False,
    notice: str = "",
    audience: str | None = None,
) -> WorkbenchApp:
    """The app on `db` (an open Database, or a URL/path opened and closed by the app).
    With `assessor`, it opens straight on that assessor's judging screen (resume).
    `lead` adds the team-lead modes (not blind); assessors get lead=False. `audience`
    (assessors/visibility.py: the assessor screen, the browser, the lead) decides instead
    of `lead` when given."""
    if isinstance(db, Database):
        return WorkbenchApp(db, assessor=assessor, measures=measures, lead=lead, notice=notice,
                            audience=audience)
    database = Database.open(None if db is None else str(db))
    return WorkbenchApp(database, assessor=assessor, measures=measures, owns_db=True, lead=lead,
                        notice=notice, audience=audience)
