"""Pooling and assignment: which (query, document) pairs get judged, by whom, in what order.

`build_pool` takes, per query, the union of the top K documents of every stored system.
A system's ranking is its results ordered the way trec_eval orders a run: by score
descending, ties broken by document id descending (plain string comparison). The stored
`rank` column is ignored, as trec_eval ignores it, so the pool holds exactly the documents
that `eval`/`score` see in the top K. The pool only grows: re-running with a larger depth
or after importing a new run adds documents and improves `best_rank`; it never removes
anything (judgments may already exist).

`assign` fills assessors' queues from the pool. Either everyone gets everything
(`overlap=None`), or each query's pool is split: a share `overlap` judged by every assessor
(so agreement can be measured) and the rest dealt out round-robin. The queue order is a
deterministic shuffle per (assessor, query); seeds come from a stable hash of the names
(`hashlib`, never Python's salted `hash()`), so the same call gives the same queues on any
machine. Re-running adds only documents no assessor of the group has yet; what an assessor
has reached (up to the last graded item) never moves, and the items not reached yet are
shuffled together with the new ones (`reshuffle_tail`), so a deeper re-pool does not put
the deeper documents last. `repeat` re-inserts a share of an assessor's new documents later in
the same query's queue as `Assignment(repeat=True)`, which the judging screen shows like any
other item (self-consistency, docs/architecture.md#rules-that-hold-everywhere).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from workbench.campaign.database import Database
from workbench.campaign.assessors.roster import get_or_create_assessor
from workbench.campaign.writing import write_transaction
from workbench.errors import UsageError
from workbench.names import check_name
from workbench.store.pools import (
    PoolArrays,
    add_assignments,
    add_pool_entries,
    lower_best_ranks,
    pool_arrays,
    pool_documents,
    pool_sizes,
    query_names,
    queue_sizes,
    queue_rows,
    queue_sizes_by_name,
    record_pool_depth,
    remove_assignments,
)
from workbench.store.run_arrays import load_stored_runs

# The lock under which pooling and assigning run one at a time (store/locking.py).
SERIALIZED = "pool"
# The two showings of a repeated document are at least this many positions apart (or half
# the queue when it is shorter): near each other, the second is recognised as a repeat.
REPEAT_GAP = 10


@dataclass(frozen=True)
class PoolSummary:
    """What `build_pool` did."""

    depth: int
    n_queries: int  # queries with at least one pooled document
    n_entries: int  # pool size after the call
    n_added: int  # new (query, document) pairs
    n_improved: int  # existing pairs whose best_rank got better
    per_query: dict[str, int] = field(default_factory=dict)  # query ext id -> pool size


@dataclass(frozen=True)
class AssessorQueue:
    """One assessor's queue after `assign`."""

    assessor: str
    n_items: int  # distinct (query, document) pairs assigned
    n_repeats: int  # hidden second showings
    n_added: int  # items (including repeats) added by this call


def stable_seed(*parts: object) -> int:
    """A 64-bit seed from names: the same on every run and machine (unlike `hash()`)."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


def _rng(*parts: object) -> np.random.Generator:
    return np.random.default_rng(stable_seed(*parts))


# --- pool ---------------------------------------------------------------------------------


def top_k_pairs(
    system_index: np.ndarray,
    query_ids: np.ndarray,
    doc_ids: np.ndarray,
    depth: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pool as arrays: unique (query, doc) pairs in the top `depth` of any system, with
    their best (1-based) rank.

    Rows must be grouped by (system, query) and in trec_eval's order within each group, as
    the stored runs are (store.run_arrays, metrics.ranking.trec_order): a row's rank is its
    place in its group, so the pool holds exactly the documents eval sees in the top K.
    """
    n = len(doc_ids)
    if n == 0 or depth <= 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    system_index = np.asarray(system_index, dtype=np.int64)
    query_ids = np.asarray(query_ids, dtype=np.int64)
    new_group = np.ones(n, dtype=bool)
    new_group[1:] = (system_index[1:] != system_index[:-1]) | (query_ids[1:] != query_ids[:-1])
    starts = np.flatnonzero(new_group)
    rank = np.arange(n) - starts[np.cumsum(new_group) - 1] + 1
    keep = rank <= depth
    q, d, rank = query_ids[keep], np.asarray(doc_ids, dtype=np.int64)[keep], rank[keep]
    # Best rank per (query, doc): sort by query, doc, rank and keep the first of each pair.
    order = np.lexsort((rank, d, q))
    q, d, rank = q[order], d[order], rank[order]
    first = np.ones(len(q), dtype=bool)
    first[1:] = (q[1:] != q[:-1]) | (d[1:] != d[:-1])
    return q[first], d[first], rank[first]


