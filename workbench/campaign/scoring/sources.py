"""The qrels sources a campaign can be scored against ("consensus:mean",
"assessor:alice", ...): the menu, and a source name split into qrels.py's keywords."""

from __future__ import annotations

from workbench.campaign.database import Database
from workbench.errors import UsageError


def qrels_sources(db: Database) -> list[str]:
    """Every qrels source a lead can score against, in menu order."""
    from workbench.campaign.agreement.adjudication import judging_assessors

    return ["consensus:majority", "consensus:mean", "consensus:adjudicated"] + [
        f"assessor:{name}" for name in judging_assessors(db, machines=True)  # a lead's menu
    ]


def split_source(source: str) -> dict[str, str]:
    """'assessor:alice' -> {'assessor': 'alice'}; 'consensus:mean' -> {'consensus': 'mean'}."""
    kind, _, name = source.partition(":")
    if kind not in ("assessor", "consensus") or not name:
        raise UsageError(f"unknown qrels source {source!r}")
    return {kind: name}
