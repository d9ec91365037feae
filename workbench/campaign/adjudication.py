"""Adjudication: the lead looks at the items assessors disagree on and sets a final grade.

A disagreement is a (query, document) that two or more assessors graded differently
(current grades, `judgment` rows; repeats do not count). Its `spread` is the highest grade
minus the lowest. The lead reads the document and sets a final grade: one transaction
upserts the `adjudication` row and appends a `judgment_event` of kind ``adjudicate``
(assessor = the lead, created on first use; old_grade = the previous final grade), so the
"adjudicated" qrels source (qrels.py) uses it at once and the history keeps every decision.

NOT blind: these records carry every assessor's grade; only lead screens may use them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, or_, select
from sqlalchemy.exc import IntegrityError

from workbench.campaign.database import Database
from workbench.campaign.judging import _check_grade, _ids, get_or_create_assessor
from workbench.campaign.qrels import majority_grade
from workbench.campaign.writing import write_transaction
from workbench.store.models import (
    Adjudication,
    Assessor,
    Document,
    Judgment,
    JudgmentEvent,
    Query,
    utcnow,
)

ADJUDICATE = "adjudicate"
_RETRIES = 5  # two leads adjudicating the same item first race on the primary key


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

    def grade_of(self, assessor: str) -> int | None:
        return dict(self.grades).get(assessor)


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
    """Disagreements in query order (import order) then document id; `query` keeps one
    query, `min_spread` keeps items whose grades differ by at least that much,
    `pending_only` drops items already adjudicated."""
    stmt = (
        select(Query.id, Query.ext_id, Document.ext_id, Assessor.name, Judgment.grade)
        .join(Query, Query.id == Judgment.query_id)
        .join(Document, Document.id == Judgment.document_id)
        .join(Assessor, Assessor.id == Judgment.assessor_id)
    )
    adj = select(Query.ext_id, Document.ext_id, Adjudication.grade).join(
        Query, Query.id == Adjudication.query_id
    ).join(Document, Document.id == Adjudication.document_id)
    if query is not None:
        stmt = stmt.where(Query.ext_id == query)
        adj = adj.where(Query.ext_id == query)
    with db.read() as s:
        rows = s.execute(stmt).all()
        finals = {(q, d): g for q, d, g in s.execute(adj)}
    items: dict[tuple[int, str, str], list[tuple[str, int]]] = defaultdict(list)
    for qpk, q, d, a, g in rows:
        items[(qpk, q, d)].append((a, g))
    out = []
    for (_, q, d), grades in sorted(items.items()):
        values = {g for _, g in grades}
        if len(grades) < 2 or len(values) < 2:
            continue
        item = Disagreement(q, d, tuple(sorted(grades)), finals.get((q, d)))
        if item.spread < min_spread or (pending_only and item.final is not None):
            continue
        out.append(item)
    return out


def read_item(db: Database, query: str, document: str) -> ItemView:
    """The query, the document's full text, every assessor's grade and note, the final grade."""
    with db.read() as s:
        qid, did = _ids(s, query, document)
        q = s.get(Query, qid)
        d = s.get(Document, did)
        grades = s.execute(
            select(Assessor.name, Judgment.grade, Judgment.note)
            .join(Assessor, Assessor.id == Judgment.assessor_id)
            .where(Judgment.query_id == qid, Judgment.document_id == did)
            .order_by(Assessor.name)
        ).all()
        final = s.execute(
            select(Adjudication.grade, Adjudication.note, Assessor.name)
            .join(Assessor, Assessor.id == Adjudication.adjudicator_id)
            .where(Adjudication.query_id == qid, Adjudication.document_id == did)
        ).first()
        return ItemView(
            query=q.ext_id,
            query_title=q.title or "",
            query_description=q.description or "",
            query_narrative=q.narrative or "",
            document=d.ext_id,
            title=d.title or "",
            text=d.text or "",
            url=d.url,
            grades=tuple((a, g, n or "") for a, g, n in grades),
            final=final[0] if final else None,
            final_note=(final[1] or "") if final else "",
            adjudicator=final[2] if final else None,
        )


def adjudicate(
    db: Database,
    lead: str,
    query: str,
    document: str,
    grade: int | None,
    *,
    note: str = "",
) -> AdjudicationRecord:
    """Set (or with grade=None remove) the final grade of (query, document), in one
    transaction with its `adjudicate` event. Unknown ids -> NotFoundError, a grade off the
    campaign scale -> InputError; nothing is written then."""
    for attempt in range(_RETRIES):
        try:
            with write_transaction(db) as s:
                qid, did = _ids(s, query, document)
                _check_grade(s, grade)
                aid = get_or_create_assessor(s, lead)
                row = s.scalars(
                    select(Adjudication)
                    .where(Adjudication.query_id == qid, Adjudication.document_id == did)
                    .with_for_update()
                ).first()
                old = row.grade if row is not None else None
                now = utcnow()
                if grade is None:
                    if row is not None:
                        s.execute(delete(Adjudication).where(
                            Adjudication.query_id == qid, Adjudication.document_id == did))
                elif row is None:
                    s.add(Adjudication(query_id=qid, document_id=did, grade=grade,
                                       adjudicator_id=aid, note=note, updated_at=now))
                else:
                    row.grade, row.adjudicator_id, row.note, row.updated_at = grade, aid, note, now
                event = JudgmentEvent(
                    query_id=qid, document_id=did, assessor_id=aid, kind=ADJUDICATE,
                    old_grade=old, new_grade=grade, note=note, seconds=0.0, created_at=now,
                )
                s.add(event)
                s.flush()
                return AdjudicationRecord(query, document, lead.strip(), old, grade, event.id, now)
        except IntegrityError:
            if attempt == _RETRIES - 1:
                raise
    raise AssertionError("unreachable")


def judging_assessors(db: Database) -> list[str]:
    """Assessors with at least one current grade, by name (a lead who only adjudicated
    is an `assessor` row too, but has nothing to agree or disagree with)."""
    with db.read() as s:
        return list(s.scalars(
            select(Assessor.name)
            .where(select(Judgment.id).where(Judgment.assessor_id == Assessor.id).exists())
            .order_by(Assessor.name)
        ))


def assessor_names(db: Database) -> list[str]:
    """Every assessor by name except leads who only adjudicated (no grade of their own):
    the default set for agreement and comparison."""
    has_grade = select(Judgment.id).where(Judgment.assessor_id == Assessor.id).exists()
    adjudicated = select(Adjudication.query_id).where(
        Adjudication.adjudicator_id == Assessor.id
    ).exists()
    with db.read() as s:
        return list(s.scalars(
            select(Assessor.name).where(or_(has_grade, ~adjudicated)).order_by(Assessor.name)
        ))
