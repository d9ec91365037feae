"""Stored runs as arrays: one `run_arrays` row per system, the only copy of its run.

Runs do not change after import, so each system's results are kept as one row: query ids,
document ids and scores as little-endian blobs, already in trec_eval's order
(metrics.ranking.trec_order). Reading 100 runs of depth 1 000 x 50 queries this way takes a
fraction of the 5 M-row SELECT of the `result` table it replaced (dropped by revision 0005,
which filled the arrays of older runs from it); writing them costs one row per run instead
of one B-tree insert per result (~4 s per million rows).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from typing import TYPE_CHECKING

import numpy as np

from workbench.errors import DatabaseError
from workbench.metrics.ranking import trec_order
from workbench.store.dbapi import as_reader

if TYPE_CHECKING:  # reading needs only SQL text on a Reader (store.dbapi); writing, sessions
    from sqlalchemy.orm import Session

ENCODING = 1  # int32 query ids, int32 document ids, float64 scores, little-endian


@dataclass(frozen=True)
class StoredRuns:
    """Every system's results, concatenated in system id order; system i's rows are
    [offsets[i], offsets[i + 1]), in trec_eval's order. Ids are the database's."""

    system_ids: np.ndarray  # int64
    tags: tuple[str, ...]
    offsets: np.ndarray  # int64, len(tags) + 1
    query_id: np.ndarray  # int32 (the stored width)
    document_id: np.ndarray  # int32
    score: np.ndarray | None  # float64; None when read without scores (the order suffices)


@dataclass(frozen=True)
class IdNames:
    """Database ids -> external ids, as sorted id arrays and `S` arrays (UTF-8)."""

    ids: np.ndarray  # int64, ascending
    names: np.ndarray  # S, aligned with ids

    def of(self, ids: np.ndarray) -> np.ndarray:
        return self.names[np.searchsorted(self.ids, ids)]


_ID_NAMES = {table: f"SELECT id, ext_id FROM {table} ORDER BY id" for table in ("query", "document")}


def id_names(conn, table) -> IdNames:
    """All (id, ext_id) of the table "query" or "document" (or its model class; `conn`: a
    Reader, Connection or Session)."""
    rows = as_reader(conn).rows(_ID_NAMES[getattr(table, "__tablename__", table)])
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    names = np.array([r[1].encode("utf-8") for r in rows], dtype="S") if rows else np.empty(0, "S1")
    return IdNames(ids, names)


def query_names(conn) -> IdNames:
    """Every query's database id and external id."""
    return id_names(conn, "query")


_INSERT = ("INSERT INTO run_arrays (system_id, encoding, generation, n_rows, query_ids, "
           "document_ids, scores) VALUES (:system_id, :encoding, :generation, :n_rows, "
           ":query_ids, :document_ids, :scores)")


def write_run_arrays(session, system_id: int, query_id, document_id, score) -> None:
    """(Re)write one system's run, given in trec_eval's order grouped by query id
    (database ids). `session`: a Session, Connection or store.dbapi Reader."""
    conn = as_reader(session)
    conn.run("DELETE FROM run_arrays WHERE system_id = :sid", {"sid": system_id})
    conn.run(_INSERT, _row(
        system_id, np.asarray(query_id), np.asarray(document_id), np.asarray(score, dtype=np.float64),
    ))


