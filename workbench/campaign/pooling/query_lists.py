"""Each query's ranked lists, one per stored run, in trec_eval's order: what the pooling
methods (planning/methods.py) read when they pool the stored campaign.

An adaptive queue serves one document per grade and reads the lists every time, so they
are kept per database and rebuilt only when the stored runs change (store.run_arrays'
runs_token: a run imported, replaced or removed).
"""

from __future__ import annotations

import threading

import numpy as np

from workbench.store.run_arrays import load_stored_runs, runs_token

Lists = list[np.ndarray]  # one query: each run's document ids, best first

_cache: dict[str, tuple[tuple[int, int, int], dict[int, Lists]]] = {}
_lock = threading.Lock()
_KEEP = 4  # databases whose lists are kept (a process usually has one open)


def lists_by_query(session, cache_key: str | None = None) -> dict[int, Lists]:
    """query id -> each run's document ids (int64, trec_eval's order), runs in system id
    order (the order the methods break ties in). Queries no run retrieved for are absent."""
    conn = session.connection()
    if cache_key is None:
        return _build(conn)
    token = runs_token(conn)
    with _lock:
        hit = _cache.get(cache_key)
    if hit is not None and hit[0] == token:
        return hit[1]
    lists = _build(conn)
    with _lock:
        _cache.pop(cache_key, None)
        _cache[cache_key] = (token, lists)
        while len(_cache) > _KEEP:
            del _cache[next(iter(_cache))]  # the oldest
    return lists


def _build(conn) -> dict[int, Lists]:
    runs = load_stored_runs(conn, scores=False)  # the stored order is the ranking
    n_runs = len(runs.tags)
    system = np.repeat(np.arange(n_runs), np.diff(runs.offsets))
    order = np.lexsort((system, runs.query_id))  # stable: trec_eval's order kept within a list
    q = runs.query_id[order].astype(np.int64)
    s = system[order]
    d = runs.document_id[order].astype(np.int64)
    queries, starts = np.unique(q, return_index=True)
    ends = np.append(starts[1:], q.size)
    out: dict[int, Lists] = {}
    for qid, a, b in zip(queries.tolist(), starts.tolist(), ends.tolist()):
        bounds = a + np.searchsorted(s[a:b], np.arange(n_runs + 1))
        out[qid] = [d[bounds[r]:bounds[r + 1]] for r in range(n_runs)]
    return out


def cut(lists: Lists, depth: int | None) -> Lists:
    """The lists cut at `depth` (None: whole)."""
    return lists if depth is None else [x[:depth] for x in lists]


def best_rank(lists: Lists, doc: int) -> int:
    """The document's best 1-based rank in any list (0 when in none)."""
    ranks = [int(np.flatnonzero(x == doc)[0]) + 1 for x in lists if (x == doc).any()]
    return min(ranks, default=0)
