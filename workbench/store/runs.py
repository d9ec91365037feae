"""Systems and their runs by tag: what importing a run and comparing two systems' lists ask
of the store. The run itself is one `run_arrays` row (store/run_arrays.py)."""

from __future__ import annotations

from dataclasses import dataclass

from typing import TYPE_CHECKING

import numpy as np

from workbench.store.dbapi import as_reader
from workbench.store.run_arrays import ENCODING, id_names

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

# SQL text on a Reader (store.dbapi): `import run` runs these on a plain driver connection;
# `conn` is a Session, a Connection or a Reader.


def system_id_of(conn, tag: str) -> int | None:
    return as_reader(conn).scalar("SELECT id FROM system WHERE tag = :tag", {"tag": tag})


def create_system(conn, tag: str) -> int:
    return as_reader(conn).scalar(
        "INSERT INTO system (tag, description) VALUES (:tag, '') RETURNING id", {"tag": tag})


def run_size(conn, system_id: int) -> int:
    """How many results the system's stored run holds (0 without one)."""
    return int(as_reader(conn).scalar("SELECT n_rows FROM run_arrays WHERE system_id = :sid",
                                      {"sid": system_id}) or 0)


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
    from sqlalchemy import select

    from workbench.store.models import RunArrays

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
