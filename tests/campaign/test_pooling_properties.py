"""Property tests of the pooling kernels against plain-Python reference versions."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.campaign.pooling.assign import shared_count, split_pool, top_k_pairs
from workbench.metrics.ranking import trec_order

rows = st.lists(
    st.tuples(
        st.integers(1, 3),  # system
        st.integers(1, 3),  # query
        st.integers(0, 9),  # doc key
        st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0]),  # few scores: many ties
    ),
    max_size=60,
)


def reference_pool(data, depth):
    """Per (system, query): dedupe docs (a run lists a doc once), order by score desc then
    doc key desc, keep the top `depth`; then the best rank per (query, doc)."""
    runs: dict[tuple[int, int], list[tuple[float, int]]] = {}
    for s, q, d, score in data:
        runs.setdefault((s, q), []).append((score, d))
    best: dict[tuple[int, int], int] = {}
    for (s, q), items in runs.items():
        for rank, (_, d) in enumerate(sorted(items, reverse=True)[:depth], start=1):
            best[(q, d)] = min(best.get((q, d), rank), rank)
    return sorted((q, d, r) for (q, d), r in best.items())


@settings(max_examples=150, deadline=None)
@given(rows, st.integers(1, 6))
def test_top_k_pairs_matches_reference(data, depth):
    # one row per (system, query, doc), as in the result table
    seen, unique = set(), []
    for s, q, d, score in data:
        if (s, q, d) not in seen:
            seen.add((s, q, d))
            unique.append((s, q, d, score))
    arr = np.array(unique, dtype=float).reshape(-1, 4)
    s, q, d = (arr[:, c].astype(np.int64) for c in range(3))
    # rows in trec_eval's order per (system, query), as the stored runs hold them; doc keys
    # as zero-padded docnos so that byte order is key order
    order = trec_order(s * 100 + q, arr[:, 3], np.array([b"d%02d" % k for k in d.tolist()], dtype="S"))
    q, d, r = top_k_pairs(s[order], q[order], d[order], depth)
    assert sorted(zip(q.tolist(), d.tolist(), r.tolist())) == reference_pool(unique, depth)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 60), st.integers(1, 5), st.floats(0.0, 0.99), st.integers(0, 7))
def test_split_pool_shares_exactly_and_balances(n, k, overlap, start):
    docs = [f"d{i}" for i in range(n)]
    names = [f"a{i}" for i in range(k)]
    out = split_pool(docs, names, overlap, seed=1, query="q", start=start)
    sets = [set(out[a]) for a in names]
    assert all(len(s) == len(out[a]) for s, a in zip(sets, names))  # no duplicates
    assert set().union(*sets) == set(docs)  # everything judged by someone
    if k == 1:
        assert out[names[0]] == docs
        return
    shared = set.intersection(*sets)
    assert len(shared) == shared_count(n, overlap)
    rest = [s - shared for s in sets]
    assert sum(len(r) for r in rest) == n - len(shared)  # the rest is dealt, not shared
    assert max(len(r) for r in rest) - min(len(r) for r in rest) <= 1
