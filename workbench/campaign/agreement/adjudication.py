"""Adjudication: the lead looks at the items assessors disagree on and sets a final grade.

A disagreement is a (query, document) that two or more assessors graded differently
(current grades, `judgment` rows; repeats do not count). Its `spread` is the highest grade
minus the lowest. The lead reads the document and sets a final grade: one transaction
upserts the `adjudication` row and appends a `judgment_event` of kind ``adjudicate``
(assessor = the lead, created on first use; old_grade = the previous final grade), so the
"adjudicated" qrels source (qrels.py) uses it at once and the history keeps every decision.

The adjudicator is the lead's own name (`adjudicate --lead NAME`, asked once in the TUI),
never a fixed "lead" row that a real assessor could be called too. A lead name that is the
name of an assessor who graded the item is refused (LeadIsAssessor) unless the caller says
they are the same person (`--same-person`): otherwise one person's decision would silently
count as that assessor's.

NOT blind: these records carry every assessor's grade; only lead screens may use them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np

from workbench.campaign.database import Database
from workbench.campaign.scoring.qrels import majority_grade
from workbench.campaign.writing import write_transaction
from workbench.errors import NotFoundError, UsageError, WorkbenchError
from workbench.campaign.scale import check_grade
from workbench.names import check_name
from workbench.store import external_ids
from workbench.store.adjudications import (
    ConcurrentAdjudication,
    final_grade,
    item_grades,
    item_text,
    write_adjudication,
)
from workbench.store.event_kinds import EventKind
from workbench.store.judgment_arrays import (
    adjudicated_grades,
    current_judgments,
)

ADJUDICATE = EventKind.ADJUDICATE
_RETRIES = 5  # two leads adjudicating the same item first race on the primary key


class LeadIsAssessor(WorkbenchError):
    """The lead's name is an assessor who graded the item, and nobody said it is one person."""


@dataclass(frozen=True)
class Disagreement:
    """One item with at least two different current grades."""

    query: str
    document: str
    grades: tuple[tuple[str, int], ...]  # (assessor, grade), by assessor name
    final: int | None  # the lead's grade, if adjudicated

    @property
    def spread(self) -> int:
        values = [g for _, g in self.grades]
        return max(values) - min(values)

    @property
    def majority(self) -> int:
        return majority_grade(g for _, g in self.grades)


@dataclass(frozen=True)
class ItemView:
    """What the lead reads before deciding: the query, the document, every grade and note."""

    query: str
    query_title: str
    query_description: str
    query_narrative: str
    document: str
    title: str
    text: str
    url: str | None
    grades: tuple[tuple[str, int, str], ...]  # (assessor, grade, note)
    final: int | None
    final_note: str
    adjudicator: str | None


@dataclass(frozen=True)
class AdjudicationRecord:
    query: str
    document: str
    adjudicator: str
    old_grade: int | None
    new_grade: int | None
    event_id: int
    at: datetime


def list_disagreements(
    db: Database,
    *,
    query: str | None = None,
    min_spread: int = 1,
    pending_only: bool = False,
) -> list[Disagreement]:
    """Disagreements in query order (import order) then docno; `query` keeps one
    query, `min_spread` keeps items whose grades differ by at least that much,
    `pending_only` drops items already adjudicated."""
    with db.read() as s:
        query_ids = None
        if query is not None:
            found = external_ids.query_id(s, query)
            if found is None:
                return []
            query_ids = [found]
        given = current_judgments(s, query_ids=query_ids, people_only=True)  # people disagree
        final = adjudicated_grades(s, query_ids=query_ids)
        # one item = the rows of one (query, document), consecutive once sorted
        order = np.lexsort((given.document_id, given.query_id))
        qi, di = given.query_id[order], given.document_id[order]
        ai, g = given.assessor_id[order], given.grade[order]
        new_item = np.ones(qi.size, dtype=bool)
        new_item[1:] = (qi[1:] != qi[:-1]) | (di[1:] != di[:-1])
        starts = np.flatnonzero(new_item)
        if starts.size == 0:
            return []
        spread = np.maximum.reduceat(g, starts) - np.minimum.reduceat(g, starts)
        keep = (spread > 0) & (spread >= min_spread)  # two different grades at least
        final_of = _final_grades(qi[starts], di[starts], final)
        if pending_only:
            keep &= final_of < 0
        rows = np.flatnonzero(keep[np.cumsum(new_item) - 1])  # the kept items' rows, in order
        sizes = np.diff(np.append(starts, qi.size))[keep]
        starts, final_of = starts[keep], final_of[keep]
        qext = external_ids.query_ext_ids(s, qi[starts])
        dext = external_ids.document_ext_ids(s, di[starts])
        people = external_ids.assessor_names(s)
    by_id = np.argsort(people.ids)
    names = people.names[by_id[np.searchsorted(people.ids, ai[rows], sorter=by_id)]].tolist()
    grades = g[rows].tolist()
    bounds = np.concatenate(([0], np.cumsum(sizes))).tolist()
    out = [
        Disagreement(qext[i], dext[i], tuple(sorted(zip(names[a:b], grades[a:b]))),
                     None if final_of[i] < 0 else int(final_of[i]))
        for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))
    ]
    # by query id (import order), then docno (items are in document id order so far)
    item_query = qi[starts].tolist()
    return [out[i] for i in sorted(range(len(out)), key=lambda i: (item_query[i], out[i].document))]


