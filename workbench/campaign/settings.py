"""Campaign-wide settings and the rules on them.

Blindness (DESIGN §5): a campaign is blind unless a lead says otherwise. Blind, the judging
screen shows no per-system number of any kind; not blind (a Quepid-style tuning session,
where the people judging own the systems), it may show live scores under the real run tags.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.campaign.database import Database
from workbench.store.settings import read_settings, write_settings


@dataclass(frozen=True)
class CampaignSettings:
    name: str = "campaign"
    relevance_threshold: int = 1
    default_measures: str = "nDCG@10 AP bpref P@10"
    pool_depth: int = 10
    blind: bool = True


def campaign_settings(db: Database) -> CampaignSettings:
    row = read_settings(db.read)
    if row is None:  # a campaign without its row is blind, with the defaults
        return CampaignSettings()
    return CampaignSettings(
        name=str(row["name"]), relevance_threshold=int(row["relevance_threshold"]),
        default_measures=str(row["default_measures"]), pool_depth=int(row["pool_depth"]),
        blind=bool(row["blind"]),
    )


def is_blind(db: Database) -> bool:
    return campaign_settings(db).blind


def set_blind(db: Database, blind: bool) -> CampaignSettings:
    write_settings(db.write, blind=bool(blind))
    return campaign_settings(db)


def rename_campaign(db: Database, name: str) -> CampaignSettings:
    from workbench.errors import UsageError

    name = name.strip()
    if not name or len(name) > 200 or not name.isprintable():
        raise UsageError("a campaign name is 1-200 printable characters")
    write_settings(db.write, name=name)
    return campaign_settings(db)
