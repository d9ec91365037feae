"""What the campaign holds, counted: the rows behind `workbench list` (one query each, no
row per result or judgment in Python)."""

from __future__ import annotations

from dataclasses import dataclass

from typing import TYPE_CHECKING

import numpy as np

from workbench.store.dbapi import as_reader

if TYPE_CHECKING:  # run_counts is SQL text (store.dbapi); the other counts build statements
    from sqlalchemy.orm import Session


def _statements():
    """SQLAlchemy's statement builders and the models, for the counts written with them
    (imported on use: `list runs` reads through the driver alone)."""
    import sqlalchemy
    from workbench.store import models, queues

    return sqlalchemy, models, queues.kept_repeat


@dataclass(frozen=True)
class Counts:
    """Names and, per name, named integer columns (aligned arrays)."""

    names: list[str]
    titles: list[str]
    columns: dict[str, np.ndarray]


def _counts(session, keys: list[tuple[str, object]], stmts: dict[str, object]) -> dict[str, np.ndarray]:
    """For each (column name, grouped count statement: SQL text or a statement), an int
    array aligned with the ids in `keys` ((id, ...) rows); ids absent from a statement's
    result count 0."""
    at = {k: i for i, (k, *_rest) in enumerate(keys)}
    out = {}
    for name, stmt in stmts.items():
        col = np.zeros(len(keys), dtype=np.int64)
        rows = as_reader(session).rows(stmt) if isinstance(stmt, str) else session.execute(stmt)
        for key, n in rows:
            if key in at:
                col[at[key]] = n
        out[name] = col
    return out


# The judgments of people: a machine assessor's labels are not judging work done (after
# `autojudge --top-k 20` on a depth-5 pool, `list queries` said "judged 42, done 280%").
def _peoples() -> str:
    from workbench.store.machine import HUMAN  # (imported on use: see _statements)

    # (a negative grade, a qrels file's "in the pool, unjudged", is no judgment done)
    return (f"FROM judgment j JOIN assessor a ON a.id = j.assessor_id WHERE a.kind = '{HUMAN}'"
            " AND j.grade >= 0")


def query_counts(session) -> Counts:
    """Per query: pool entries, documents judged by people, people's judgments, assessors
    assigned (`session`: a Session, Connection or Reader)."""
    rows = as_reader(session).rows("SELECT id, ext_id, title FROM query ORDER BY id")
    people = _peoples()
    cols = _counts(session, rows, {
        "pool": "SELECT query_id, count(*) FROM pool_entry GROUP BY query_id",
        "judged": f"SELECT j.query_id, count(DISTINCT j.document_id) {people} GROUP BY j.query_id",
        "judgments": f"SELECT j.query_id, count(*) {people} GROUP BY j.query_id",
        "assessors": "SELECT query_id, count(DISTINCT assessor_id) FROM assignment GROUP BY query_id",
    })
    return Counts([r[1] for r in rows], [r[2] or "" for r in rows], cols)


def document_counts(session) -> Counts:
    """Per document: pool entries and people's judgments."""
    rows = as_reader(session).rows("SELECT id, ext_id, title FROM document ORDER BY id")
    people = _peoples()
    cols = _counts(session, rows, {
        "pooled": "SELECT document_id, count(*) FROM pool_entry GROUP BY document_id",
        "judgments": f"SELECT j.document_id, count(*) {people} GROUP BY j.document_id",
    })
    return Counts([r[1] for r in rows], [r[2] or "" for r in rows], cols)


_RUNS = "SELECT id, tag, description FROM system ORDER BY id"
_RUN_SIZES = "SELECT system_id, n_rows, query_ids FROM run_arrays"


def run_counts(conn) -> Counts:
    """Per run: result rows and queries (from its stored arrays); `conn`: a Reader,
    Connection or Session."""
    conn = as_reader(conn)
    rows = conn.rows(_RUNS)
    n_rows = np.zeros(len(rows), dtype=np.int64)
    n_queries = np.zeros(len(rows), dtype=np.int64)
    at = {r[0]: i for i, r in enumerate(rows)}
    for sid, n, blob in conn.each(_RUN_SIZES):
        q = np.frombuffer(blob, dtype="<i4")
        n_rows[at[sid]] = n
        n_queries[at[sid]] = int(np.count_nonzero(np.diff(q))) + 1 if q.size else 0
    return Counts([r[1] for r in rows], [r[2] or "" for r in rows], {"queries": n_queries, "results": n_rows})


def assessor_counts(session: Session) -> Counts:
    """Per assessor: documents assigned (first showings), current judgments, judgments of
    documents outside their assignment, repeat (self-consistency) grades, and current
    "can't judge" marks. A lead who only adjudicated is not an assessor: left out."""
    from workbench.store.judgment_arrays import lead_only_ids

    sa, m, kept_repeat = _statements()
    select, func, and_ = sa.select, sa.func, sa.and_
    Assessor, Assignment, Judgment = m.Assessor, m.Assignment, m.Judgment
    JudgmentEvent, CantJudge = m.JudgmentEvent, m.CantJudge
    leads = lead_only_ids(session)
    rows = [r for r in session.execute(select(Assessor.id, Assessor.name).order_by(Assessor.id))
            if r[0] not in leads]
    assigned = and_(
        Assignment.assessor_id == Judgment.assessor_id,
        Assignment.query_id == Judgment.query_id,
        Assignment.document_id == Judgment.document_id,
    )
    cols = _counts(session, rows, {
        "assigned": select(Assignment.assessor_id, func.count()).where(Assignment.repeat.is_(False))
        .group_by(Assignment.assessor_id),
        "judged": select(Judgment.assessor_id, func.count()).where(Judgment.grade >= 0)
        .group_by(Judgment.assessor_id),
        "outside": select(Judgment.assessor_id, func.count()).where(Judgment.grade >= 0)
        .where(~select(Assignment.id).where(assigned).exists()).group_by(Judgment.assessor_id),
        "repeats": select(JudgmentEvent.assessor_id, func.count()).where(kept_repeat())
        .group_by(JudgmentEvent.assessor_id),
        "cant_judge": select(CantJudge.assessor_id, func.count()).group_by(CantJudge.assessor_id),
    })
    return Counts([r[1] for r in rows], ["" for _ in rows], cols)


def document_names(session: Session):
    """Every document's id and external id (store.run_arrays.IdNames)."""
    from workbench.store.run_arrays import id_names

    return id_names(session, "document")


@dataclass(frozen=True)
class RepeatPairs:
    """Each repeat grade beside the grade the item had when it was repeated: assessor
    index (into `assessors`), first grade, repeat grade."""

    assessors: list[str]
    assessor: np.ndarray
    first: np.ndarray
    repeat: np.ndarray


def repeat_pairs(session: Session) -> RepeatPairs:
    from workbench.store.external_ids import assessors_by_id

    sa, m, kept_repeat = _statements()
    select, JudgmentEvent = sa.select, m.JudgmentEvent
    assessors = assessors_by_id(session)
    rows = session.execute(
        select(JudgmentEvent.assessor_id, JudgmentEvent.old_grade, JudgmentEvent.new_grade)
        .where(kept_repeat(), JudgmentEvent.old_grade.is_not(None),
               JudgmentEvent.new_grade.is_not(None))
        .order_by(JudgmentEvent.id)
    ).all()
    return RepeatPairs(
        assessors.names.tolist(),
        np.searchsorted(assessors.ids, np.array([r[0] for r in rows], dtype=np.int64)),
        np.array([r[1] for r in rows], dtype=np.int64),
        np.array([r[2] for r in rows], dtype=np.int64),
    )
