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

from collections import Counter
from collections.abc import Iterable
from itertools import chain
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
    """(qid, docno, grade) rows of the consensus `method` over all assessors, in `session`.

    Computed on integer arrays (a million judgments in well under a second): the grades
    are fetched as (query id, document id, grade) and combined per item with numpy; the
    rules are majority_grade's and mean_grade's exactly (tested against them)."""
    query_ids = None
    if queries is not None:
        query_ids = list(session.scalars(select(Query.id).where(Query.ext_id.in_(list(queries)))))
    qi, di, g = qrels_ids(session, consensus=method, query_ids=query_ids)
    if qi.size == 0:
        return []
    qext = _ext_ids(session, Query, qi)
    dext = _ext_ids(session, Document, di)
    return list(zip(qext.tolist(), dext.tolist(), g.tolist()))


def _int_columns(rows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Three int64 columns from rows of three integers (np.array on Row objects is slow)."""
    a = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=3 * len(rows)).reshape(-1, 3)
    return a[:, 0].copy(), a[:, 1].copy(), a[:, 2].copy()


def combine_grades(qi: np.ndarray, di: np.ndarray, g: np.ndarray, method: str):
    """One grade per (query id, document id) item: ``majority`` (most frequent, ties to
    the lower grade) or ``mean`` (rounded half up); items come out sorted by (qi, di)."""
    if qi.size == 0:
        return qi, di, g
    order = np.lexsort((g, di, qi))  # by item, grades ascending within it
    qi, di, g = qi[order], di[order], g[order]
    new_item = np.ones(qi.size, dtype=bool)
    new_item[1:] = (qi[1:] != qi[:-1]) | (di[1:] != di[:-1])
    starts = np.flatnonzero(new_item)
    if method == "mean":
        item = np.cumsum(new_item) - 1
        total = np.bincount(item, weights=g, minlength=starts.size).astype(np.int64)  # exact below 2**53
        n = np.diff(np.append(starts, qi.size))
        # floor(total / n + 1/2) == floor((2 * total + n) / (2 * n)), as in mean_grade
        return qi[starts], di[starts], (2 * total + n) // (2 * n)
    # runs of equal (item, grade); per item the longest run, the first (lowest grade) on ties
    new_run = new_item.copy()
    new_run[1:] |= g[1:] != g[:-1]
    run_starts = np.flatnonzero(new_run)
    run_len = np.diff(np.append(run_starts, qi.size))
    run_item = (np.cumsum(new_item) - 1)[run_starts]
    pick = np.lexsort((run_starts, -run_len, run_item))  # item, then longest, then lowest grade
    first = np.ones(pick.size, dtype=bool)
    first[1:] = run_item[pick[1:]] != run_item[pick[:-1]]
    rows = run_starts[pick[first]]
    return qi[rows], di[rows], g[rows]


def _override(qi, di, g, aq, ad, ag):
    """The items (qi, di) with grades g, where (aq, ad) items take the grades ag instead
    (an adjudicated item without judgments is added)."""
    if aq.size == 0:
        return qi, di, g
    width = int(max(di.max(initial=0), ad.max())) + 1
    keys = qi * width + di
    akeys = aq * width + ad
    pos = np.searchsorted(keys, akeys)  # keys are sorted (combine_grades)
    pos_ok = np.minimum(pos, max(keys.size - 1, 0))
    hit = (pos < keys.size) & (keys[pos_ok] == akeys) if keys.size else np.zeros(akeys.size, bool)
    g = g.copy()
    g[pos[hit]] = ag[hit]
    if hit.all():
        return qi, di, g
    qi, di, g = np.concatenate((qi, aq[~hit])), np.concatenate((di, ad[~hit])), np.concatenate((g, ag[~hit]))
    order = np.lexsort((di, qi))
    return qi[order], di[order], g[order]


_IN_LIST = 30_000  # ids per IN (...) list: under SQLite's bound-variable limit


def _ext_ids(session: Session, table, ids: np.ndarray) -> np.ndarray:
    """The external id of each internal id in `ids` (an object array of str).

    Few ids: looked up with IN lists. Many (a whole campaign): every id that has a
    judgment or an adjudication, in one query (long IN lists cost more to bind than to run)."""
    wanted = np.unique(ids)
    if wanted.size > _IN_LIST:
        col = "query_id" if table is Query else "document_id"
        among = select(getattr(Judgment, col)).union(select(getattr(Adjudication, col)))
    else:
        among = wanted.tolist()
    pairs = session.connection().execute(select(table.id, table.ext_id).where(table.id.in_(among))).all()
    known = np.fromiter((p[0] for p in pairs), dtype=np.int64, count=len(pairs))
    ext = np.empty(len(pairs), dtype=object)
    ext[:] = [p[1] for p in pairs]
    order = np.argsort(known)
    known, ext = known[order], ext[order]
    return ext[np.searchsorted(known, ids)]


def qrels_ids(
    session: Session,
    *,
    assessor: str | None = None,
    consensus: str | None = None,
    query_ids: list[int] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query id, document id, grade) int64 arrays of database ids from exactly one source
    (an assessor's grades or a consensus, default majority): what scoring reads."""
    if assessor is not None and consensus is not None:
        raise UsageError("give either an assessor or a consensus, not both")
    conn = session.connection()
    if assessor is not None:
        aid = session.scalar(select(Assessor.id).where(Assessor.name == assessor))
        if aid is None:
            raise NotFoundError(f"unknown assessor {assessor!r}")
        stmt = select(Judgment.query_id, Judgment.document_id, Judgment.grade).where(
            Judgment.assessor_id == aid
        )
        if query_ids is not None:
            stmt = stmt.where(Judgment.query_id.in_(query_ids))
        return _int_columns(conn.execute(stmt).all())
    method = "majority" if consensus is None else consensus
    if method not in CONSENSUS_METHODS:
        raise UsageError(f"unknown consensus {method!r}; expected one of {', '.join(CONSENSUS_METHODS)}")

    def ids_stmt(table):
        stmt = select(table.query_id, table.document_id, table.grade)
        return stmt if query_ids is None else stmt.where(table.query_id.in_(query_ids))

    qi, di, g = _int_columns(conn.execute(ids_stmt(Judgment)).all())
    qi, di, g = combine_grades(qi, di, g, "mean" if method == "mean" else "majority")
    if method == "adjudicated":
        aq, ad, ag = _int_columns(conn.execute(ids_stmt(Adjudication)).all())
        qi, di, g = _override(qi, di, g, aq, ad, ag)
    return qi, di, g


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
