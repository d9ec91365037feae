"""Systems and their runs by tag: what importing a run and comparing two systems' lists ask
of the store. The run itself is one `run_arrays` row (store/run_arrays.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from workbench.store.models import RunArrays, System
from workbench.store.run_arrays import ENCODING, id_names


def system_id_of(session: Session, tag: str) -> int | None:
    return session.scalar(select(System.id).where(System.tag == tag))


def create_system(session: Session, tag: str) -> int:
    return session.execute(
        insert(System).values(tag=tag, description="").returning(System.id)
    ).scalar_one()


def run_size(session: Session, system_id: int) -> int:
    """How many results the system's stored run holds (0 without one)."""
    return int(session.scalar(select(RunArrays.n_rows).where(RunArrays.system_id == system_id)) or 0)


@dataclass(frozen=True)
class RankedLists:
    """One system's run by external ids, in trec_eval's order: query i's documents are
    docnos[offsets[i]:offsets[i + 1]] (queries in database id order)."""

    queries: np.ndarray  # S (UTF-8)
    offsets: np.ndarray  # int64, len(queries) + 1
    docnos: np.ndarray  # S (UTF-8)


def ranked_lists(session: Session, tag: str) -> RankedLists | None:
    """The system's ranked lists, or None for an unknown tag."""
    sid = system_id_of(session, tag)
    if sid is None:
        return None
    row = session.execute(
        select(RunArrays.encoding, RunArrays.query_ids, RunArrays.document_ids)
        .where(RunArrays.system_id == sid)
    ).one_or_none()
    if row is None or row.encoding != ENCODING:
        q = d = np.empty(0, dtype=np.int64)
    else:
        q = np.frombuffer(row.query_ids, dtype="<i4").astype(np.int64)
        d = np.frombuffer(row.document_ids, dtype="<i4").astype(np.int64)
    conn = session.connection()
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]]) if q.size else np.zeros(0, np.int64)
    return RankedLists(
        queries=id_names(conn, "query").of(q[starts]),
        offsets=np.r_[starts, q.size].astype(np.int64),
        docnos=id_names(conn, "document").of(d),
    )


__all__ = ["RankedLists", "create_system", "ranked_lists", "run_size", "system_id_of"]
