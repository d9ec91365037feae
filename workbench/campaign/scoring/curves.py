"""Each system's interpolated precision–recall curve, as `workbench score -m iprec_at_recall`
computes it (through scoring.py, so the plot and the CLI cannot disagree)."""

from __future__ import annotations

from workbench.campaign.database import Database
from workbench.campaign.scoring.sources import QrelsSource


def pr_curves(
    db: Database,
    source: QrelsSource | None = None,
) -> dict[str, list[float]]:
    """Each system's mean interpolated precision at recall 0.0, 0.1, ... 1.0 (trec_eval's
    iprec_at_recall), system -> 11 values; systems with no scored query are left out."""
    from workbench.campaign.scoring.scores import score_campaign

    table = score_campaign(db, ["iprec_at_recall"], source)
    return {
        system: [float(table.means[m][i]) for m in table.measures]
        for i, system in enumerate(table.systems)
        if table.n_queries[i]
    }
