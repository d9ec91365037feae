"""Qrels derived from stored judgments: per assessor and the three consensus methods."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import insert, select

from tests.tui.factory import build_campaign
from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.judging.assessing import record_repeat
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.scoring.qrels import derive_qrels, majority_grade
from workbench.errors import NotFoundError, UsageError
from workbench.store.models import Adjudication, Assessor, Document, Query


def test_majority_ties_go_to_the_lower_grade():
    assert majority_grade([1, 3]) == 1
    assert majority_grade([3, 3, 1]) == 3
    assert majority_grade([2, 0, 2, 0, 1]) == 0


def mean_half_up(grades) -> int:
    """The mean consensus by its definition, in exact fractions: floor(mean + 1/2)."""
    return math.floor(Fraction(sum(grades), len(grades)) + Fraction(1, 2))


@pytest.mark.parametrize("grades, want", [
    ([1, 2], 2), ([2, 3], 3), ([0, 1, 1], 1), ([0, 0, 1], 0), ([0, 3], 2),  # 1.5 2.5 .667 .333 1.5
])
def test_mean_rounds_half_up(grades, want):
    from workbench.metrics.consensus import combine_grades

    n = len(grades)
    _, _, g = combine_grades(np.zeros(n, np.int64), np.zeros(n, np.int64), np.array(grades, np.int64), "mean")
    assert g.tolist() == [want] == [mean_half_up(grades)]


@pytest.fixture
def judged(db):
    build_campaign(db, n_queries=2, assessors=("a", "b", "c"))
    grades = {
        "a": [("q1", "d001", 1), ("q1", "d002", 3), ("q2", "d003", 0)],
        "b": [("q1", "d001", 3), ("q1", "d002", 2)],
        "c": [("q1", "d001", 3), ("q1", "d002", 1)],
    }
    for who, rows in grades.items():
        for q, d, g in rows:
            record_grade(db, who, q, d, g)
    # a repeat never changes qrels
    record_repeat(db, "a", "q1", "d001", 0)
    return db


def test_assessor_qrels(judged):
    qrels = derive_qrels(judged, QrelsSource.assessor("a"))
    assert qrels.rows() == [("q1", "d001", 1), ("q1", "d002", 3), ("q2", "d003", 0)]
    assert derive_qrels(judged, QrelsSource.assessor("a"), queries=["q2"]).rows() == [("q2", "d003", 0)]


def test_consensus_methods(judged):
    assert derive_qrels(judged, QrelsSource.consensus("majority")).rows() == [
        ("q1", "d001", 3), ("q1", "d002", 1), ("q2", "d003", 0),
    ]
    # mean: d001 (1+3+3)/3 = 2.33 -> 2; d002 (3+2+1)/3 = 2
    assert derive_qrels(judged, QrelsSource.consensus("mean")).rows() == [
        ("q1", "d001", 2), ("q1", "d002", 2), ("q2", "d003", 0),
    ]


def test_adjudicated_overrides_majority(judged):
    with judged.write.begin() as s:
        qid = s.scalar(select(Query.id).where(Query.ext_id == "q1"))
        d2 = s.scalar(select(Document.id).where(Document.ext_id == "d002"))
        d9 = s.scalar(select(Document.id).where(Document.ext_id == "d009"))
        aid = s.scalar(select(Assessor.id).where(Assessor.name == "a"))
        s.execute(insert(Adjudication), [
            {"query_id": qid, "document_id": d2, "grade": 3, "adjudicator_id": aid},
            {"query_id": qid, "document_id": d9, "grade": 2, "adjudicator_id": aid},
        ])
    assert derive_qrels(judged, QrelsSource.consensus("adjudicated")).rows() == [
        ("q1", "d001", 3), ("q1", "d002", 3), ("q1", "d009", 2), ("q2", "d003", 0),
    ]


def test_bad_sources(judged):
    with pytest.raises(NotFoundError):
        derive_qrels(judged, QrelsSource.assessor("nobody"))
    with pytest.raises(UsageError):
        derive_qrels(judged, QrelsSource.consensus("median"))
    with pytest.raises(UsageError):
        QrelsSource.of_options(assessor="a", consensus="mean")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4), st.integers(-2, 4)), max_size=60),
       st.sampled_from(["majority", "mean"]))
def test_combine_grades_follows_the_one_item_rules(rows, method):
    from workbench.metrics.consensus import combine_grades

    by_item: dict = {}
    for q, d, g in rows:
        by_item.setdefault((q, d), []).append(g)
    rule = majority_grade if method == "majority" else mean_half_up
    # a negative grade (unjudged) is no vote; an item with negative grades only keeps one
    # (an imported qrels file's -1)
    want = sorted((q, d, rule([g for g in gs if g >= 0]) if max(gs) >= 0 else majority_grade(gs))
                  for (q, d), gs in by_item.items())
    cols = [np.array([r[i] for r in rows], dtype=np.int64) for i in range(3)]
    qi, di, g = combine_grades(*cols, method)
    assert list(zip(qi.tolist(), di.tolist(), g.tolist())) == want


def test_rows_sort_by_code_point_like_python(db, tmp_path):
    """qid then docno in Python's str order (code points), whatever the script or the
    database's collation: 'Z' < 'a' < 'é' < '𝔸', and 'q10' < 'q9'."""
    from workbench.campaign.catalog.importing import import_qrels

    docs = ["𝔸", "é", "a", "Z"]
    path = tmp_path / "a.qrels"
    path.write_text("".join(f"{q} 0 {d} {i % 3}\n" for q in ("q9", "q10")
                            for i, d in enumerate(docs)), encoding="utf-8")
    import_qrels(db, path, assessor="a")
    qrels = derive_qrels(db, QrelsSource.assessor("a"))
    expected = sorted((q, d, i % 3) for q in ("q9", "q10") for i, d in enumerate(docs))
    assert qrels.rows() == expected
    assert expected[:4] == [("q10", "Z", 0), ("q10", "a", 2), ("q10", "é", 1), ("q10", "𝔸", 0)]
    assert qrels.qid.dtype == object and qrels.rel.dtype == np.int64