def build_pool(
    db: Database, depth: int, *, on_wait: Callable[[], None] | None = None
) -> PoolSummary:
    """Add the top `depth` documents of every system for every query to the pool (one
    transaction) and record the pool's depth in the campaign settings (the largest depth
    pooled so far: a shallower re-run adds nothing and removes nothing).

    Pooling and assigning read the whole pool, then write what is missing: they run one at
    a time (SERIALIZED), waiting for each other and for other writers (`on_wait` as in
    writing.write_transaction)."""
    if depth < 1:
        raise UsageError(f"pool depth must be at least 1, got {depth}")
    with write_transaction(db, serialize_as=SERIALIZED, on_wait=on_wait) as session:
        runs = load_stored_runs(session.connection(), scores=False)  # in trec_eval's order already
        system_index = np.repeat(np.arange(len(runs.tags)), np.diff(runs.offsets))
        q, d, best = top_k_pairs(system_index, runs.query_id, runs.document_id, depth)

        existing = pool_arrays(session)
        found, old_rank = _match_pairs(q, d, existing)
        new = ~found
        better = found & (best < old_rank)
        add_pool_entries(session, q[new], d[new], best[new])
        lower_best_ranks(session, q[better], d[better], best[better])
        record_pool_depth(session, depth, had_pool=bool(existing.query_id.size))
        per_query = pool_sizes(session)
    return PoolSummary(
        depth=depth,
        n_queries=len(per_query),
        n_entries=sum(per_query.values()),
        n_added=int(new.sum()),
        n_improved=int(better.sum()),
        per_query=per_query,
    )


def _match_pairs(q: np.ndarray, d: np.ndarray, pool: PoolArrays) -> tuple[np.ndarray, np.ndarray]:
    """For each (q, d) pair: is it in the pool, and its best rank there (0 where not)."""
    found = np.zeros(q.size, dtype=bool)
    rank = np.zeros(q.size, dtype=np.int64)
    if q.size == 0 or pool.query_id.size == 0:
        return found, rank
    width = int(max(d.max(), pool.document_id.max())) + 1
    keys = pool.query_id * width + pool.document_id  # sorted: the pool comes by (query, doc)
    wanted = q * width + d
    pos = np.minimum(np.searchsorted(keys, wanted), keys.size - 1)
    found = keys[pos] == wanted
    rank[found] = pool.best_rank[pos[found]]
    return found, rank


# --- assignment ---------------------------------------------------------------------------


def shared_count(n: int, overlap: float) -> int:
    """How many of n documents everyone judges: overlap * n rounded half up."""
    return int(np.floor(overlap * n + 0.5))


def split_pool(
    docs: list[str],
    assessors: list[str],
    overlap: float | None,
    *,
    seed: int,
    query: str,
    start: int = 0,
) -> dict[str, list[str]]:
    """Which of `docs` (one query's unassigned documents) each assessor gets.

    `overlap=None` (or >= 1, or a single assessor): everyone gets everything. Otherwise the
    documents are shuffled (seeded by query), the first round(overlap * n) go to everyone
    and the rest are dealt round-robin beginning with assessor number `start` (the caller
    carries the deal on from query to query), so shares differ by at most one document.
    """
    if overlap is None or overlap >= 1 or len(assessors) == 1:
        return {a: list(docs) for a in assessors}
    shuffled = sorted(docs)
    _rng(seed, "split", query).shuffle(shuffled)
    n_shared = shared_count(len(shuffled), overlap)
    shared, rest = shuffled[:n_shared], shuffled[n_shared:]
    out = {a: list(shared) for a in assessors}
    for i, doc in enumerate(rest):
        out[assessors[(start + i) % len(assessors)]].append(doc)
    return out


def queue_order(docs: list[str], *, seed: int, assessor: str, query: str) -> list[str]:
    """The order `assessor` sees `docs` of `query`: a shuffle seeded by (seed, assessor,
    query), independent of the order the documents came in."""
    out = sorted(docs)
    _rng(seed, "order", assessor, query).shuffle(out)
    return out


