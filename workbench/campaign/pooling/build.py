"""`workbench pool --method depth|mtf|bandit`: build the pool the plan asks for, store the
plan, and fill the assessors' queues.

- depth: the top K of every run per query (assign.build_pool); with a budget, each
  query's share of it (plan.budget_caps) cut from the depth order (rank 1 of every
  run, then rank 2, ...: planning.methods.depth_order), documents already pooled counting
  against the share. Queues are filled by pooling.assign (overlap, repeats).
- mtf, bandit: the pool starts with each query's first choice and grows one document per
  grade (adaptive.py). The named assessors get the first documents now; in a split
  (`--overlap`) each of them is served a first document of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from workbench.campaign.pooling.adaptive import QueueServer
from workbench.campaign.database import Database
from workbench.campaign.assessors.roster import get_or_create_assessor
from workbench.campaign.pooling.plan import PoolPlan, budget_caps, check_plan
from workbench.campaign.pooling.assign import SERIALIZED, assign, build_pool
from workbench.campaign.pooling.query_lists import best_rank, cut, lists_by_query
from workbench.campaign.settings import campaign_pool_depth, campaign_threshold
from workbench.campaign.writing import write_transaction
from workbench.errors import UsageError
from workbench.names import check_name
from workbench.planning.methods import depth_order
from workbench.store.pool_plans import write_pool_plan
from workbench.store.pools import (
    add_pool_entries,
    pool_arrays,
    pool_sizes,
    query_names,
    record_pool_depth,
)


@dataclass(frozen=True)
class PoolRun:
    """What `make_pool` did."""

    plan: PoolPlan
    n_queries: int  # queries with at least one pooled document
    n_entries: int  # pool size after the call
    n_added: int  # documents pooled by this call
    per_query: dict[str, int] = field(default_factory=dict)


def make_pool(db: Database, method: str = "depth", *, depth: int | None = None,
              budget: int | None = None, assessors: list[str] | tuple[str, ...] = (),
              overlap: float | None = None, repeat: float = 0.0, seed: int = 0,
              on_wait: Callable[[], None] | None = None) -> PoolRun:
    """Pool by `method`, record the plan and assign the pool to `assessors` (see the module
    docstring). `depth` defaults to the campaign's pool depth for `depth` and to the whole
    runs for the adaptive methods."""
    names = list(dict.fromkeys(check_name(a) for a in assessors))  # before any write
    if method == "depth" and depth is None:
        depth = campaign_pool_depth(db)
    plan = check_plan(PoolPlan(method, depth, budget, seed, overlap, repeat))
    if (overlap is not None or repeat) and not names:
        raise UsageError("overlap and repeat need at least one assessor")
    if plan.method == "depth":
        if budget is None:
            added = build_pool(db, depth, on_wait=on_wait).n_added
        else:
            added = _capped_depth_pool(db, plan, on_wait)
        with write_transaction(db, serialize_as=SERIALIZED, on_wait=on_wait) as s:
            write_pool_plan(s, **_columns(plan))
        if names:
            assign(db, names, overlap=overlap, repeat=repeat, seed=seed, on_wait=on_wait)
    else:
        added = _adaptive_pool(db, plan, names, on_wait)
    sizes = _sizes(db)
    return PoolRun(plan, len(sizes), sum(sizes.values()), added, sizes)


def _capped_depth_pool(db: Database, plan: PoolPlan, on_wait) -> int:
    with write_transaction(db, serialize_as=SERIALIZED, on_wait=on_wait) as s:
        lists = lists_by_query(s)
        qname = query_names(s)
        caps = budget_caps(plan.budget, [qname[q] for q in lists])
        pool = pool_arrays(s)  # one read, by query: not one SELECT per query
        had_pool = False
        new: list[tuple[int, int, int]] = []  # (query id, document id, best rank)
        for qid, runs in lists.items():
            lo, hi = np.searchsorted(pool.query_id, [qid, qid + 1])
            pooled = pool.document_id[lo:hi].tolist()
            had_pool = had_pool or bool(pooled)
            runs = cut(runs, plan.depth)
            room = caps[qname[qid]] - len(pooled)
            for doc in depth_order(runs, room, dict.fromkeys(pooled, False)):
                new.append((qid, doc, best_rank(runs, doc)))
        columns = np.array(new, dtype=np.int64).reshape(-1, 3)
        add_pool_entries(s, columns[:, 0], columns[:, 1], columns[:, 2])
        record_pool_depth(s, plan.depth, had_pool=had_pool)
    return len(new)


def _adaptive_pool(db: Database, plan: PoolPlan, names: list[str], on_wait) -> int:
    """Documents pooled: each query's first, then one per assessor who got none."""
    threshold = campaign_threshold(db)
    with write_transaction(db, serialize_as=SERIALIZED, on_wait=on_wait) as s:
        write_pool_plan(s, **_columns(plan))
        server = QueueServer(s, plan, threshold, cache_key=db.url)
        queries = sorted(server.lists, key=lambda q: server.qname[q].encode("utf-8"))
        added = sum(server.first_document(qid) is not None for qid in queries)
    if not names:
        return added
    # The first documents go out as any pool does (no repeats: those follow as queues grow).
    assign(db, names, overlap=plan.overlap, seed=plan.seed, on_wait=on_wait)
    with write_transaction(db, serialize_as=SERIALIZED, on_wait=on_wait) as s:
        ids = [get_or_create_assessor(s, n) for n in names]
        server = QueueServer(s, plan, threshold, cache_key=db.url)
        for qid in sorted(server.lists, key=lambda q: server.qname[q].encode("utf-8")):
            added += sum(server.serve(aid, qid) is not None for aid in ids)
    return added


def _columns(plan: PoolPlan) -> dict:
    return {"method": plan.method, "depth": plan.depth, "budget": plan.budget,
            "seed": plan.seed, "overlap": plan.overlap, "repeat": plan.repeat}


def _sizes(db: Database) -> dict[str, int]:
    with db.read() as s:
        return pool_sizes(s)
