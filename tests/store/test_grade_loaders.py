"""Grade loaders (store/judgment_arrays.py) and id lookups (store/external_ids.py): real
values out of a small campaign written row by row, on both backends."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import insert, select

from workbench.store import external_ids as ext
from workbench.store.judgment_arrays import (
    adjudicated_grades,
    assessors_not_only_adjudicating,
    current_judgments,
    grading_assessors,
    judgment_grades,
)
from workbench.store.models import Adjudication, Assessor, Document, Judgment, Query


@pytest.fixture
def grades(db):
    """q1, q2; documents a, b, c; alice and bob grade, lead only adjudicates, zoe has no row.

    judgments: (q1 a alice 2) (q1 a bob 1) (q1 b alice 0) (q2 c bob 3)
    adjudication: (q1 a 3 by lead)"""
    with db.write.begin() as s:
        s.execute(insert(Query), [{"ext_id": "q1"}, {"ext_id": "q2"}])
        s.execute(insert(Document), [{"ext_id": e} for e in ("a", "b", "c")])
        s.execute(insert(Assessor), [{"name": n} for n in ("bob", "lead", "alice", "zoe")])
        q = dict(s.execute(select(Query.ext_id, Query.id)).all())
        d = dict(s.execute(select(Document.ext_id, Document.id)).all())
        a = dict(s.execute(select(Assessor.name, Assessor.id)).all())
        s.execute(insert(Judgment), [
            {"query_id": q[qq], "document_id": d[dd], "assessor_id": a[aa], "grade": g}
            for qq, dd, aa, g in (("q1", "a", "alice", 2), ("q1", "a", "bob", 1),
                                  ("q1", "b", "alice", 0), ("q2", "c", "bob", 3))
        ])
        s.execute(insert(Adjudication), [
            {"query_id": q["q1"], "document_id": d["a"], "grade": 3, "adjudicator_id": a["lead"]}
        ])
    return db, q, d, a


def _sorted(*columns):
    """Rows of parallel arrays as sorted tuples (the loaders promise no order)."""
    for c in columns:
        assert c.dtype == np.int64
    return sorted(zip(*(c.tolist() for c in columns)))


def test_judgment_grades_of_everyone_one_assessor_and_some_queries(grades):
    db, q, d, a = grades
    with db.read() as s:
        every = judgment_grades(s)
        alice = judgment_grades(s, assessor_id=a["alice"])
        q2 = judgment_grades(s, query_ids=[q["q2"]])
        none = judgment_grades(s, query_ids=[])
    assert _sorted(every.query_id, every.document_id, every.grade) == sorted([
        (q["q1"], d["a"], 2), (q["q1"], d["a"], 1), (q["q1"], d["b"], 0), (q["q2"], d["c"], 3)])
    assert _sorted(alice.query_id, alice.document_id, alice.grade) == sorted([
        (q["q1"], d["a"], 2), (q["q1"], d["b"], 0)])
    assert _sorted(q2.query_id, q2.document_id, q2.grade) == [(q["q2"], d["c"], 3)]
    assert none.grade.size == 0 and none.grade.dtype == np.int64


def test_current_judgments_carry_the_assessor(grades):
    db, q, d, a = grades
    with db.read() as s:
        bob = current_judgments(s, assessor_ids=[a["bob"]])
        q1 = current_judgments(s, query_ids=[q["q1"]], assessor_ids=[a["alice"], a["bob"]])
    assert _sorted(bob.query_id, bob.document_id, bob.assessor_id, bob.grade) == sorted([
        (q["q1"], d["a"], a["bob"], 1), (q["q2"], d["c"], a["bob"], 3)])
    assert _sorted(q1.query_id, q1.document_id, q1.assessor_id, q1.grade) == sorted([
        (q["q1"], d["a"], a["alice"], 2), (q["q1"], d["a"], a["bob"], 1),
        (q["q1"], d["b"], a["alice"], 0)])


def test_adjudicated_grades(grades):
    db, q, d, a = grades
    with db.read() as s:
        final = adjudicated_grades(s)
        q2 = adjudicated_grades(s, query_ids=[q["q2"]])
    assert _sorted(final.query_id, final.document_id, final.grade) == [(q["q1"], d["a"], 3)]
    assert q2.grade.size == 0


def test_assessor_lists(grades):
    db, q, d, a = grades
    with db.read() as s:
        assert grading_assessors(s) == ["alice", "bob"]
        agreeing = assessors_not_only_adjudicating(s)  # zoe has nothing yet: still listed
        everyone = ext.assessor_names(s)
    assert agreeing.names.tolist() == ["alice", "bob", "zoe"]
    assert agreeing.ids.tolist() == [a["alice"], a["bob"], a["zoe"]]
    assert everyone.names.tolist() == ["alice", "bob", "lead", "zoe"]
    assert everyone.ids.tolist() == [a["alice"], a["bob"], a["lead"], a["zoe"]]


def test_ids_by_external_id_and_back(grades):
    db, q, d, a = grades
    with db.read() as s:
        assert ext.query_id(s, "q2") == q["q2"] and ext.query_id(s, "nope") is None
        assert ext.document_id(s, "b") == d["b"] and ext.document_id(s, "B") is None
        assert sorted(ext.query_ids(s, ["q1", "q2", "nope"])) == sorted([q["q1"], q["q2"]])
        assert ext.assessor_id(s, "bob") == a["bob"] and ext.assessor_id(s, "eve") is None
        wanted = np.array([d["c"], d["a"], d["c"]], dtype=np.int64)
        assert ext.document_ext_ids(s, wanted).tolist() == ["c", "a", "c"]
        assert ext.query_ext_ids(s, np.array([q["q2"], q["q1"]])).tolist() == ["q2", "q1"]
        assert ext.query_ext_ids(s, np.empty(0, np.int64)).tolist() == []


def test_many_ids_are_named_through_the_judged_items(grades, monkeypatch):
    """Past _IN_LIST ids the names come from one read of every judged/adjudicated id."""
    db, q, d, a = grades
    monkeypatch.setattr(ext, "_IN_LIST", 1)
    with db.read() as s:
        wanted = np.array([d["b"], d["a"], d["c"], d["a"]], dtype=np.int64)
        assert ext.document_ext_ids(s, wanted).tolist() == ["b", "a", "c", "a"]
        assert ext.query_ext_ids(s, np.array([q["q2"], q["q1"]])).tolist() == ["q2", "q1"]


def test_add_assessor_returns_the_existing_row(grades):
    db, q, d, a = grades
    with db.write.begin() as s:
        assert ext.add_assessor(s, "bob") == a["bob"]
        new = ext.add_assessor(s, "eve")
    with db.read() as s:
        assert ext.assessor_id(s, "eve") == new
        assert new not in a.values()