def repeat_gap(n_items: int) -> int:
    """How far apart the two showings of a repeated document must be in a queue of
    `n_items` documents: REPEAT_GAP positions, or half the queue when it is shorter."""
    return max(1, min(REPEAT_GAP, n_items // 2))


def insert_repeats(
    queue: list[str], repeats: set[str], *, seed: int, assessor: str, query: str
) -> list[tuple[str, bool]]:
    """`queue` with a second, hidden showing of each document in `repeats`. Items are
    (document, is_repeat).

    The two showings are at least `repeat_gap(len(queue))` positions apart. The new copy
    goes to a seeded random place among those far enough from the first showing, before
    or after it; the earlier of the two showings is the one graded as the judgment, the
    later one is the repeat. (Before is allowed so that a document near the end of the
    queue can be repeated too: only after it, its copy would land right beside it.)"""
    items: list[tuple[str, bool]] = [(doc, False) for doc in queue]
    gap = repeat_gap(len(queue))
    rng = _rng(seed, "repeat-place", assessor, query)
    for doc in sorted(repeats, key=queue.index):
        first = items.index((doc, False))
        # Inserting at i <= first puts the copy first+1-i places ahead; at i > first,
        # i-first places behind. Both ranges are never empty together (gap <= half).
        before = range(0, max(0, first + 2 - gap))
        after = range(first + gap, len(items) + 1)
        k = int(rng.integers(len(before) + len(after)))
        if k < len(before):
            at = before[k]
            items.insert(at, (doc, False))
            items[first + 1] = (doc, True)
        else:
            items.insert(after[k - len(before)], (doc, True))
    return items


def assign(
    db: Database,
    assessors: list[str],
    *,
    overlap: float | None = None,
    repeat: float = 0.0,
    seed: int = 0,
    on_wait: Callable[[], None] | None = None,
) -> list[AssessorQueue]:
    """Append the pool's unassigned documents to `assessors`' queues (one transaction).

    `overlap=None` gives every assessor every document; a fraction 0 <= overlap < 1 splits
    each query's new documents (see `split_pool`). A document counts as assigned when any
    assessor of the group already has it, so re-running adds only new pool documents.
    `repeat` picks round(repeat * n) of each assessor's newly added documents for a hidden
    second showing. Assessors are created if needed. Runs one at a time with `build_pool`.
    """
    if not assessors:
        raise UsageError("assign needs at least one assessor name")
    names = list(dict.fromkeys(check_name(a) for a in assessors))  # before any write
    if overlap is not None and not 0.0 <= overlap <= 1.0:
        raise UsageError(f"overlap must be between 0 and 1, got {overlap}")
    if not 0.0 <= repeat <= 1.0:
        raise UsageError(f"repeat must be between 0 and 1, got {repeat}")

    with write_transaction(db, serialize_as=SERIALIZED, on_wait=on_wait) as session:
        ids = {name: get_or_create_assessor(session, name) for name in names}
        qname = query_names(session)
        pool: dict[int, list[int]] = defaultdict(list)
        dname: dict[int, str] = {}
        for qid, did, ext in pool_documents(session):
            pool[qid].append(did)
            dname[did] = ext
        did_of = {v: k for k, v in dname.items()}

        # What the group already has, and where each assessor's queue per query ends.
        taken: dict[int, set[int]] = defaultdict(set)
        has: dict[tuple[int, int], set[int]] = defaultdict(set)
        next_pos: dict[tuple[int, int], int] = {}
        queued: dict[tuple[int, int], list[QueueRow]] = defaultdict(list)
        for row_id, aid, qid, did, pos, is_repeat, settled in queue_rows(session, list(ids.values())):
            taken[qid].add(did)
            has[(aid, qid)].add(did)
            next_pos[(aid, qid)] = max(next_pos.get((aid, qid), 0), pos + 1)
            queued[(aid, qid)].append(QueueRow(row_id, dname.get(did, ""), pos, bool(is_repeat), bool(settled)))

        # Plan per assessor: query -> new documents in queue order. Everyone-everything
        # gives each assessor what they lack; a split deals out what nobody has yet.
        everything = overlap is None or overlap >= 1 or len(names) == 1
        plan: dict[str, dict[int, list[str]]] = {name: {} for name in names}
        dealt = 0
        for qid in sorted(pool, key=lambda i: qname[i]):
            if everything:
                shares = {
                    name: [dname[d] for d in pool[qid] if d not in has[(ids[name], qid)]]
                    for name in names
                }
            else:
                new_docs = [dname[d] for d in pool[qid] if d not in taken[qid]]
                shares = split_pool(
                    new_docs, names, overlap, seed=seed, query=qname[qid], start=dealt
                )
                dealt += len(new_docs) - shared_count(len(new_docs), overlap)
            for name, docs in shares.items():
                if docs:
                    plan[name][qid] = queue_order(
                        docs, seed=seed, assessor=name, query=qname[qid]
                    )

        rows = []
        moved: list[int] = []
        added: dict[str, int] = defaultdict(int)
        for name in names:
            aid = ids[name]
            chosen = _choose_repeats(plan[name], qname, repeat, seed=seed, assessor=name)
            for qid, queue in plan[name].items():
                items = insert_repeats(
                    queue, chosen.get(qid, set()), seed=seed, assessor=name, query=qname[qid]
                )
                removed, placed = reshuffle_tail(
                    queued.get((aid, qid), []), items, next_pos.get((aid, qid), 0),
                    seed=seed, assessor=name, query=qname[qid],
                )
                moved.extend(removed)
                rows.extend(  # store.pools.ASSIGNMENT_COLUMNS
                    (aid, qid, did_of[doc], pos, is_repeat) for doc, pos, is_repeat in placed
                )
                added[name] += len(items)
        remove_assignments(session, moved)
        add_assignments(session, rows)
        counts = queue_sizes(session, list(ids.values()))
    return [
        AssessorQueue(
            assessor=name,
            n_items=counts.get((ids[name], False), 0),
            n_repeats=counts.get((ids[name], True), 0),
            n_added=added[name],
        )
        for name in names
    ]


@dataclass(frozen=True)
class QueueRow:
    """An item already in a queue, as re-pooling sees it."""

    row_id: int
    document: str
    position: int
    repeat: bool
    settled: bool  # graded or marked by this assessor


def reshuffle_tail(
    existing: list[QueueRow], new_items: list[tuple[str, bool]], next_pos: int,
    *, seed: int, assessor: str, query: str,
) -> tuple[list[int], list[tuple[str, int, bool]]]:
    """Where a re-pool puts an assessor's new items of one query: (row ids to move, and
    (document, position, is_repeat) to write, the moved rows among them).

    Appending the new documents (ranked deeper, else they would be pooled already) after the
    old ones made queue position follow rank band (Spearman 0.47 over 20 queries after depth
    5 then 30; 0.01 for one pool), which told the assessor the rank band. So the items not yet reached are shuffled
    together with the new ones: everything up to the last settled (graded or marked) item
    stays where it was, as it was shown; so do hidden repeats and their first showings (their
    distance is the blindness of the repeat). The other unsettled items and the new ones are
    interleaved at random over their slots plus the new positions at the end, the new ones
    keeping their order (so the gap of a new repeat only grows). Seeded like queue_order."""
    reached = max((r.position for r in existing if r.settled), default=-1)
    repeated = {r.document for r in existing if r.repeat}
    mobile = [r for r in existing
              if r.position > reached and not r.settled and not r.repeat and r.document not in repeated]
    appended = range(next_pos, next_pos + len(new_items))
    if not mobile:
        return [], [(doc, pos, rep) for (doc, rep), pos in zip(new_items, appended)]
    rng = _rng(seed, "repool", assessor, query, next_pos)
    slots = sorted([r.position for r in mobile] + list(appended))
    old_docs = sorted(r.document for r in mobile)
    rng.shuffle(old_docs)
    old_at = set(rng.choice(len(slots), size=len(old_docs), replace=False).tolist())
    old_iter, new_iter = iter(old_docs), iter(new_items)
    sequence = [(next(old_iter), False) if k in old_at else next(new_iter) for k in range(len(slots))]
    return [r.row_id for r in mobile], [(doc, pos, rep) for (doc, rep), pos in zip(sequence, slots)]


def _choose_repeats(
    plan: dict[int, list[str]], qname: dict[int, str], share: float, *, seed: int, assessor: str
) -> dict[int, set[str]]:
    """round(share * n) of the assessor's new (query, document) items, chosen by a seeded
    draw over all their queries (so small pools still get some repeats overall)."""
    items = [(qid, doc) for qid in sorted(plan, key=lambda i: qname[i]) for doc in sorted(plan[qid])]
    n = int(np.floor(share * len(items) + 0.5))
    if n == 0:
        return {}
    picked = _rng(seed, "repeat-pick", assessor).choice(len(items), size=n, replace=False)
    out: dict[int, set[str]] = defaultdict(set)
    for i in picked.tolist():
        qid, doc = items[i]
        out[qid].add(doc)
    return out


def queue_counts(db: Database) -> dict[str, tuple[int, int]]:
    """assessor name -> (assigned items, hidden repeats), for every assessor with a queue."""
    with db.read() as session:
        rows = queue_sizes_by_name(session)
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for name, rep, n in rows:
        out[name][1 if rep else 0] += n
    return {name: (v[0], v[1]) for name, v in sorted(out.items())}
