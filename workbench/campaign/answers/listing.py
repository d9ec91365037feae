"""What `list runs` and `score` say of runs with generated answers."""

from __future__ import annotations

from workbench.campaign.database import Database
from workbench.store.answers import answer_counts


def answer_counts_by_run(db: Database) -> dict[str, int]:
    with db.reader() as reader:
        return answer_counts(reader)


def answer_only_runs(db: Database) -> list[str]:
    """Runs with answers and no ranked results, by tag."""
    from workbench.store.answers import answer_only_tags

    with db.reader() as reader:
        return answer_only_tags(reader)
