"""A cheap "has anything changed?" probe for screens that refresh while others write.

Lead screens poll `data_version` about once a second in a thread worker and reload only
when the value differs from the one they drew; the aggregates behind it (and why they
are cheap) are in store/change_probe.py.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from workbench.campaign.database import Database
from workbench.store.change_probe import queries_with_events_after, row_counts


@dataclass(frozen=True)
class DataVersion:
    """Compare with ==; `runs_changed` says whether a screen must reload the runs."""

    last_event: int
    judgments: int
    adjudications: int
    assessors: int
    systems: int
    queries: int
    documents: int
    nugget_event: int = 0  # nugget labels (the scoreboard's nugget view, F10)
    nuggets: int = 0

    def runs_changed(self, other: "DataVersion | None") -> bool:
        """Systems, queries or documents were added or removed (an import): reload runs."""
        return other is None or (self.systems, self.queries, self.documents) != (
            other.systems, other.queries, other.documents
        )


def data_version(db: Database) -> DataVersion:
    """One read transaction of aggregates (see the module docstring)."""
    with db.read() as s:
        return DataVersion(**asdict(row_counts(s)))


def queries_changed_since(db: Database, event_id: int) -> set[str]:
    """External ids of the queries with a judgment event after `event_id`: what a screen
    must recompute (every grade, clear, undo, import and adjudication appends one)."""
    with db.read() as s:
        return set(queries_with_events_after(s, event_id))
