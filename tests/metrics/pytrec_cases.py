"""Shared by the differential tests against pytrec_eval: generated collections (qrels and
run as nested dicts, as pytrec_eval takes them) and their flattening into the parallel
lists `evaluate` takes."""

from __future__ import annotations

from hypothesis import strategies as st

DOCS = [f"d{i}" for i in range(10)] + ["a", "zz"]


@st.composite
def collections(draw):
    qrels: dict[str, dict[str, int]] = {}
    for q in draw(st.lists(st.sampled_from(["1", "2", "q3"]), min_size=1, max_size=3, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        grades = {d: draw(st.integers(-1, 4)) for d in docs}
        if all(g < 0 for g in grades.values()):
            grades[docs[0]] = draw(st.integers(0, 4))  # trec_eval reads stale memory
        qrels[q] = grades
    run: dict[str, dict[str, float]] = {}
    for q in draw(st.lists(st.sampled_from(["1", "2", "q3", "9"]), min_size=1, max_size=4, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=12, unique=True))
        run[q] = {d: draw(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5])) for d in docs}
    return qrels, run


def flat(d):
    """{query: {key: value}} as three parallel lists (query, key, value)."""
    q, k, v = [], [], []
    for qid, inner in d.items():
        for key, val in inner.items():
            q.append(qid)
            k.append(key)
            v.append(val)
    return q, k, v
