"""The adaptive judging queue: with `pool --method mtf|bandit` the pool of a query grows
one document at a time, chosen from the grades given so far.

When an assessor has nothing left to judge on a query (after each grade, from the judging
screen or `workbench grade`), `serve_next` asks the method for the query's next document
(planning.methods.next_choice: the same code the simulation runs), adds it to the pool and
appends it to the queues. The choice reads every assessor's current grades on the query
(one grade per document: the lead's adjudication where there is one, else the majority,
as `score --consensus adjudicated`; relevant means >= the campaign's threshold), so
several assessors share what has been learnt. It is deterministic given the plan's seed
and the grades, and it runs one at a time with pooling (the `pool` lock), so two
assessors grading at once never get the same document served twice.

Who gets a served document: without an overlap every assessor of the judging group (the
assessors with a queue) and the assessor asking; with `--overlap`, the assessor asking,
and everyone when a seeded draw on (seed, query, document) falls below the overlap share.
Repeats: a queue item is picked for a hidden second showing by a seeded draw below the
repeat share; its copy is appended once the queue has grown `repeat_gap` items past it
(the queue grows at its end, so the copy cannot be placed ahead of time).

Blind: nothing about the choice (run, rank, method state) reaches the assessor; the new
item is an ordinary queue item.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

import numpy as np

from workbench.campaign.database import Database
from workbench.campaign.pooling.plan import PoolPlan, budget_caps, plan_in
from workbench.campaign.pooling.assign import REPEAT_GAP, SERIALIZED, repeat_gap, stable_seed
from workbench.campaign.scoring.qrels import qrels_ids
from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.pooling.query_lists import best_rank, cut, lists_by_query
from workbench.campaign.settings import campaign_threshold
from workbench.campaign.writing import write_transaction
from workbench.planning.methods import next_choice
from workbench.store.external_ids import assessor_id, assessor_names, query_id
from workbench.store.pool_plans import (
    add_pool_entry,
    assessors_with_queues,
    open_items,
    pooled_documents,
    query_assignments,
)
from workbench.store.pools import add_assignments, query_names


def serve_next(db: Database, assessor: str, query: str, *,
               on_wait: Callable[[], None] | None = None) -> bool:
    """Serve `assessor` the next document of `query` when the campaign pools adaptively
    and their queue on the query has nothing left to judge; True when a document was
    served (False: not adaptive, work left, budget spent or the runs exhausted)."""
    with db.read() as s:
        plan = plan_in(s)
        if plan is None or not plan.adaptive:
            return False
        aid, qid = assessor_id(s, assessor), query_id(s, query)
        if aid is None or qid is None or open_items(s, aid, qid):
            return False
    threshold = campaign_threshold(db)
    with write_transaction(db, serialize_as=SERIALIZED, on_wait=on_wait) as s:
        plan = plan_in(s)
        if plan is None or not plan.adaptive:
            return False
        server = QueueServer(s, plan, threshold, cache_key=db.url)
        return server.serve(aid, qid) is not None


class QueueServer:
    """Serving adaptive queues inside one write transaction (`pool` and each grade)."""

    def __init__(self, session, plan: PoolPlan, threshold: int, *, cache_key: str | None = None):
        self.s = session
        self.plan = plan
        self.threshold = threshold
        self.lists = lists_by_query(session, cache_key)
        self.qname = query_names(session)
        self.caps = budget_caps(plan.budget, [self.qname[q] for q in self.lists])
        names = assessor_names(session)
        self.names = dict(zip(names.ids.tolist(), names.names.tolist()))

    def first_document(self, qid: int) -> int | None:
        """Pool the query's first document (no queue) when its pool is empty."""
        if pooled_documents(self.s, qid):
            return None
        return self._choose_and_pool(qid)

    def serve(self, aid: int, qid: int, group: list[int] | None = None) -> int | None:
        """The next document for assessor `aid` on query `qid` (see the module docstring);
        `group` (default: every assessor with a queue) receives it without an overlap."""
        if open_items(self.s, aid, qid):
            return None
        doc = self._choose_and_pool(qid)
        if doc is None:
            return None
        if group is None:
            group = assessors_with_queues(self.s)
        everyone = self.plan.overlap is None or self.plan.overlap >= 1
        others = [a for a in group if a != aid]
        shared = everyone or _draw(self.plan.seed, "adaptive-shared", self.qname[qid], doc) < self.plan.overlap
        self._append(qid, doc, [aid] + (others if shared else []))
        return doc

    def _choose_and_pool(self, qid: int) -> int | None:
        if qid not in self.lists:
            return None
        pooled = set(pooled_documents(self.s, qid))
        cap = self.caps.get(self.qname[qid])
        if cap is not None and len(pooled) >= cap:
            return None
        lists = cut(self.lists[qid], self.plan.depth)
        _, docs, grades = qrels_ids(self.s, QrelsSource.consensus("adjudicated"), query_ids=[qid])
        known = dict(zip(docs.tolist(), (grades >= self.threshold).tolist()))
        doc = next_choice(self.plan.method, lists, known, pending=pooled - known.keys(),
                          seed=query_seed(self.plan.seed, self.qname[qid]))
        if doc is None:
            return None
        add_pool_entry(self.s, qid, doc, best_rank(lists, doc))
        return doc

    def _append(self, qid: int, doc: int, recipients: list[int]) -> None:
        """The document at the end of each recipient's queue on the query, plus the hidden
        repeat copy of the item now `repeat_gap` places back, when drawn."""
        items: dict[int, list[tuple[int, int, bool]]] = defaultdict(list)
        for a, d, pos, rep in query_assignments(self.s, qid):
            items[a].append((pos, d, rep))
        cap = self.caps.get(self.qname[qid])
        gap = repeat_gap(cap) if cap is not None else REPEAT_GAP
        rows = []
        for a in recipients:
            mine = sorted(items[a])
            if any(d == doc and not rep for _, d, rep in mine):
                continue
            pos = mine[-1][0] + 1 if mine else 0
            rows.append(_item(a, qid, doc, pos, False))
            firsts = [d for _, d, rep in mine if not rep] + [doc]
            repeated = {d for _, d, rep in mine if rep}
            back = len(firsts) - 1 - gap
            if self.plan.repeat > 0 and back >= 0:
                old = firsts[back]
                name = self.names.get(a, str(a))
                if old not in repeated and _draw(self.plan.seed, "adaptive-repeat", name,
                                                 self.qname[qid], old) < self.plan.repeat:
                    rows.append(_item(a, qid, old, pos + 1, True))
        add_assignments(self.s, rows)


def query_seed(seed: int, query: str) -> int:
    """The method's seed on one query: from the plan's seed and the query id (stable when
    queries are added, unlike a position)."""
    return stable_seed(seed, "adaptive", query) % (2**63)


def _draw(*parts: object) -> float:
    return float(np.random.default_rng(stable_seed(*parts)).random())


def _item(aid: int, qid: int, did: int, pos: int, repeat: bool) -> tuple:
    """A queue item as store.pools.add_assignments takes it (ASSIGNMENT_COLUMNS)."""
    return (aid, qid, did, pos, repeat)


__all__ = ["QueueServer", "query_seed", "serve_next"]
