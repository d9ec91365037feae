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
    Result,
    System,
)

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
                    "id": i + 1, "ext_id": q, "title": f"Title of {q}",
                    "description": f"Description of {q}", "narrative": f"Narrative of {q}",
                }
                for i, q in enumerate(queries)
            ],
        )
        s.execute(
            insert(Document),
            [
                {
                    "id": i + 1, "ext_id": d, "title": f"Document {d}",
                    "text": MARKUP_TEXT if (markup_doc and i == 0) else f"Body of {d}. " * 20,
                }
                for i, d in enumerate(docs)
            ],
        )
        s.execute(
            insert(System), [{"id": i + 1, "tag": t} for i, t in enumerate(systems)]
        )
        s.execute(
            insert(Assessor), [{"id": i + 1, "name": a} for i, a in enumerate(assessors)]
        )
        results, pool, assignments = [], {}, []
        for qi in range(n_queries):
            for si in range(n_systems):
                ranked = rng.sample(range(n_docs), depth)
                for rank, di in enumerate(ranked, start=1):
                    results.append(
                        {
                            "system_id": si + 1, "query_id": qi + 1, "document_id": di + 1,
                            "rank": rank, "score": float(depth - rank + 1) + rng.random() / 10,
                        }
                    )
                    pool[(qi, di)] = min(pool.get((qi, di), rank), rank)
        s.execute(insert(Result), results)
        s.execute(
            insert(PoolEntry),
            [{"query_id": q + 1, "document_id": d + 1, "best_rank": r} for (q, d), r in pool.items()],
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
                        {"assessor_id": ai + 1, "query_id": qi + 1, "document_id": di + 1,
                         "position": pos, "repeat": False}
                    )
                if repeat_last:
                    assignments.append(
                        {"assessor_id": ai + 1, "query_id": qi + 1, "document_id": order[0] + 1,
                         "position": len(order), "repeat": True}
                    )
        s.execute(insert(Assignment), assignments)
    return Campaign(queries, docs, systems, list(assessors), queues)


def stored_runs(db: Database) -> dict[str, dict[str, dict[str, float]]]:
    """tag -> query -> doc -> score, for oracles (pytrec_eval's run dict)."""
    from workbench.store.models import Result as R

    runs: dict[str, dict[str, dict[str, float]]] = {}
    with db.read() as s:
        for tag, q, d, score in s.execute(
            select(System.tag, Query.ext_id, Document.ext_id, R.score)
            .join(System, System.id == R.system_id)
            .join(Query, Query.id == R.query_id)
            .join(Document, Document.id == R.document_id)
        ):
            runs.setdefault(tag, {}).setdefault(q, {})[d] = score
    return runs
