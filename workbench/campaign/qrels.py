"""Qrels derived from the stored judgments, as plain arrays (qid, docno, rel).

Sources (the names `workbench score`, `export qrels` and the lead screens use):
- an assessor's own current grades (`assessor_qrels`);
- a consensus over every assessor's current grades (`consensus_qrels`):
  - ``majority``: the most frequent grade of the item; a tie goes to the LOWER of the tied
    grades (a cautious choice: two judges saying 1 and 3 give 1, never an inflated 3);
  - ``mean``: the mean grade rounded half up (1.5 -> 2, 2.5 -> 3), i.e. floor(mean + 0.5);
  - ``adjudicated``: a lead's Adjudication grade where there is one, else the majority.

Only `judgment` rows count: `repeat` events (self-consistency checks) never change qrels.
Rows come out sorted by (query ext id, document ext id), so output is deterministic.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from workbench.campaign.database import Database
from workbench.errors import NotFoundError, UsageError
from workbench.store.models import Adjudication, Assessor, Document, Judgment, Query

CONSENSUS_METHODS = ("majority", "mean", "adjudicated")


@dataclass(frozen=True)
class QrelsArrays:
    """Parallel arrays: qid[i], docno[i] (external ids, str) and rel[i] (int64 grade)."""

    qid: np.ndarray
    docno: np.ndarray
    rel: np.ndarray

    def __len__(self) -> int:
        return len(self.rel)

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, str, int]]) -> "QrelsArrays":
        rows = sorted(rows)
        return cls(
            np.array([r[0] for r in rows], dtype=object),
            np.array([r[1] for r in rows], dtype=object),
            np.array([r[2] for r in rows], dtype=np.int64),
        )

    def rows(self) -> list[tuple[str, str, int]]:
        return list(zip(self.qid.tolist(), self.docno.tolist(), self.rel.tolist()))


def majority_grade(grades: Iterable[int]) -> int:
    """Most frequent grade; ties toward the lower grade."""
    counts = Counter(grades)
    best = max(counts.values())
    return min(g for g, c in counts.items() if c == best)


def mean_grade(grades: Iterable[int]) -> int:
    """Mean grade rounded half up (exact for integer grades: no float tie surprises)."""
    grades = list(grades)
    total, n = sum(grades), len(grades)
    # floor(total / n + 1/2) == floor((2 * total + n) / (2 * n)) in integers.
    return (2 * total + n) // (2 * n)


def _judgment_rows(
    session: Session, assessor_id: int | None, queries: Iterable[str] | None
) -> list[tuple[str, str, int]]:
    stmt = (
        select(Query.ext_id, Document.ext_id, Judgment.grade)
        .join(Query, Query.id == Judgment.query_id)
        .join(Document, Document.id == Judgment.document_id)
    )
    if assessor_id is not None:
        stmt = stmt.where(Judgment.assessor_id == assessor_id)
    if queries is not None:
        stmt = stmt.where(Query.ext_id.in_(list(queries)))
    return [tuple(r) for r in session.execute(stmt)]


def assessor_rows(
    session: Session, assessor: str, queries: Iterable[str] | None = None
) -> list[tuple[str, str, int]]:
    """(qid, docno, grade) rows of one assessor's current grades, in `session`."""
    stmt = (
        select(Query.ext_id, Document.ext_id, Judgment.grade)
        .join(Query, Query.id == Judgment.query_id)
        .join(Document, Document.id == Judgment.document_id)
        .join(Assessor, Assessor.id == Judgment.assessor_id)
        .where(Assessor.name == assessor)
    )
    if queries is not None:
        stmt = stmt.where(Query.ext_id.in_(list(queries)))
    rows = [tuple(r) for r in session.execute(stmt)]
    # One query on the hot path (the live panel); the existence check only when empty.
    if not rows and session.scalar(select(Assessor.id).where(Assessor.name == assessor)) is None:
        raise NotFoundError(f"unknown assessor {assessor!r}")
    return rows


def consensus_rows(
    session: Session, method: str, queries: Iterable[str] | None = None
) -> list[tuple[str, str, int]]:
    """(qid, docno, grade) rows of the consensus `method` over all assessors, in `session`."""
    if method not in CONSENSUS_METHODS:
        raise UsageError(f"unknown consensus {method!r}; expected one of {', '.join(CONSENSUS_METHODS)}")
    queries = list(queries) if queries is not None else None
    by_item: dict[tuple[str, str], list[int]] = defaultdict(list)
    for q, d, g in _judgment_rows(session, None, queries):
        by_item[(q, d)].append(g)
    combine = mean_grade if method == "mean" else majority_grade
    out = {item: combine(grades) for item, grades in by_item.items()}
    if method == "adjudicated":
        stmt = (
            select(Query.ext_id, Document.ext_id, Adjudication.grade)
            .join(Query, Query.id == Adjudication.query_id)
            .join(Document, Document.id == Adjudication.document_id)
        )
        if queries is not None:
            stmt = stmt.where(Query.ext_id.in_(queries))
        for q, d, g in session.execute(stmt):
            out[(q, d)] = g
    return [(q, d, g) for (q, d), g in out.items()]


def qrels_rows(
    session: Session,
    *,
    assessor: str | None = None,
    consensus: str | None = None,
    queries: Iterable[str] | None = None,
) -> list[tuple[str, str, int]]:
    """Rows from exactly one source: an assessor's grades or a consensus (default majority)."""
    if assessor is not None and consensus is not None:
        raise UsageError("give either an assessor or a consensus, not both")
    if assessor is not None:
        return assessor_rows(session, assessor, queries)
    return consensus_rows(session, consensus or "majority", queries)


def derive_qrels(
    db: Database,
    *,
    assessor: str | None = None,
    consensus: str | None = None,
    queries: Iterable[str] | None = None,
) -> QrelsArrays:
    """Qrels arrays for one assessor or a consensus (default: majority), sorted."""
    with db.read() as session:
        return QrelsArrays.from_rows(
            qrels_rows(session, assessor=assessor, consensus=consensus, queries=queries)
        )


def source_label(assessor: str | None, consensus: str | None) -> str:
    """A short name for a qrels source: 'assessor:NAME' or 'consensus:METHOD'."""
    if assessor is not None:
        return f"assessor:{assessor}"
    return f"consensus:{consensus or 'majority'}"
