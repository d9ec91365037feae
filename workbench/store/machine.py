"""The SQL of machine assessors: their kind, their provenance and the log of their calls.

A machine assessor is an `assessor` row of kind 'machine' with one `machine_provenance`
row; its labels are ordinary judgments (written by campaign/judging's grade rule), and
every call it made, label or failure, is appended to `machine_call` for audit. The rules
(what a call's answer means, who counts in a consensus) live in campaign/.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session

from workbench.store.models import (
    Assessor,
    Document,
    Judgment,
    MachineCall,
    MachineProvenance,
    Query,
    utcnow,
)

from workbench.store.kinds import HUMAN, KINDS, MACHINE  # noqa: F401 (the constants' home)
# A call's outcome: a grade; an answer with no grade in it; no answer at all (timeouts,
# HTTP errors after the retries: a rerun asks again).
LABEL, FAILURE, ERROR = "label", "failure", "error"


@dataclass(frozen=True)
class Provenance:
    """How a machine assessor's labels were made (no credentials, ever)."""

    model: str
    endpoint: str = ""
    prompt: str = ""
    prompt_sha256: str = ""
    parameters: str = "{}"  # JSON text: temperature, max_tokens, seed, ...
    origin: str = "autojudge"
    version: str = ""
    created_at: datetime | None = None


@dataclass(frozen=True)
class CallRow:
    """One stored call, by external ids (for exports and audits)."""

    id: int
    assessor: str
    query: str
    document: str
    outcome: str
    grade: int | None
    raw: str
    error: str
    attempts: int
    seconds: float
    at: datetime


_ID_AND_KIND = select(Assessor.id, Assessor.kind).where(Assessor.name == bindparam("key"))


def assessor_id_and_kind(session: Session, name: str) -> tuple[int, str] | None:
    """(id, kind) of the assessor `name`, or None."""
    row = session.execute(_ID_AND_KIND, {"key": name}).first()
    return None if row is None else (row[0], row[1])


def assessor_kind(session: Session, assessor_id: int) -> str | None:
    return session.scalar(select(Assessor.kind).where(Assessor.id == assessor_id))


def assessor_kinds(session: Session) -> dict[str, str]:
    """Every assessor's kind by name."""
    return dict(session.execute(select(Assessor.name, Assessor.kind)).all())


def machine_assessor_ids(session: Session) -> np.ndarray:
    """The ids (int64, ascending) of every machine assessor."""
    ids = session.scalars(
        select(Assessor.id).where(Assessor.kind == MACHINE).order_by(Assessor.id)
    ).all()
    return np.asarray(ids, dtype=np.int64)


def set_machine(session: Session, assessor_id: int, provenance: Provenance) -> None:
    """Make the assessor a machine with this provenance (the caller checked it was new or
    had no provenance yet)."""
    session.execute(update(Assessor).where(Assessor.id == assessor_id).values(kind=MACHINE))
    session.execute(insert(MachineProvenance).values(
        assessor_id=assessor_id, model=provenance.model, endpoint=provenance.endpoint,
        prompt=provenance.prompt, prompt_sha256=provenance.prompt_sha256,
        parameters=provenance.parameters, origin=provenance.origin,
        version=provenance.version, created_at=provenance.created_at or utcnow(),
    ))


def provenance(session: Session, assessor_id: int) -> Provenance | None:
    row = session.execute(
        select(MachineProvenance).where(MachineProvenance.assessor_id == assessor_id)
    ).scalar_one_or_none()
    if row is None:
        return None
    return Provenance(row.model, row.endpoint, row.prompt, row.prompt_sha256, row.parameters,
                      row.origin, row.version, row.created_at)


_INSERT_CALL = insert(MachineCall.__table__)  # built once: a label costs one of these


def append_call(
    session: Session, assessor_id: int, query_id: int, document_id: int, *, outcome: str,
    grade: int | None, raw: str, error: str = "", attempts: int = 1, seconds: float = 0.0,
    at: datetime | None = None, call_key: str | None = None, sample: int | None = None,
) -> None:
    """Append one call to the audit log (a Core insert with parameters: the ORM's
    insert().values() per call cost more than the rest of a label's transaction)."""
    session.execute(_INSERT_CALL, {
        "assessor_id": assessor_id, "query_id": query_id, "document_id": document_id,
        "outcome": outcome, "grade": grade, "raw": raw, "error": error, "attempts": attempts,
        "seconds": seconds, "created_at": at or utcnow(), "call_key": call_key, "sample": sample,
    })


