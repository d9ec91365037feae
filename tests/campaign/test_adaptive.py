"""Adaptive pools on the stored campaign (campaign/pooling/adaptive.py, build.py): the queue
served one document per grade follows the method worked by hand, is reproducible, shares
everyone's grades, respects the budget and keeps repeats and blindness."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import func, select

from tests.stored_runs import write_results
from workbench.campaign.judging import assessing
from workbench.campaign.pooling.adaptive import query_seed, serve_next
from workbench.campaign.pooling.plan import budget_caps
from workbench.campaign.pooling.build import make_pool
from workbench.planning.methods import bandit_order, mtf_order
from workbench.store.models import Document, PoolEntry, Query, System

# Three runs on one query, by document number (the hand-worked case of
# tests/planning/test_planning.py): relevant documents 1, 5, 6, 9.
LISTS = [[1, 2, 3, 4], [5, 1, 6, 7], [8, 9, 5, 2]]
RELEVANT = {1, 5, 6, 9}
# Move-to-front by hand: A (priority 0) gives 1 (relevant, keeps the turn), 2 (not: A -1);
# B (0) gives 5, skips 1 (judged), 6, then 7 (not: B -1); C (0) gives 8 (not: C -1); all at
# -1, A first: 3 (not: A -2); B is exhausted; C gives 9 (relevant), then 5 and 2 are judged:
# exhausted; A gives 4.
MTF_BY_HAND = [1, 2, 5, 6, 7, 8, 3, 9, 4]


def doc(n: int) -> str:
    return f"d{n}"


@pytest.fixture
def three_runs(db):
    """Queries q1 and q2, documents d1..d9, runs A, B, C ranking LISTS on both queries."""
    with db.write.begin() as s:
        queries = [Query(ext_id="q1"), Query(ext_id="q2")]
        docs = {n: Document(ext_id=doc(n), title=f"title {n}", text=f"text of document {n}")
                for n in range(1, 10)}
        systems = [System(tag=t) for t in ("runA", "runB", "runC")]
        s.add_all(queries + list(docs.values()) + systems)
        s.flush()
        write_results(s, [
            (system.id, q.id, docs[n].id, 10.0 - rank)
            for q in queries for system, ranked in zip(systems, LISTS)
            for rank, n in enumerate(ranked)
        ])
    return db


def grade_through_queue(db, assessor: str, query: str, relevant=RELEVANT, limit: int = 50):
    """Judge `assessor`'s queue on `query` as it grows (1 for a relevant document, else 0):
    the documents in the order they were served."""
    seen = []
    for _ in range(limit):
        queue = assessing.load_queue(db, assessor, query)
        at = queue.first_unjudged()
        if at is None:
            break
        item = queue.items[at]
        n = int(item.document[1:])
        assessing.grade_item(db, assessor, query, item, 1 if n in relevant else 0)
        serve_next(db, assessor, query)
        if not item.repeat:
            seen.append(n)
    return seen


def pool_of(db, query: str) -> set[int]:
    with db.read() as s:
        return {int(d[1:]) for d in s.scalars(
            select(Document.ext_id).join(PoolEntry, PoolEntry.document_id == Document.id)
            .join(Query, Query.id == PoolEntry.query_id).where(Query.ext_id == query))}


def test_mtf_queue_is_the_order_worked_by_hand(three_runs):
    db = three_runs
    run = make_pool(db, "mtf", assessors=["alice"])
    assert run.n_entries == 2 and run.per_query == {"q1": 1, "q2": 1}  # one document each
    assert [it.document for it in assessing.load_queue(db, "alice", "q1").items] == ["d1"]
    assert grade_through_queue(db, "alice", "q1") == MTF_BY_HAND
    assert mtf_order([np.array(x) for x in LISTS], RELEVANT.__contains__, 100) == MTF_BY_HAND
    assert pool_of(db, "q1") == set(range(1, 10)) and pool_of(db, "q2") == {1}


def test_bandit_queue_replays_the_simulated_order(three_runs):
    db = three_runs
    make_pool(db, "bandit", assessors=["alice"], seed=11)
    served = grade_through_queue(db, "alice", "q2")
    lists = [np.array(x) for x in LISTS]
    assert served == bandit_order(lists, RELEVANT.__contains__, 100, seed=query_seed(11, "q2"))
    assert sorted(served) == list(range(1, 10))


def test_same_seed_and_grades_give_the_same_queue(three_runs, tmp_path):
    from workbench.campaign.database import Database

    db = three_runs
    make_pool(db, "bandit", assessors=["alice"], seed=5)
    first = grade_through_queue(db, "alice", "q1")
    # a second campaign, same runs, same seed and grades
    other = Database.open(str(tmp_path / "again.sqlite"))
    try:
        _copy_runs(db, other)
        make_pool(other, "bandit", assessors=["alice"], seed=5)
        assert grade_through_queue(other, "alice", "q1") == first
    finally:
        other.close()


def _copy_runs(src, dst):
    from tests.stored_runs import stored_results

    with dst.write.begin() as s:
        queries = {q: Query(ext_id=q) for q in ("q1", "q2")}
        docs = {n: Document(ext_id=doc(n)) for n in range(1, 10)}
        systems = {t: System(tag=t) for t in ("runA", "runB", "runC")}
        s.add_all(list(queries.values()) + list(docs.values()) + list(systems.values()))
        s.flush()
        write_results(s, [
            (systems[t].id, queries[q].id, docs[int(d[1:])].id, score)
            for t in systems for q, d, _, score in stored_results(src, t)
        ])


def test_several_assessors_share_what_is_learnt(three_runs):
    """alice and bob both judge every served document; the order follows their joint
    (majority) grades: alice's grades alone decide until bob's arrive."""
    db = three_runs
    make_pool(db, "mtf", assessors=["alice", "bob"])
    alice = grade_through_queue(db, "alice", "q1")
    assert alice == MTF_BY_HAND
    # bob's queue holds every document served, in the order served
    bob_queue = [int(it.document[1:]) for it in assessing.load_queue(db, "bob", "q1").items]
    assert bob_queue == MTF_BY_HAND
    assert grade_through_queue(db, "bob", "q1") == MTF_BY_HAND
    assert pool_of(db, "q1") == set(range(1, 10))


def test_split_queues_never_serve_a_document_twice(three_runs):
    db = three_runs
    make_pool(db, "mtf", assessors=["alice", "bob"], overlap=0.0)
    a0 = [it.document for it in assessing.load_queue(db, "alice", "q1").items]
    b0 = [it.document for it in assessing.load_queue(db, "bob", "q1").items]
    assert len(a0) == len(b0) == 1 and a0 != b0  # each has a first document of their own
    a = grade_through_queue(db, "alice", "q1", limit=3)
    b = grade_through_queue(db, "bob", "q1", limit=3)
    assert not set(a) & set(b)
    with db.read() as s:
        n_pool = s.scalar(select(func.count()).select_from(PoolEntry).join(
            Query, Query.id == PoolEntry.query_id).where(Query.ext_id == "q1"))
    assert n_pool == len(set(a) | set(b)) + 2  # plus one served next to each of them


def test_budget_caps_the_pool_per_query(three_runs):
    db = three_runs
    assert budget_caps(7, ["q2", "q1", "q10"]) == {"q1": 3, "q10": 2, "q2": 2}
    make_pool(db, "mtf", budget=5, assessors=["alice"])
    assert grade_through_queue(db, "alice", "q1") == MTF_BY_HAND[:3]
    assert grade_through_queue(db, "alice", "q2") == MTF_BY_HAND[:2]
    assert not serve_next(db, "alice", "q1")


def test_depth_with_a_budget_takes_the_depth_order(three_runs):
    db = three_runs
    run = make_pool(db, "depth", depth=2, budget=7, assessors=["alice"])
    # depth order: 1 5 8 (rank 1 of A B C), 2 9 (rank 2; B's 1 is pooled): q1 gets 4, q2 3
    assert pool_of(db, "q1") == {1, 5, 8, 2} and pool_of(db, "q2") == {1, 5, 8}
    assert run.n_entries == 7 and run.plan.method == "depth"
    assert not serve_next(db, "alice", "q1")  # depth pools never grow by themselves


def test_repeats_come_back_later_in_a_growing_queue(three_runs):
    db = three_runs
    make_pool(db, "mtf", assessors=["alice"], repeat=1.0, budget=18)
    grade_through_queue(db, "alice", "q1")
    items = assessing.load_queue(db, "alice", "q1").items
    firsts = {it.document: i for i, it in enumerate(items) if not it.repeat}
    repeats = [(it.document, i) for i, it in enumerate(items) if it.repeat]
    # cap 9 on q1: repeat gap 4; every first showing 4 places from the end gets its copy
    assert [d for d, _ in repeats] == [doc(n) for n in MTF_BY_HAND[:5]]
    assert all(i - firsts[d] >= 4 for d, i in repeats)
    assert all(it.judged for it in items)


def test_the_served_queue_is_blind(three_runs):
    db = three_runs
    make_pool(db, "mtf", assessors=["alice"])
    grade_through_queue(db, "alice", "q1", limit=4)
    queue = assessing.load_queue(db, "alice", "q1")
    shown = repr(queue)
    assert all(tag not in shown for tag in ("runA", "runB", "runC", "mtf", "priority"))
    assert [it.document for it in queue.items] == [doc(n) for n in MTF_BY_HAND[:5]]