def _final_grades(qi: np.ndarray, di: np.ndarray, final) -> np.ndarray:
    """The final grade of each item (qi, di), -1 where it has none."""
    out = np.full(qi.size, -1, dtype=np.int64)
    if final.grade.size == 0 or qi.size == 0:
        return out
    width = int(max(di.max(), final.document_id.max())) + 1
    keys = qi * width + di
    fkeys = final.query_id * width + final.document_id
    order = np.argsort(fkeys)
    at = np.minimum(np.searchsorted(fkeys, keys, sorter=order), fkeys.size - 1)
    hit = fkeys[order[at]] == keys
    out[hit] = final.grade[order[at[hit]]]
    return out


def read_item(db: Database, query: str, document: str) -> ItemView:
    """The query, the document's full text, every assessor's grade and note, the final grade."""
    with db.read() as s:
        qid, did = _item_ids(s, query, document)
        text = item_text(s, qid, did)
        grades = item_grades(s, qid, did)
        final = final_grade(s, qid, did)
    return ItemView(
        query=text.query,
        query_title=text.query_title,
        query_description=text.query_description,
        query_narrative=text.query_narrative,
        document=text.document,
        title=text.title,
        text=text.text,
        url=text.url,
        grades=grades,
        final=final.grade if final else None,
        final_note=final.note if final else "",
        adjudicator=final.adjudicator if final else None,
    )


def _item_ids(session, query: str, document: str) -> tuple[int, int]:
    qid = external_ids.query_id(session, query)
    if qid is None:
        raise NotFoundError(f"unknown query {query!r}")
    did = external_ids.document_id(session, document)
    if did is None:
        raise NotFoundError(f"unknown document {document!r}")
    return qid, did


def lead_name(name: str | None) -> str:
    """The lead's name, checked as every assessor name is (InvalidName); UsageError when
    there is none: adjudication needs the lead's own name."""
    name = (name or "").strip()
    if not name:
        raise UsageError("adjudication records who decided: give the lead's own name "
                         "(--lead NAME or $WORKBENCH_LEAD)")
    return check_name(name)


def _lead_id(session, lead: str) -> int:
    """The lead's assessor id; a new assessor row, its name checked, on first use."""
    from workbench.campaign.assessors.roster import lead_row

    return lead_row(session, lead_name(lead))


def _check_not_a_grader(session, lead: str, query: str, document: str, qid: int, did: int) -> None:
    graded = {name: grade for name, grade, _ in item_grades(session, qid, did)}
    if lead in graded:
        raise LeadIsAssessor(
            f"lead name {lead!r} is an assessor who graded {query} {document} "
            f"(grade {graded[lead]}): adjudicate under your own name (--lead NAME), or pass "
            f"--same-person if you are {lead} and mean to decide on your own grade"
        )


def adjudicate(
    db: Database,
    lead: str,
    query: str,
    document: str,
    grade: int | None,
    *,
    note: str = "",
    same_person: bool = False,
) -> AdjudicationRecord:
    """Set (or with grade=None remove) the final grade of (query, document) as the lead
    `lead`, in one transaction with its `adjudicate` event. Unknown ids -> NotFoundError, a
    grade off the campaign scale -> InputError, no lead name -> UsageError, a lead name
    that is an assessor who graded the item -> LeadIsAssessor unless `same_person`;
    nothing is written then."""
    lead = lead_name(lead)
    for attempt in range(_RETRIES):
        try:
            with write_transaction(db) as s:
                qid, did = _item_ids(s, query, document)
                check_grade(s, grade)
                if not same_person:
                    _check_not_a_grader(s, lead, query, document, qid, did)
                aid = _lead_id(s, lead)
                done = write_adjudication(s, qid, did, aid, grade, note, ADJUDICATE)
                return AdjudicationRecord(query, document, lead, done.old_grade, grade,
                                          done.event_id, done.at)
        except ConcurrentAdjudication:
            if attempt == _RETRIES - 1:
                raise
    raise AssertionError("unreachable")
