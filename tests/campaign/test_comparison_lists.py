"""Two systems' result lists compared per query: trec_eval order, shared documents,
Kendall tau-b over them, RBO; from run files and from the database."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sqlalchemy import insert, select

from workbench.campaign.comparison.lists import compare_lists, lists_from_db, lists_from_run, ordered
from workbench.errors import NotFoundError
from workbench.formats.trec import read_run
from workbench.metrics import correlation as corr
from tests.stored_runs import write_results
from workbench.store.models import Document, Query, System


def test_ordered_is_trec_eval_order():
    # score descending; tied scores by docno descending (c, b, a)
    assert ordered(["a", "b", "c", "z"], [1.0, 1.0, 1.0, 2.0]) == ["z", "c", "b", "a"]
    assert ordered([], []) == []


def test_compare_lists_hand_computed():
    a = {"q1": ["d1", "d2", "d3"], "q2": ["x"]}
    b = {"q1": ["d2", "d1", "d9"], "q3": ["y"]}
    report = compare_lists("A", "B", a, b, p=0.5)
    rows = {r.query: r for r in report.rows}
    assert list(rows) == ["q1", "q2", "q3"]
    q1 = rows["q1"]
    assert (q1.n_a, q1.n_b, q1.shared) == (3, 3, 2)
    assert q1.kendall_tau_b == -1.0  # d1, d2 swapped
    assert q1.rbo == pytest.approx(corr.rbo(a["q1"], b["q1"], 0.5))
    assert rows["q2"].rbo == 0.0 and rows["q2"].n_b == 0
    assert math.isnan(rows["q2"].kendall_tau_b)
    assert report.mean_rbo == pytest.approx(np.mean([q1.rbo, 0.0, 0.0]))
    assert report.mean_kendall_tau_b == -1.0
    assert report.to_json()["queries"][1]["kendall_tau_b"] is None


def test_depth_cuts_lists():
    a = {"q": ["d1", "d2", "d3", "d4"]}
    b = {"q": ["d1", "d2", "d4", "d3"]}
    full = compare_lists("A", "B", a, b)
    top2 = compare_lists("A", "B", a, b, depth=2)
    assert top2.rows[0].rbo == pytest.approx(1.0) and full.rows[0].rbo < 1.0


def test_lists_from_run(tmp_path):
    path = tmp_path / "r.run"
    path.write_text("q2 Q0 b 1 1.0 t\nq1 Q0 a 1 0.5 t\nq1 Q0 c 2 0.5 t\nq1 Q0 z 3 0.9 t\n")
    assert lists_from_run(read_run(str(path))) == {"q1": ["z", "c", "a"], "q2": ["b"]}


def test_lists_from_db(db):
    with db.write.begin() as s:
        s.add(Query(ext_id="q1"))
        s.execute(insert(Document), [{"ext_id": e} for e in ("a", "b", "c")])
        s.add(System(tag="sys"))
    with db.write.begin() as s:
        q = s.scalar(select(Query.id))
        sy = s.scalar(select(System.id))
        d = dict(s.execute(select(Document.ext_id, Document.id)).all())
        write_results(s, [
            {"system_id": sy, "query_id": q, "document_id": d[e], "score": sc}
            for e, sc in (("a", 2.0), ("b", 2.0), ("c", 3.0))
        ])
    assert lists_from_db(db, "sys") == {"q1": ["c", "b", "a"]}
    with pytest.raises(NotFoundError):
        lists_from_db(db, "nope")
