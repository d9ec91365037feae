"""The workbench Textual app and its factory (`make_app`), used by the CLI and the tests.

Modes (Textual MODES: independent screen stacks). The assessor's flow is the `assess` mode:
AssessorScreen -> QueryListScreen -> JudgeScreen (started for one assessor, the mode's base
is that assessor's QueryListScreen). Team-lead modes (scores, agreement, disagreements,
systems, quick) are registered by `screens/lead_modes.py` only when the app runs with
lead=True (bare `workbench`, `workbench demo`); `workbench judge` runs with lead=False, so
an assessor's app has no lead mode, key or palette entry at all (blind, DESIGN §5).
A screen reaches the database as `self.app.db`; judging writes go through
`self.app.background` (one writer thread, see background.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from workbench.campaign.database import Database
from workbench.tui.background import Background
from workbench.tui.screens.assessor_select import AssessorScreen
from workbench.tui.settings import remember_assessor


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

    def __init__(
        self,
        db: Database,
        *,
        assessor: str | None = None,
        measures: list[str] | None = None,
        owns_db: bool = False,
        lead: bool = False,
    ) -> None:
        super().__init__()
        self.db = db
        # Lead modes (scores, agreement, ...) show systems and every assessor's grades:
        # they exist only for a lead (bare `workbench`, `workbench demo`), never in `judge`.
        self.lead = lead
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
        self._trackers: dict = {}
        self._runs_cache = None
        self._trackers_lock = threading.RLock()  # workers ask for trackers and the runs cache
        self._score_dirty: dict[str, set[str]] = {}
        for mode, key in self.MODE_KEYS.items():
            self.bind(key, f"switch_mode('{mode}')", description=mode.title())

    def on_mount(self) -> None:
        if self.start_assessor:
            remember_assessor(self.db.url, self.start_assessor)
            self.sub_title = self.start_assessor

    def _assess_base(self) -> Screen:
        """The `assess` mode's base screen: the assessor chooser, or - when the app was
        started for one assessor (`judge --assessor`) - that assessor's query list, which
        opens the judging screen at once (fewer screens to build before the first usable
        one, and no way back to other assessors)."""
        if self.start_assessor:
            from workbench.tui.screens.query_list import QueryListScreen

            return QueryListScreen(self.start_assessor, open_first=True)
        return AssessorScreen()

    def open_assessor(self, name: str, *, open_first: bool = False) -> None:
        """Continue as assessor `name`: remember it for this database, show their queries."""
        from workbench.tui.screens.query_list import QueryListScreen

        remember_assessor(self.db.url, name)
        self.sub_title = name
        self.push_screen(QueryListScreen(name, open_first=open_first))

    def score_tracker(self, assessor: str):
        """One cached ScoreTracker per assessor (the live panel's scores from their grades).
        Imported here: scoring pulls in numpy, which startup does not need."""
        from workbench.campaign.scoring.scores import ScoreTracker

        with self._trackers_lock:  # called from worker threads
            if assessor not in self._trackers:
                self._trackers[assessor] = ScoreTracker(
                    self.db, self.measures, assessor=assessor, runs=self.runs_cache
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
) -> WorkbenchApp:
    """The app on `db` (an open Database, or a URL/path opened and closed by the app).
    With `assessor`, it opens straight on that assessor's judging screen (resume).
    `lead` adds the team-lead modes (not blind); assessors get lead=False."""
    if isinstance(db, Database):
        return WorkbenchApp(db, assessor=assessor, measures=measures, lead=lead)
    database = Database.open(None if db is None else str(db))
    return WorkbenchApp(database, assessor=assessor, measures=measures, owns_db=True, lead=lead)
