"""`workbench compare --by-assessor`: the systems ranked under the consensus and under each
judging assessor, with the CLI's seed so randomization/bootstrap p-values match it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.campaign.database import Database
from workbench.campaign.scoring.sources import QrelsSource

if TYPE_CHECKING:  # annotations only
    from workbench.campaign.comparison.systems import ComparisonReport


def compare_by_assessor(db: Database, measure: str | None, *, test: str = "t",
                        source: QrelsSource | None = None) -> ComparisonReport:
    """The comparison on `measure` (default: the campaign's first measure)."""
    from workbench.campaign.assessors.roster import grading
    from workbench.campaign.comparison.systems import compare_systems
    from workbench.campaign.settings import campaign_measures
    from workbench.errors import UsageError
    from workbench.metrics.measures import MeasureError

    measure = measure or campaign_measures(db)[0]
    try:
        return compare_systems(db, measure, source=source,
                               assessors=grading(db) or None, test=test)
    except (MeasureError, ValueError) as exc:
        raise UsageError(str(exc)) from None