def write_run(session: Session, system_id: int, query_id, document_id, score, compat: int = 10) -> None:
    """(Re)write one system's run from results in any order (database ids): put here in
    trec_eval `compat`'s order, ties by the documents' external ids, queries by database id."""
    query_id = np.asarray(query_id, dtype=np.int64)
    document_id = np.asarray(document_id, dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    order = trec_order(query_id, score, id_names(session, "document").of(document_id),
                       compat=compat)
    write_run_arrays(session, system_id, query_id[order], document_id[order], score[order])


def resort_runs(session: Session, compat: int) -> int:
    """Put every stored run in trec_eval `compat`'s order (10: scores compared as doubles,
    9: as floats), from its stored float64 scores; returns how many runs changed. One run
    in memory at a time; a run already in that order is not rewritten."""
    from sqlalchemy import select

    from workbench.store.models import RunArrays

    conn = session.connection()
    names = id_names(conn, "document")
    systems = [sid for (sid,) in conn.execute(
        select(RunArrays.system_id).where(RunArrays.encoding == ENCODING).order_by(RunArrays.system_id))]
    changed = 0
    for sid in systems:
        q, d, s = conn.execute(select(RunArrays.query_ids, RunArrays.document_ids, RunArrays.scores)
                               .where(RunArrays.system_id == sid)).one()
        qid = np.frombuffer(q, dtype="<i4").astype(np.int64)
        did = np.frombuffer(d, dtype="<i4").astype(np.int64)
        score = np.frombuffer(s, dtype="<f8")
        order = trec_order(qid, score, names.of(did), compat=compat)
        if np.array_equal(order, np.arange(order.size)):
            continue
        write_run_arrays(session, sid, qid[order], did[order], score[order])
        changed += 1
    return changed


def _row(system_id: int, query_id: np.ndarray, document_id: np.ndarray, score: np.ndarray) -> dict:
    blobs = {
        "query_ids": query_id.astype("<i4").tobytes(),
        "document_ids": document_id.astype("<i4").tobytes(),
        "scores": score.astype("<f8").tobytes(),
    }
    digest = hashlib.blake2b(digest_size=5)  # 40 bits: a sum over many systems fits int64
    for blob in blobs.values():
        digest.update(blob)
    return {
        "system_id": system_id, "encoding": ENCODING, "n_rows": int(score.size),
        "generation": int.from_bytes(digest.digest(), "big"), **blobs,
    }


_TOKEN = ("SELECT (SELECT count(*) FROM system), count(*), coalesce(sum(generation), 0) "
          "FROM run_arrays")


def runs_token(conn) -> tuple[int, int, int]:
    """Changes whenever a system or its arrays are added, replaced or removed: what a
    process that keeps runs in memory compares before reusing them."""
    n_systems, n_arrays, generations = as_reader(conn).first(_TOKEN)
    return int(n_systems), int(n_arrays), int(generations)


def load_stored_runs(conn, *, scores: bool = True) -> StoredRuns:
    """Every system's results in trec_eval's order (a system without arrays has none).
    scores=False leaves the scores blobs unread (`score` is None): scoring needs only the
    stored order, and the scores are 40 % of the bytes.

    Each run's blobs are copied into arrays sized beforehand (the n_rows column) and
    dropped before the next is read: half the memory of keeping every blob and then
    concatenating, and the allocator reuses one run's worth of pages. Read sessions are
    one snapshot; a write transaction on PostgreSQL (READ COMMITTED) may see a run
    imported or replaced between the plan and the blobs: then the read starts again."""
    conn = as_reader(conn)
    for _ in range(_ATTEMPTS):
        runs = _load_once(conn, scores)
        if runs is not None:
            return runs
    raise DatabaseError("the stored runs kept changing while they were read; try again")


_ATTEMPTS = 5


# one statement: the systems and their sizes from one moment
_PLAN = ("SELECT system.id, system.tag, run_arrays.n_rows FROM system LEFT OUTER JOIN run_arrays "
         "ON run_arrays.system_id = system.id AND run_arrays.encoding = :encoding "
         "ORDER BY system.id")
_BLOBS = ("SELECT system_id, n_rows, query_ids, document_ids{scores} FROM run_arrays "
          "WHERE encoding = :encoding")


def _load_once(conn, scores: bool) -> StoredRuns | None:
    """The runs, or None when they changed between the two statements."""
    plan = conn.rows(_PLAN, {"encoding": ENCODING})
    sizes = {sid: n or 0 for sid, _, n in plan}
    counts = np.array([sizes[sid] for sid, _, _ in plan], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    start = dict(zip((sid for sid, _, _ in plan), offsets[:-1].tolist()))
    tags = {sid: tag for sid, tag, _ in plan}
    total = int(offsets[-1])
    query_id = np.empty(total, dtype=np.int32)  # as stored: a 64-bit copy of 5 M rows costs 0.1 s
    document_id = np.empty(total, dtype=np.int32)
    score = np.empty(total, dtype=np.float64) if scores else None
    targets = [(query_id, "<i4"), (document_id, "<i4")] + ([(score, "<f8")] if scores else [])
    filled = set()
    for row in conn.each(_BLOBS.format(scores=", scores" if scores else ""), {"encoding": ENCODING}):
        sid, n = row[0], row[1]
        if sid not in start:  # imported after the plan was read
            continue
        if n != sizes[sid]:  # replaced after the plan was read
            return None
        at = start[sid]
        for (target, dtype), blob in zip(targets, row[2:]):
            values = np.frombuffer(blob, dtype=dtype)
            if values.size != n:
                raise DatabaseError(f"stored run {tags[sid]!r} is damaged: {values.size} "
                                    f"values where it should have {n}; re-import it "
                                    f"(`workbench import run FILE --replace`)")
            target[at:at + n] = values
        filled.add(sid)
    if any(n and sid not in filled for sid, n in sizes.items()):  # removed after the plan
        return None
    return StoredRuns(
        system_ids=np.array([sid for sid, _, _ in plan], dtype=np.int64),
        tags=tuple(tag for _, tag, _ in plan),
        offsets=offsets,
        query_id=query_id,
        document_id=document_id,
        score=score,
    )


__all__ = ["ENCODING", "IdNames", "StoredRuns", "id_names", "load_stored_runs",
           "query_names", "resort_runs", "runs_token", "write_run", "write_run_arrays"]