def sample_grades(session: Session, assessor_id: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query id, document id, grade) of every labelled sample call of the machine
    (`autojudge --samples N`: calls with a sample index)."""
    rows = session.execute(select(MachineCall.query_id, MachineCall.document_id, MachineCall.grade)
                           .where(MachineCall.assessor_id == assessor_id, MachineCall.sample.is_not(None),
                                  MachineCall.outcome == LABEL)).all()
    arr = np.array(rows, dtype=np.int64).reshape(-1, 3)
    return arr[:, 0], arr[:, 1], arr[:, 2]


def answers_by_key(session: Session, keys) -> dict[str, tuple[str, str, str]]:
    """key -> (outcome, raw, error) of the latest stored call with that key that got an
    answer (outcome label or failure), of any machine assessor."""
    keys = sorted(set(keys))
    out: dict[str, tuple[str, str, str]] = {}
    for start in range(0, len(keys), 500):
        chunk = keys[start:start + 500]
        rows = session.execute(
            select(MachineCall.call_key, MachineCall.outcome, MachineCall.raw, MachineCall.error)
            .where(MachineCall.call_key.in_(chunk), MachineCall.outcome.in_([LABEL, FAILURE]))
            .order_by(MachineCall.id)).all()
        for key, outcome, raw, error in rows:
            out[key] = (outcome, raw, error)
    return out


def settled_items(session: Session, assessor_id: int, *, with_failures: bool = True) -> set[tuple[int, int]]:
    """The (query id, document id) pairs the machine is done with: it holds a grade, or a
    stored call gave a label or (`with_failures`) an answer with no grade. A call that got
    no answer (outcome `error`) settles nothing. A rerun skips these."""
    outcomes = [LABEL, FAILURE] if with_failures else [LABEL]
    calls = select(MachineCall.query_id, MachineCall.document_id).where(
        MachineCall.assessor_id == assessor_id, MachineCall.outcome.in_(outcomes)
    )
    graded = select(Judgment.query_id, Judgment.document_id).where(
        Judgment.assessor_id == assessor_id
    )
    return {(int(q), int(d)) for q, d in session.execute(calls.union(graded)).all()}


def query_texts(session: Session, ids: list[int]) -> dict[int, tuple[str, str, str, str]]:
    """id -> (external id, title, description, narrative) of the queries in `ids`."""
    rows = session.execute(select(Query.id, Query.ext_id, Query.title, Query.description,
                                  Query.narrative).where(Query.id.in_(ids))).all()
    return {r[0]: (r[1], r[2] or "", r[3] or "", r[4] or "") for r in rows}


def document_texts(session: Session, ids: list[int]) -> dict[int, tuple[str, str, str]]:
    """id -> (external id, title, text) of the documents in `ids`."""
    rows = session.execute(select(Document.id, Document.ext_id, Document.title, Document.text)
                           .where(Document.id.in_(ids))).all()
    return {r[0]: (r[1], r[2] or "", r[3] or "") for r in rows}


def ids_by_text(session: Session, queries: list[str], passages: list[str]):
    """({query title: [query ids]}, {document text: [document ids]}) for the given texts:
    exact matches only (UMBRELA's files name queries and passages by their texts)."""
    q: dict[str, list[int]] = {}
    d: dict[str, list[int]] = {}
    wanted_q, wanted_d = sorted(set(queries)), sorted(set(passages))
    for start in range(0, len(wanted_q), 500):
        for qid, title in session.execute(select(Query.id, Query.title)
                                          .where(Query.title.in_(wanted_q[start:start + 500]))).all():
            q.setdefault(title, []).append(int(qid))
    for start in range(0, len(wanted_d), 500):
        for did, text in session.execute(select(Document.id, Document.text)
                                         .where(Document.text.in_(wanted_d[start:start + 500]))).all():
            d.setdefault(text, []).append(int(did))
    return q, d


def call_rows(session: Session, assessor_id: int | None = None) -> Iterator[CallRow]:
    """The stored calls (of every machine, or of one), in the order made, streamed (the
    caller's read transaction stays open while it iterates)."""
    stmt = (
        select(MachineCall.id, Assessor.name, Query.ext_id, Document.ext_id, MachineCall.outcome,
               MachineCall.grade, MachineCall.raw, MachineCall.error, MachineCall.attempts,
               MachineCall.seconds, MachineCall.created_at)
        .join(Assessor, Assessor.id == MachineCall.assessor_id)
        .join(Query, Query.id == MachineCall.query_id)
        .join(Document, Document.id == MachineCall.document_id)
        .order_by(MachineCall.id)
    )
    if assessor_id is not None:
        stmt = stmt.where(MachineCall.assessor_id == assessor_id)
    for row in session.execute(stmt.execution_options(yield_per=5_000)):
        yield CallRow(*row)


__all__ = ["ERROR", "FAILURE", "document_texts", "query_texts", "HUMAN", "KINDS", "LABEL", "MACHINE", "CallRow", "Provenance",
           "append_call", "assessor_id_and_kind", "assessor_kind", "assessor_kinds", "call_rows",
           "machine_assessor_ids", "provenance", "set_machine", "settled_items"]
