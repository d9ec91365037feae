"""Campaign-wide settings and the rules on them.

Blindness (docs/architecture.md#rules-that-hold-everywhere): a campaign is blind unless a lead says otherwise. Blind, the judging
screen shows no per-system number of any kind; not blind (a Quepid-style tuning session,
where the people judging own the systems), it may show live scores under the real run tags.
This module stores the setting; what each audience may see because of it is
campaign/assessors/visibility.py's.

Idle cap: the seconds an assessor spends on one document count up to the campaign's cap
(5 minutes by default); time above it is idle time (a coffee break with the document open),
not judging. The cap applies when the judging screen records the seconds and again in every
statistic of speed (stored seconds from before a lower cap count at most the cap).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.campaign.database import Database
from workbench.defaults import (  # a new campaign's settings: their one owner
    DEFAULT_COMPAT,
    DEFAULT_IDLE_CAP,
    DEFAULT_MEASURES,
    DEFAULT_POOL_DEPTH,
    DEFAULT_THRESHOLD,
)
from workbench.store.settings import read_settings, write_settings




@dataclass(frozen=True)
class CampaignSettings:
    name: str = "campaign"
    relevance_threshold: int = DEFAULT_THRESHOLD
    default_measures: str = DEFAULT_MEASURES
    pool_depth: int = DEFAULT_POOL_DEPTH
    blind: bool = True
    guidelines: str = ""
    idle_cap_seconds: int = DEFAULT_IDLE_CAP
    score_compat: int = DEFAULT_COMPAT  # trec_eval 10 orders run scores as doubles, 9 as floats


def campaign_settings(db: Database) -> CampaignSettings:
    with db.reader() as conn:
        row = read_settings(conn)
    if row is None:  # a campaign without its row is blind, with the defaults
        return CampaignSettings()
    default = CampaignSettings()
    return CampaignSettings(
        name=str(row["name"]),
        relevance_threshold=int(_or(row["relevance_threshold"], default.relevance_threshold)),
        default_measures=str(row["default_measures"] or ""),
        pool_depth=int(_or(row["pool_depth"], default.pool_depth)),
        blind=bool(row["blind"]),
        guidelines=str(row["guidelines"] or ""),
        idle_cap_seconds=int(_or(row["idle_cap_seconds"], default.idle_cap_seconds)),
        score_compat=int(_or(row["score_compat"], default.score_compat)),
    )


def _write(db: Database, **values: object) -> None:
    """Every settings change waits for other writers like a grade (writing.py's rule)."""
    from workbench.campaign.writing import write_transaction

    with write_transaction(db) as s:
        write_settings(s, **values)


def _or(value, default):
    return default if value is None else value


def campaign_measures(db: Database) -> list[str]:
    """The campaign's default measures, else a new campaign's (workbench/defaults.py)."""
    return campaign_settings(db).default_measures.split() or DEFAULT_MEASURES.split()


def campaign_threshold(db: Database) -> int:
    """Grades at or above it count as relevant for binary measures (trec_eval's -l)."""
    return campaign_settings(db).relevance_threshold


def campaign_pool_depth(db: Database) -> int:
    """The pool depth in the campaign settings (DEFAULT_POOL_DEPTH in a new campaign)."""
    return campaign_settings(db).pool_depth or DEFAULT_POOL_DEPTH


def is_blind(db: Database) -> bool:
    return campaign_settings(db).blind


def set_blind(db: Database, blind: bool) -> CampaignSettings:
    _write(db, blind=bool(blind))
    return campaign_settings(db)


def rename_campaign(db: Database, name: str) -> CampaignSettings:
    from workbench.errors import UsageError

    name = name.strip()
    if not name or len(name) > 200 or not name.isprintable():
        raise UsageError("a campaign name is 1-200 printable characters")
    _write(db, name=name)
    return campaign_settings(db)


def guidelines(db: Database) -> str:
    """The campaign's judging guidelines ("" when none are set)."""
    return campaign_settings(db).guidelines


def set_guidelines(db: Database, text: str) -> None:
    """Replace the campaign's judging guidelines (an empty text removes them)."""
    _write(db, guidelines=text)


def idle_cap(db: Database) -> int:
    """Seconds on one document count up to this (the campaign's idle cap)."""
    return campaign_settings(db).idle_cap_seconds


def set_idle_cap(db: Database, seconds: int) -> CampaignSettings:
    from workbench.errors import UsageError

    if int(seconds) < 1:
        raise UsageError(f"the idle cap is a number of seconds >= 1, not {seconds}")
    _write(db, idle_cap_seconds=int(seconds))
    return campaign_settings(db)


def set_score_compat(db: Database, compat: int) -> CampaignSettings:
    """Order the campaign's runs as trec_eval `compat` does (10: scores compared as
    doubles, 9: as floats): the setting and every stored run re-sorted in one write
    transaction, serialized with imports, so that score, pool, the adaptive queues,
    simulate and reusability all read runs in that order."""
    from workbench.campaign.writing import IMPORTS, write_transaction
    from workbench.errors import UsageError
    from workbench.store.run_arrays import resort_runs

    if int(compat) not in (9, 10):
        raise UsageError(f"--compat is 9 or 10, not {compat}")
    with write_transaction(db, serialize_as=IMPORTS) as session:
        write_settings(session, score_compat=int(compat))
        resort_runs(session, int(compat))
    return campaign_settings(db)


def counted_seconds(elapsed: float, cap: float) -> float:
    """The seconds of one grade that count as judging: `elapsed` capped at `cap` by the
    rule every speed figure uses (metrics.pace.capped_seconds); a negative time counts 0."""
    from workbench.metrics.pace import capped_seconds

    capped, _ = capped_seconds([max(float(elapsed), 0.0)], float(cap))
    return float(capped[0])


def describe_idle_cap(cap: int) -> str:
    """The cap as people read it: `5 min`, `90 s`."""
    return f"{cap // 60} min" if cap % 60 == 0 else f"{cap} s"
