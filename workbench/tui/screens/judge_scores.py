"""The judging screen's live score panel (key s): shown only when the campaign is not blind
(`workbench campaign --not-blind`); in a blind campaign its key, help row and palette entry
are gone and it never opens. Scores are recomputed on worker threads (a grade's own save
job recomputes them first when the panel is open: one redraw for both) through
campaign/scoring/live.py, which refuses on a blind campaign: a refusal closes the panel, so
a lead's `campaign --blind` reaches an open screen at its next grade. This module only draws."""

from __future__ import annotations

import time

from textual import work

from workbench.campaign.assessors import visibility
from workbench.tui.messages import ScoresUpdated, WorkFailed
from workbench.tui.text import describe
from workbench.tui.widgets.score_panel import ScorePanel


class LiveScores:
    """Mixed into JudgeScreen: needs `assessor`, `query_ext`, `timings`, `blind`,
    `_panel_on`."""

    def scores_allowed(self, action: str) -> bool:
        """No key, no footer entry: blind judging has no scores at all."""
        return not (action == "toggle_scores"
                    and not visibility.scores_shown(visibility.ASSESSOR_SCREEN, self.blind))

    @property
    def panel_on(self) -> bool:
        return self._panel_on

    def _set_blind(self, blind: bool) -> None:
        """Apply the campaign's setting (read with each queue, so a lead's change reaches
        an open screen at the next query): blind closes the panel and drops its key."""
        if blind == self.blind:
            return
        self.blind = blind
        if not visibility.scores_shown(visibility.ASSESSOR_SCREEN, blind) and self._panel_on:
            self.query_one("#scores", ScorePanel).display = self._panel_on = False
        self.refresh_bindings()

    def action_toggle_scores(self) -> None:
        if not visibility.scores_shown(visibility.ASSESSOR_SCREEN, self.blind):
            return
        panel = self.query_one("#scores", ScorePanel)
        panel.display = self._panel_on = not panel.display
        if self._panel_on:
            self._refresh_scores()

    def _refresh_scores(self, query: str | None = None) -> None:
        """After a change that did not recompute in the save worker: recompute `query` now
        if the panel is open, else remember it for when the panel opens."""
        dirty = self.app.score_dirty(self.assessor)
        if query is not None:
            dirty.add(query)
        if self._panel_on:
            queries = list(dirty)
            dirty.clear()
            self._compute_scores(queries)

    @work(thread=True, group="scores")
    def _compute_scores(self, queries: list[str]) -> None:
        self._scores_now(queries)

    def _scores_now(self, queries: list[str]) -> None:
        """(worker thread) Recompute `queries` (everything the first time) and post it."""
        table = self._scores_table(queries)
        if table is not None:
            self.post_message(ScoresUpdated(table, self.query_ext))

    def _scores_table(self, queries: list[str]):
        """(worker thread) The recomputed table, or None after posting the error. The
        blindness check is campaign/scoring/live.py's: a refusal closes the panel."""
        from workbench.campaign.scoring.live import BlindCampaign, live_scores

        try:
            return live_scores(self.app.db, self.app.score_tracker(self.assessor), queries)
        except BlindCampaign:
            self.app.call_from_thread(self._set_blind, True)
            return None
        except Exception as exc:
            self.post_message(WorkFailed("scores", describe(exc)))
            return None

    def on_scores_updated(self, message: ScoresUpdated) -> None:
        self.query_one("#scores", ScorePanel).show(message.table, self.query_ext)
        if self.timings and not self.timings[-1][2]:
            self.timings[-1][2] = time.perf_counter()
