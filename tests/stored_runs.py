"""Test helpers over the stored runs (store/run_arrays.py, the one copy of a run): read them
back as rows by external id, and write runs given as result rows in any order."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from sqlalchemy import func, select

from workbench.store.models import Document, Query, RunArrays
from workbench.store.run_arrays import load_stored_runs, write_run


def stored_results(db, tag: str) -> list[tuple[str, str, int, float]]:
    """(query, document, rank, score) of a stored run, by query then rank (trec_eval's order)."""
    with db.read() as s:
        runs = load_stored_runs(s.connection())
        queries = dict(s.execute(select(Query.id, Query.ext_id)).all())
        docs = dict(s.execute(select(Document.id, Document.ext_id)).all())
    if tag not in runs.tags:
        return []
    i = runs.tags.index(tag)
    a, b = runs.offsets[i], runs.offsets[i + 1]
    out, rank, last = [], 0, None
    for q, d, score in zip(runs.query_id[a:b].tolist(), runs.document_id[a:b].tolist(),
                           runs.score[a:b].tolist()):
        rank = rank + 1 if q == last else 1
        last = q
        out.append((queries[q], docs[d], rank, score))
    return sorted(out, key=lambda r: (r[0], r[2]))


def stored_result_count(db) -> int:
    """Results over all stored runs."""
    with db.read() as s:
        return int(s.scalar(select(func.coalesce(func.sum(RunArrays.n_rows), 0))))


def write_results(session, rows) -> None:
    """Store runs given as (system_id, query_id, document_id, score) rows (or dicts with those
    keys) in any order, as an import would: one run per system, in trec_eval's order."""
    by_system = defaultdict(list)
    for row in rows:
        if isinstance(row, dict):
            row = (row["system_id"], row["query_id"], row["document_id"], row["score"])
        by_system[row[0]].append(row[1:])
    session.flush()
    for sid, results in by_system.items():
        q, d, score = (np.array(col) for col in zip(*results))
        write_run(session, sid, q, d, score)
