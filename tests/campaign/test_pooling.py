"""Pooling and assignment (workbench.campaign.pooling.assign) on every backend."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from sqlalchemy import func, select

from workbench.campaign.pooling.assign import (
    assign,
    build_pool,
    insert_repeats,
    queue_order,
    split_pool,
    stable_seed,
    top_k_pairs,
)
from workbench.errors import UsageError
from workbench.store.models import (
    Assessor,
    Assignment,
    Campaign,
    Document,
    PoolEntry,
    Query,
    System,
)
from tests.stored_runs import write_results


def add_runs(db, runs: dict[str, dict[str, list[tuple[str, float]]]]):
    """runs: tag -> query -> [(doc, score)]; creates missing queries and documents and
    stores each run as an import does (store.run_arrays.write_run: trec_eval's order)."""
    results = []
    with db.write.begin() as s:
        qids = {q.ext_id: q.id for q in s.scalars(select(Query))}
        dids = {d.ext_id: d.id for d in s.scalars(select(Document))}
        for tag, per_query in runs.items():
            system = System(tag=tag)
            s.add(system)
            s.flush()
            for q, docs in per_query.items():
                if q not in qids:
                    row = Query(ext_id=q, title=f"title {q}")
                    s.add(row)
                    s.flush()
                    qids[q] = row.id
                for d, score in docs:
                    if d not in dids:
                        row = Document(ext_id=d, title=d)
                        s.add(row)
                        s.flush()
                        dids[d] = row.id
                    results.append((system.id, qids[q], dids[d], score))
        write_results(s, results)


def pool_of(db) -> dict[str, dict[str, int]]:
    with db.read() as s:
        rows = s.execute(
            select(Query.ext_id, Document.ext_id, PoolEntry.best_rank)
            .join(Query, Query.id == PoolEntry.query_id)
            .join(Document, Document.id == PoolEntry.document_id)
        ).all()
    out: dict[str, dict[str, int]] = {}
    for q, d, r in rows:
        out.setdefault(q, {})[d] = r
    return out


def queues(db) -> dict[tuple[str, str], list[tuple[str, bool]]]:
    """(assessor, query) -> [(doc, repeat)] in position order."""
    with db.read() as s:
        rows = s.execute(
            select(Assessor.name, Query.ext_id, Document.ext_id, Assignment.repeat)
            .join(Assessor, Assessor.id == Assignment.assessor_id)
            .join(Query, Query.id == Assignment.query_id)
            .join(Document, Document.id == Assignment.document_id)
            .order_by(Assessor.name, Query.ext_id, Assignment.position)
        ).all()
    out: dict[tuple[str, str], list[tuple[str, bool]]] = {}
    for a, q, d, rep in rows:
        out.setdefault((a, q), []).append((d, bool(rep)))
    return out


TWO_SYSTEMS = {
    "A": {"q1": [("d1", 9.0), ("d2", 8.0), ("d3", 7.0), ("d4", 6.0)],
          "q2": [("d5", 5.0), ("d6", 4.0)]},
    "B": {"q1": [("d3", 3.0), ("d5", 2.0), ("d1", 1.0), ("d9", 0.5)],
          "q2": [("d6", 1.0)]},
}


def test_pool_is_union_of_top_k_deduplicated_with_best_rank(db):
    add_runs(db, TWO_SYSTEMS)
    summary = build_pool(db, depth=2)
    assert pool_of(db) == {
        "q1": {"d1": 1, "d2": 2, "d3": 1, "d5": 2},
        "q2": {"d5": 1, "d6": 1},
    }
    assert (summary.n_entries, summary.n_added, summary.n_queries) == (6, 6, 2)
    assert summary.per_query == {"q1": 4, "q2": 2}
    with db.read() as s:
        assert s.get(Campaign, 1).pool_depth == 2


def test_pool_follows_scores_and_breaks_ties_by_docno_descending(db):
    # Three documents tie: trec_eval would put d9, d8, d10 first (score desc; ties by
    # docno descending as plain strings: "d9" > "d8" > "d10"), whatever the file order.
    add_runs(db, {"A": {"q1": [("d10", 1.0), ("d8", 1.0), ("d9", 1.0), ("d1", 0.5)]}})
    build_pool(db, depth=2)
    assert pool_of(db) == {"q1": {"d9": 1, "d8": 2}}


def test_pool_rerun_is_idempotent_and_deeper_pool_only_adds(db):
    add_runs(db, TWO_SYSTEMS)
    build_pool(db, depth=2)
    again = build_pool(db, depth=2)
    assert (again.n_added, again.n_improved, again.n_entries) == (0, 0, 6)
    assert build_pool(db, depth=3).n_added == 0  # A@3 = d3 and B@3 = d1 are pooled already
    deeper = build_pool(db, depth=4)
    assert deeper.n_added == 2
    pool = pool_of(db)
    assert pool["q1"] == {"d1": 1, "d2": 2, "d3": 1, "d4": 4, "d5": 2, "d9": 4}
    assert pool["q2"] == {"d5": 1, "d6": 1}
    shallower = build_pool(db, depth=1)  # never removes
    assert shallower.n_entries == 8
    with db.read() as s:
        assert s.get(Campaign, 1).pool_depth == 4


def test_pool_improves_best_rank_when_a_new_run_arrives(db):
    add_runs(db, TWO_SYSTEMS)
    build_pool(db, depth=2)
    add_runs(db, {"C": {"q1": [("d2", 5.0), ("d7", 4.0)]}})
    summary = build_pool(db, depth=2)
    assert (summary.n_added, summary.n_improved) == (1, 1)
    assert pool_of(db)["q1"] == {"d1": 1, "d2": 1, "d3": 1, "d5": 2, "d7": 2}


def test_top_k_pairs_kernel():
    # rows already in trec_eval's order per (system, query)
    s = np.array([1, 1, 1, 2, 2])
    q = np.array([7, 7, 7, 7, 7])
    d = np.array([1, 0, 2, 2, 3])
    qq, dd, rr = top_k_pairs(s, q, d, 2)
    assert list(zip(qq.tolist(), dd.tolist(), rr.tolist())) == [
        (7, 0, 2), (7, 1, 1), (7, 2, 1), (7, 3, 2)]


def test_the_pool_holds_what_eval_ranks_in_the_top_k(db):
    """1.00000002 (a) and 1.00000001 (b) are one float32 but two doubles: eval (as
    trec_eval 10) ranks a first, and so does pool --depth 1 (as trec_eval 9: b, see
    tests/campaign/test_score_order.py)."""
    from workbench.metrics.evaluate import evaluate

    add_runs(db, {"A": {"q1": [("a", 1.00000002), ("b", 1.00000001)]}})
    build_pool(db, depth=1)
    assert pool_of(db)["q1"] == {"a": 1}
    ev = evaluate(["q1"], ["a"], [1], ["q1", "q1"], ["a", "b"], [1.00000002, 1.00000001], ["P.1"])
    assert ev.value("P.1", "q1") == 1.0  # a, the pooled document, is eval's rank 1


def test_pool_depth_must_be_positive(db):
    with pytest.raises(UsageError):
        build_pool(db, depth=0)


def _big_campaign(db, n_queries=4, n_docs=40):
    rng = np.random.default_rng(1)
    runs = {}
    for tag in ("A", "B"):
        runs[tag] = {
            f"q{i}": [(f"d{i}_{j}", float(rng.random())) for j in range(n_docs)]
            for i in range(n_queries)
        }
    add_runs(db, runs)
    build_pool(db, depth=n_docs)


def test_everyone_gets_everything_by_default_in_a_shuffled_order(db):
    _big_campaign(db)
    result = assign(db, ["alice", "bob"])
    assert [(r.assessor, r.n_items, r.n_repeats) for r in result] == [
        ("alice", 160, 0), ("bob", 160, 0)]
    qs = queues(db)
    pool = pool_of(db)
    for (a, q), items in qs.items():
        assert sorted(d for d, _ in items) == sorted(pool[q])
    # per (assessor, query) shuffles differ from each other and from name order
    assert [d for d, _ in qs[("alice", "q0")]] != [d for d, _ in qs[("bob", "q0")]]
    assert [d for d, _ in qs[("alice", "q0")]] != sorted(pool["q0"])


def test_queue_order_is_deterministic_and_independent_of_input_order():
    docs = [f"d{i}" for i in range(20)]
    a = queue_order(docs, seed=3, assessor="alice", query="q1")
    b = queue_order(list(reversed(docs)), seed=3, assessor="alice", query="q1")
    assert a == b and sorted(a) == sorted(docs)
    assert a != queue_order(docs, seed=4, assessor="alice", query="q1")
    assert a != queue_order(docs, seed=3, assessor="bob", query="q1")
    # stable across processes and Python versions (blake2b, not the salted hash())
    assert stable_seed("alice", "q1") == 11282031763205631597
    assert stable_seed("alice", "q1") != stable_seed("alice", "q2")


def test_same_call_on_two_databases_gives_same_queues(db, tmp_path):
    from workbench.campaign.database import Database

    other = Database.open(str(tmp_path / "other.sqlite"))
    try:
        for d in (db, other):
            _big_campaign(d, n_queries=2, n_docs=10)
            assign(d, ["alice", "bob"], overlap=0.3, repeat=0.1, seed=5)
        assert queues(db) == queues(other)
    finally:
        other.close()


@pytest.mark.parametrize("overlap", [0.0, 0.2, 0.5])
def test_split_with_overlap_shares_exact_fraction(db, overlap):
    _big_campaign(db)  # 4 queries x 40 pooled docs each (two systems, same docs)
    assign(db, ["alice", "bob", "carol"], overlap=overlap, seed=1)
    qs = queues(db)
    for q in ("q0", "q1", "q2", "q3"):
        sets = {a: {d for d, _ in qs[(a, q)]} for a in ("alice", "bob", "carol")}
        shared = sets["alice"] & sets["bob"] & sets["carol"]
        assert len(shared) == round(overlap * 40)
        union = sets["alice"] | sets["bob"] | sets["carol"]
        assert len(union) == 40  # everything judged by someone
        rest = 40 - len(shared)
        sizes = [len(s - shared) for s in sets.values()]
        assert sum(sizes) == rest and max(sizes) - min(sizes) <= 1
        # outside the shared part, nobody's documents overlap
        assert not (sets["alice"] - shared) & (sets["bob"] - shared)


def test_split_pool_function():
    docs = [f"d{i}" for i in range(10)]
    out = split_pool(docs, ["a", "b"], 0.2, seed=0, query="q")
    shared = set(out["a"]) & set(out["b"])
    assert len(shared) == 2 and len(out["a"]) == len(out["b"]) == 6
    assert split_pool(docs, ["a", "b"], None, seed=0, query="q") == {"a": docs, "b": docs}


def test_repeats_are_hidden_second_showings_later_in_the_queue(db):
    _big_campaign(db)
    result = assign(db, ["alice"], repeat=0.05, seed=2)
    assert (result[0].n_items, result[0].n_repeats) == (160, 8)  # round(0.05 * 160)
    for (_, q), items in queues(db).items():
        firsts = {}
        for pos, (d, rep) in enumerate(items):
            if rep:
                assert d in firsts and pos > firsts[d]  # a later, second showing
            else:
                assert d not in firsts  # each document once as a normal item
                firsts[d] = pos
        assert all(n == 1 for n in Counter(d for d, rep in items if rep).values())


@pytest.mark.parametrize("n", [2, 3, 7, 19, 20, 21, 40, 100])
def test_repeats_are_ten_positions_or_half_the_queue_apart(n):
    queue = [f"d{i}" for i in range(n)]
    gap = max(1, min(10, n // 2))
    for seed in range(30):
        # every document repeated, the last ones included: no copy lands beside its first
        repeats = set(queue[-3:]) | {queue[0]} | set(queue[:: max(1, n // 5)])
        items = insert_repeats(queue, repeats, seed=seed, assessor="a", query="q")
        assert sorted(d for d, r in items if not r) == sorted(queue)
        assert sorted(d for d, r in items if r) == sorted(repeats)
        for doc in repeats:
            first, second = items.index((doc, False)), items.index((doc, True))
            assert second - first >= gap, (seed, doc, first, second)


def test_a_repeat_of_the_last_document_is_not_placed_beside_it():
    """The sample database had carol's d222 at positions 27 and 28 of query 108."""
    queue = [f"d{i}" for i in range(29)]
    items = insert_repeats(queue, {"d28"}, seed=0, assessor="carol", query="108")
    first, second = items.index(("d28", False)), items.index(("d28", True))
    assert second - first >= 10


def test_assign_rerun_is_idempotent_and_appends_new_documents(db):
    add_runs(db, TWO_SYSTEMS)
    build_pool(db, depth=2)
    assign(db, ["alice", "bob"], overlap=0.5, repeat=0.2, seed=7)
    before = queues(db)
    again = assign(db, ["alice", "bob"], overlap=0.5, repeat=0.2, seed=7)
    assert [r.n_added for r in again] == [0, 0]
    assert queues(db) == before
    # a new run brings new pooled documents. What an assessor reached (up to her last
    # grade) stays in place; the rest is shuffled with the new ones
    from workbench.campaign.judging.grades import record_grade

    reached = {key: items[:2] for key, items in before.items() if len(items) >= 3}
    for (name, q), items in reached.items():
        record_grade(db, name, q, items[1][0], 1)
    add_runs(db, {"C": {"q1": [("d7", 5.0), ("d8", 4.0)], "q2": [("d9", 1.0)]}})
    build_pool(db, depth=2)
    assign(db, ["alice", "bob"], overlap=0.5, repeat=0.2, seed=7)
    after = queues(db)
    for key, items in before.items():
        assert Counter(items) <= Counter(after[key])  # nothing lost
        if key in reached:
            assert after[key][:2] == reached[key]
    new = {d for key, items in after.items() for d, _ in (Counter(items) - Counter(before.get(key, [])))}
    assert {"d7", "d8", "d9"} <= new
    with db.read() as s:
        pairs = s.execute(select(Assignment.assessor_id, Assignment.query_id,
                                 Assignment.document_id, Assignment.repeat)).all()
    assert len(pairs) == len(set(pairs))  # no duplicate items


def test_new_assessor_in_everyone_mode_gets_the_whole_pool(db):
    add_runs(db, TWO_SYSTEMS)
    build_pool(db, depth=2)
    assign(db, ["alice"])
    result = assign(db, ["alice", "dave"])
    assert [(r.assessor, r.n_items, r.n_added) for r in result] == [
        ("alice", 6, 0), ("dave", 6, 6)]


def test_assign_rejects_bad_arguments(db):
    with pytest.raises(UsageError):
        assign(db, [])
    with pytest.raises(UsageError):
        assign(db, ["a"], overlap=1.5)
    with pytest.raises(UsageError):
        assign(db, ["a"], repeat=-0.1)


# --- two `pool` at once (PostgreSQL raced on pk_pool_entry and the queue positions) -------


def test_two_pools_at_once_both_succeed_and_pool_once(db):
    """The second pool used to fail on pk_pool_entry (PostgreSQL): it inserted the pairs the
    first had inserted but not committed. Pooling now runs one at a time."""
    from tests.reliability.conftest import race

    add_runs(db, {"A": {"q1": [("d1", 3.0), ("d2", 2.0), ("d3", 1.0)]},
                  "B": {"q1": [("d4", 3.0), ("d1", 2.0)]}})
    out = race(lambda: build_pool(db, 2), lambda: build_pool(db, 2))
    assert [out["first"].n_added, out["second"].n_added] == [3, 0]
    with db.read() as s:
        assert sorted(s.execute(select(PoolEntry.document_id, PoolEntry.best_rank)).all()) == [
            (1, 1), (2, 2), (4, 1)]


def test_two_assigns_to_the_same_new_assessor_at_once_assign_each_document_once(db):
    """Both used to read an empty queue and write positions 0.. (and create the assessor
    twice): the second failed on a unique key. Now the second finds the queue full."""
    from tests.reliability.conftest import race

    add_runs(db, {"A": {"q1": [("d1", 3.0), ("d2", 2.0)], "q2": [("d3", 1.0)]}})
    build_pool(db, 5)
    out = race(lambda: assign(db, ["ann"]), lambda: assign(db, ["ann"]))
    assert [q.n_added for q in out["first"]] == [3]
    assert [q.n_added for q in out["second"]] == [0]
    with db.read() as s:
        rows = s.execute(select(Assignment.query_id, Assignment.document_id, Assignment.position)).all()
        assert s.scalar(select(func.count()).select_from(Assessor)) == 1
    assert len(rows) == 3 and len({(q, d) for q, d, _ in rows}) == 3
    assert sorted((q, p) for q, _, p in rows) == [(1, 0), (1, 1), (2, 0)]
