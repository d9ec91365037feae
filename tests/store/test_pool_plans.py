"""store/pool_plans.py on SQLite and PostgreSQL: the plan row, and what an adaptive queue
reads per query (pool, everyone's items, one assessor's open items)."""

from __future__ import annotations

import pytest
from sqlalchemy import insert

from workbench.store.models import (
    Assessor,
    Assignment,
    Document,
    Judgment,
    JudgmentEvent,
    PoolEntry,
    Query,
)
from workbench.store.pool_plans import (
    add_pool_entry,
    assessors_with_queues,
    open_items,
    pooled_counts,
    pooled_documents,
    query_assignments,
    read_pool_plan,
    write_pool_plan,
)


def test_the_plan_row_is_written_read_and_replaced(db):
    with db.read() as s:
        assert read_pool_plan(s) is None
    with db.write.begin() as s:
        write_pool_plan(s, method="bandit", depth=None, budget=500, seed=2**62, overlap=0.25,
                        repeat=0.05)
    with db.read() as s:
        assert read_pool_plan(s) == {"method": "bandit", "depth": None, "budget": 500,
                                     "seed": 2**62, "overlap": 0.25, "repeat": 0.05}
    with db.write.begin() as s:
        write_pool_plan(s, method="depth", depth=20, budget=None)
    with db.read() as s:
        plan = read_pool_plan(s)
    assert (plan["method"], plan["depth"], plan["budget"], plan["seed"]) == ("depth", 20, None, 2**62)
    with db.write.begin() as s, pytest.raises(ValueError, match="unknown pool plan columns"):
        write_pool_plan(s, colour="red")


def test_pool_items_and_open_items_of_one_query(db):
    with db.write.begin() as s:
        q1, q2 = Query(ext_id="q1"), Query(ext_id="q2")
        docs = [Document(ext_id=f"d{i}") for i in range(4)]
        alice, bob = Assessor(name="alice"), Assessor(name="bob")
        s.add_all([q1, q2, *docs, alice, bob])
        s.flush()
        for d in docs[:3]:
            add_pool_entry(s, q1.id, d.id, 1)
        s.execute(insert(PoolEntry), [{"query_id": q2.id, "document_id": docs[3].id, "best_rank": 2}])
        s.execute(insert(Assignment), [
            {"assessor_id": alice.id, "query_id": q1.id, "document_id": docs[0].id, "position": 0, "repeat": False},
            {"assessor_id": alice.id, "query_id": q1.id, "document_id": docs[1].id, "position": 1, "repeat": False},
            {"assessor_id": alice.id, "query_id": q1.id, "document_id": docs[0].id, "position": 2, "repeat": True},
            {"assessor_id": bob.id, "query_id": q2.id, "document_id": docs[3].id, "position": 0, "repeat": False},
        ])
        s.add(Judgment(query_id=q1.id, document_id=docs[0].id, assessor_id=alice.id, grade=1))
        ids = (q1.id, q2.id, [d.id for d in docs], alice.id, bob.id)
    q1, q2, d, alice, bob = ids
    with db.read() as s:
        assert sorted(pooled_documents(s, q1)) == d[:3]
        assert pooled_counts(s) == {q1: 3, q2: 1}
        assert sorted(query_assignments(s, q1)) == sorted([
            (alice, d[0], 0, False), (alice, d[1], 1, False), (alice, d[0], 2, True)])
        assert assessors_with_queues(s) == sorted([alice, bob])
        # d0 judged; d1 not; the repeat of d0 waits for its repeat event
        assert open_items(s, alice, q1) == 2
        assert open_items(s, bob, q1) == 0 and open_items(s, bob, q2) == 1
    with db.write.begin() as s:
        s.add(JudgmentEvent(query_id=q1, document_id=d[0], assessor_id=alice, kind="repeat",
                            old_grade=1, new_grade=1))
        s.add(Judgment(query_id=q1, document_id=d[1], assessor_id=alice, grade=0))
    with db.read() as s:
        assert open_items(s, alice, q1) == 0
