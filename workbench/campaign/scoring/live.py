"""Live scores for a judging screen, with the blindness check inside.

The one door through which a judging screen gets per-system numbers: a blind campaign
(docs/architecture.md#rules-that-hold-everywhere) refuses here, whatever the screen drew,
so a screen that missed a setting change still shows nothing. Lead screens (the
scoreboard) read `ScoreTracker` directly: they are not an assessor's view.
"""

from __future__ import annotations

from collections.abc import Iterable

from workbench.campaign.assessors.visibility import ASSESSOR_SCREEN, campaign_scores_shown
from workbench.campaign.database import Database
from workbench.campaign.scoring.scores import RunsCache, ScoreTable, ScoreTracker
from workbench.campaign.scoring.sources import QrelsSource
from workbench.errors import WorkbenchError


class BlindCampaign(WorkbenchError):
    """Per-system scores were asked for while the campaign is blind."""

    def __init__(self) -> None:
        super().__init__("the campaign is blind: no scores while judging "
                         "(a lead can run `workbench campaign --not-blind`)")


def assessor_tracker(db: Database, measures, assessor: str,
                     runs: RunsCache | None = None) -> ScoreTracker:
    """The tracker behind one assessor's live panel: every system scored on their grades."""
    return ScoreTracker(db, measures, QrelsSource.assessor(assessor), runs=runs)


def live_scores(db: Database, tracker: ScoreTracker, changed: Iterable[str] = ()) -> ScoreTable:
    """The tracker's table after recomputing the `changed` queries (everything the first
    time). Refuses with BlindCampaign on a blind campaign, read now, not when the
    screen opened."""
    if not campaign_scores_shown(db, ASSESSOR_SCREEN):  # the browser's screen is the same
        raise BlindCampaign()
    for query in changed:
        tracker.mark_dirty(query)
    return tracker.refresh()
