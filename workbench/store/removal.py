"""Removing and renaming: runs, queries and assessors, with the judgment history archived.

Rows that depend on a removed query or assessor go with it (ON DELETE CASCADE); its
judgment events are first copied to `event_archive` under external names, so the history
stays readable. A removed query's rows are also cut out of every stored run's arrays."""

from __future__ import annotations

import numpy as np
from sqlalchemy import delete, func, insert, literal, select, update
from sqlalchemy.orm import Session

from workbench.store.models import (
    Adjudication,
    Assessor,
    Document,
    EventArchive,
    Judgment,
    JudgmentEvent,
    Query,
    RunArrays,
    System,
    utcnow,
)
from workbench.store import external_ids
from workbench.store.run_arrays import write_run_arrays
from workbench.store.runs import system_id_of


def id_of(session: Session, kind: str, name: str) -> int | None:
    """The database id of a run (by tag), query or assessor (by name), or None."""
    lookup = {"run": system_id_of, "query": external_ids.query_id,
              "assessor": external_ids.assessor_id}[kind]
    return lookup(session, name)


def judgments_lost(session: Session, *, query_id: int | None = None, assessor_id: int | None = None) -> int:
    """Current judgments and final grades that removing the query or assessor deletes."""
    if query_id is not None:
        j = session.scalar(select(func.count()).select_from(Judgment).where(Judgment.query_id == query_id))
        a = session.scalar(select(func.count()).select_from(Adjudication).where(Adjudication.query_id == query_id))
    else:
        j = session.scalar(select(func.count()).select_from(Judgment).where(Judgment.assessor_id == assessor_id))
        a = session.scalar(select(func.count()).select_from(Adjudication).where(Adjudication.adjudicator_id == assessor_id))
    return int(j or 0) + int(a or 0)


def _archive(session: Session, removed: str, condition) -> int:
    """Copy the events matching `condition` to event_archive; the number copied."""
    rows = (
        select(Query.ext_id, Document.ext_id, Assessor.name, JudgmentEvent.kind, JudgmentEvent.old_grade,
               JudgmentEvent.new_grade, JudgmentEvent.note, JudgmentEvent.seconds, JudgmentEvent.created_at,
               literal(removed), literal(utcnow()))
        .join(Query, Query.id == JudgmentEvent.query_id)
        .join(Document, Document.id == JudgmentEvent.document_id)
        .join(Assessor, Assessor.id == JudgmentEvent.assessor_id)
        .where(condition)
        .order_by(JudgmentEvent.id)
    )
    cols = [EventArchive.query, EventArchive.document, EventArchive.assessor, EventArchive.kind,
            EventArchive.old_grade, EventArchive.new_grade, EventArchive.note, EventArchive.seconds,
            EventArchive.created_at, EventArchive.removed, EventArchive.removed_at]
    before = archived_events(session)
    session.execute(insert(EventArchive).from_select(cols, rows))
    return archived_events(session) - before  # rowcount of INSERT ... SELECT is -1 on SQLite


def remove_run(session: Session, system_id: int) -> None:
    session.execute(delete(RunArrays).where(RunArrays.system_id == system_id))
    session.execute(delete(System).where(System.id == system_id))


def rename_run(session: Session, system_id: int, tag: str) -> None:
    session.execute(update(System).where(System.id == system_id).values(tag=tag))


def remove_query(session: Session, query_id: int, name: str) -> int:
    """Archive the query's events, cut it out of every run, delete it; events archived."""
    archived = _archive(session, f"query {name}", JudgmentEvent.query_id == query_id)
    for sid, q, d, s in session.execute(
        select(RunArrays.system_id, RunArrays.query_ids, RunArrays.document_ids, RunArrays.scores)
    ).all():
        qa = np.frombuffer(q, dtype="<i4")
        keep = qa != query_id
        if not keep.all():
            write_run_arrays(session, sid, qa[keep], np.frombuffer(d, dtype="<i4")[keep],
                             np.frombuffer(s, dtype="<f8")[keep])
    session.execute(delete(Query).where(Query.id == query_id))
    return archived


def remove_assessor(session: Session, assessor_id: int, name: str) -> int:
    """Archive the assessor's events and delete them (their judgments, queue, final grades)."""
    archived = _archive(session, f"assessor {name}", JudgmentEvent.assessor_id == assessor_id)
    session.execute(delete(Assessor).where(Assessor.id == assessor_id))
    return archived


def archived_events(session: Session) -> int:
    return int(session.scalar(select(func.count()).select_from(EventArchive)) or 0)
