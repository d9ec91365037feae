"""Build small (or benchmark-sized) campaigns through the ORM models, for the TUI, the
assessing/qrels/scoring tests and bench/tui_bench.py.

Import as `from tests.tui.factory import build_campaign` (pytest runs with the repository
root on sys.path through `python -m pytest`).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from sqlalchemy import insert, select

from workbench.campaign.database import Database
from workbench.store.models import (
    Assessor,
    Assignment,
    Document,
    PoolEntry,
    Query,
    System,
)
from tests.stored_runs import write_results

SYSTEM_TAG = "SECRETSYS"  # every system tag starts with it: the blind tests search for it
MARKUP_TEXT = "Look: [bold]not bold[/bold] and [/x] and [link=http://x]click[/link] end."


@dataclass
class Campaign:
    queries: list[str]
    docs: list[str]
    systems: list[str]
    assessors: list[str]
    # query -> the assessors' queue order (same order for each assessor in this factory
    # unless shuffled): assessor -> [doc ext ids]
    queues: dict[str, dict[str, list[str]]]


def build_campaign(
    db: Database,
    *,
    n_queries: int = 3,
    n_systems: int = 3,
    depth: int = 6,
    n_docs: int | None = None,
    assessors: tuple[str, ...] = ("alice",),
    seed: int = 7,
    markup_doc: bool = True,
    repeat_last: bool = False,
) -> Campaign:
    """Queries q1.., docs d001.., systems SECRETSYS_1.. each returning `depth` documents per
    query with descending scores; pool = union of the top `depth`; every assessor assigned
    the whole pool in a per-(assessor, query) hashed order. With `markup_doc`, the first
    document's text is markup-like. With `repeat_last`, each queue ends with a repeat of its
    first document."""
    rng = random.Random(seed)
    n_docs = n_docs or max(depth * 2, 10)
    queries = [f"q{i + 1}" for i in range(n_queries)]
    docs = [f"d{i + 1:03d}" for i in range(n_docs)]
    systems = [f"{SYSTEM_TAG}_{i + 1}" for i in range(n_systems)]
    queues: dict[str, dict[str, list[str]]] = {}
    with db.write.begin() as s:
        s.execute(
            insert(Query),
            [
                {
                    "ext_id": q, "title": f"Title of {q}",
                    "description": f"Description of {q}", "narrative": f"Narrative of {q}",
                }
                for q in queries
            ],
        )
        s.execute(
            insert(Document),
            [
                {
                    "ext_id": d, "title": f"Document {d}",
                    "text": MARKUP_TEXT if (markup_doc and i == 0) else f"Body of {d}. " * 20,
                }
                for i, d in enumerate(docs)
            ],
        )
        s.execute(insert(System), [{"tag": t} for t in systems])
        s.execute(insert(Assessor), [{"name": a} for a in assessors])
        # ids assigned by the database (PostgreSQL sequences must advance too)
        qids = dict(s.execute(select(Query.ext_id, Query.id)).all())
        dids = dict(s.execute(select(Document.ext_id, Document.id)).all())
        sids = dict(s.execute(select(System.tag, System.id)).all())
        aids = dict(s.execute(select(Assessor.name, Assessor.id)).all())
        Q = [qids[q] for q in queries]
        D = [dids[d] for d in docs]
        S = [sids[t] for t in systems]
        A = [aids[a] for a in assessors]
        results, pool, assignments = [], {}, []
        for qi in range(n_queries):
            for si in range(n_systems):
                ranked = rng.sample(range(n_docs), depth)
                for rank, di in enumerate(ranked, start=1):
                    results.append(
                        {
                            "system_id": S[si], "query_id": Q[qi], "document_id": D[di],
                            "score": float(depth - rank + 1) + rng.random() / 10,
                        }
                    )
                    pool[(qi, di)] = min(pool.get((qi, di), rank), rank)
        write_results(s, results)  # as an import stores them
        s.execute(
            insert(PoolEntry),
            [{"query_id": Q[q], "document_id": D[d], "best_rank": r} for (q, d), r in pool.items()],
        )
        for qi, q in enumerate(queries):
            pooled = sorted(di for (qq, di) in pool if qq == qi)
            queues[q] = {}
            for ai, a in enumerate(assessors):
                order = sorted(
                    pooled,
                    key=lambda di: hashlib.sha256(f"{a}/{q}/{di}".encode()).hexdigest(),
                )
                queues[q][a] = [docs[di] for di in order]
                for pos, di in enumerate(order):
                    assignments.append(
                        {"assessor_id": A[ai], "query_id": Q[qi], "document_id": D[di],
                         "position": pos, "repeat": False}
                    )
                if repeat_last:
                    assignments.append(
                        {"assessor_id": A[ai], "query_id": Q[qi], "document_id": D[order[0]],
                         "position": len(order), "repeat": True}
                    )
        s.execute(insert(Assignment), assignments)
    return Campaign(queries, docs, systems, list(assessors), queues)


def stored_runs(db: Database) -> dict[str, dict[str, dict[str, float]]]:
    """tag -> query -> doc -> score, for oracles (pytrec_eval's run dict)."""
    from workbench.store.run_arrays import load_stored_runs

    runs: dict[str, dict[str, dict[str, float]]] = {}
    with db.read() as s:
        stored = load_stored_runs(s.connection())
        qname = dict(s.execute(select(Query.id, Query.ext_id)).all())
        dname = dict(s.execute(select(Document.id, Document.ext_id)).all())
    for i, tag in enumerate(stored.tags):
        a, b = stored.offsets[i], stored.offsets[i + 1]
        for q, d, score in zip(stored.query_id[a:b].tolist(), stored.document_id[a:b].tolist(),
                               stored.score[a:b].tolist()):
            runs.setdefault(tag, {}).setdefault(qname[q], {})[dname[d]] = score
    return runs
