""""Can't judge / broken document": an assessor's mark on an item, stored as its own state.

A mark is not a grade: no qrels, measure or agreement statistic sees it. It settles the
item in the assessor's queue (progress counts it done, the cursor skips it) and the lead
lists the marks (`workbench list cant-judge`) to fix or replace the documents. An item
holds a grade or a mark, never both: a mark clears the assessor's grade of the item (a
`clear` event; `u` removes the mark and brings the grade back in one step, grades.undo_last),
and a grade removes the mark (grades.unmark; `u` after that grade takes the grade back, and
`u` again the mark). Every mark and unmark is a `judgment_event` (`cant_judge`,
`cant_judge_clear`), so the history keeps them.

On a hidden repeat showing the mark is a `repeat` event without a grade: the first grade
stays (a repeat never changes the judgment) and the screen behaves as for any document, so
the repeat is not given away.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from workbench.campaign.database import Database
from workbench.campaign.judging.grades import Guard, assessor_for_write, item_ids, mark_item, unmark
from workbench.campaign.writing import write_transaction
from workbench.errors import WriteConflict
from workbench.store.cant_judge import current_mark, mark_rows
from workbench.store.external_ids import assessor_id
from workbench.store.models import utcnow

_RETRIES = 5  # two first marks of one item race on the unique key (PostgreSQL)
REPEAT_PREFIX = "can't judge"  # the note of a repeat showing marked can't judge


@dataclass(frozen=True)
class MarkRecord:
    """What a mark or unmark did, once committed."""

    query: str
    document: str
    assessor: str
    marked: bool  # True: the item is marked now; False: the mark was removed
    cleared_grade: int | None  # the grade a mark cleared, if any
    reason: str
    at: datetime


@dataclass(frozen=True)
class CantJudgeRow:
    query: str
    document: str
    assessor: str
    reason: str
    at: datetime


def mark_cant_judge(db: Database, assessor: str, query: str, document: str, *,
                    reason: str = "", guard: Guard | None = None) -> MarkRecord:
    """Mark (query, document) "can't judge" for `assessor` and commit it; a grade the
    assessor gave the item is cleared in the same transaction. Marking again replaces the
    reason. Unknown ids -> NotFoundError; nothing is written then."""
    reason = reason.strip()
    for attempt in range(_RETRIES):
        try:
            with write_transaction(db) as s:
                qid, did = item_ids(s, query, document)
                aid = assessor_for_write(s, assessor, guard)
                now = utcnow()
                _, cleared = mark_item(s, qid, did, aid, reason=reason, at=now)
                return MarkRecord(query, document, assessor, True, cleared, reason, now)
        except WriteConflict:
            if attempt == _RETRIES - 1:
                raise
    raise AssertionError("unreachable")


def clear_cant_judge(db: Database, assessor: str, query: str, document: str, *,
                     guard: Guard | None = None) -> MarkRecord:
    """Remove the assessor's mark on (query, document) (the item is to judge again)."""
    with write_transaction(db) as s:
        qid, did = item_ids(s, query, document)
        aid = assessor_for_write(s, assessor, guard)
        now = utcnow()
        mark = current_mark(s, qid, did, aid)
        unmark(s, qid, did, aid, now)
        return MarkRecord(query, document, assessor, False, None,
                          mark.reason if mark is not None else "", now)


def mark_repeat_cant_judge(db: Database, assessor: str, query: str, document: str, *,
                           reason: str = "", guard: Guard | None = None) -> MarkRecord:
    """A hidden repeat showing marked "can't judge": a `repeat` event without a grade."""
    from workbench.campaign.judging.assessing import record_repeat

    note = f"{REPEAT_PREFIX}: {reason.strip()}" if reason.strip() else REPEAT_PREFIX
    record = record_repeat(db, assessor, query, document, None, note=note, guard=guard)
    return MarkRecord(query, document, assessor, True, None, reason.strip(), record.at)


def list_cant_judge(db: Database, assessor: str | None = None) -> list[CantJudgeRow]:
    """Every current mark (or one assessor's), by query import order then document."""
    with db.read() as s:
        if assessor is not None and assessor_id(s, assessor) is None:
            return []
        rows = mark_rows(s, assessor)
    return [CantJudgeRow(*r) for r in zip(rows.queries, rows.documents, rows.assessors,
                                          rows.reasons, rows.at)]
