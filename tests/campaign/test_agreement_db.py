"""Agreement use cases over the database (SQLite, and PostgreSQL when configured) and over
qrels files: the same numbers as the metrics on the equivalent label arrays."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sqlalchemy import insert, select, update

from workbench.campaign.agreement.report import (
    agreement_from_db,
    agreement_from_qrels_files,
    labels_from_rows,
    load_labels,
)
from workbench.campaign.judging.grades import record_grade
from workbench.errors import InputError, NotFoundError, UsageError, WorkbenchError
from workbench.metrics import agreement as ag
from workbench.store.models import Assessor, Campaign, Document, Judgment, Query

GRADES = {
    # (query, doc): alice, bob, carol (None = not judged)
    ("q1", "d1"): (3, 3, 2),
    ("q1", "d2"): (0, 0, 0),
    ("q1", "d3"): (2, 1, None),
    ("q2", "d1"): (1, 1, 1),
    ("q2", "d4"): (0, 2, 0),
    ("q2", "d5"): (None, 3, 3),
}
NAMES = ("alice", "bob", "carol")


def _matrix():
    return np.array([[-1 if g is None else g for g in row] for row in GRADES.values()])


@pytest.fixture
def judged(db):
    with db.write.begin() as s:
        s.add_all([Query(ext_id="q1"), Query(ext_id="q2")])
        s.add_all([Document(ext_id=f"d{i}") for i in range(1, 6)])
    for (q, d), row in GRADES.items():
        for name, grade in zip(NAMES, row):
            if grade is not None:
                record_grade(db, name, q, d, grade)
    return db


def test_load_labels_pivots_current_grades(judged):
    # a changed grade counts as its latest value, a cleared one not at all
    record_grade(judged, "alice", "q1", "d2", 1)
    record_grade(judged, "alice", "q1", "d2", 0)
    labels = load_labels(judged)
    assert labels.assessors == NAMES
    items = list(zip(labels.queries.tolist(), labels.documents.tolist()))
    assert items == list(GRADES)
    assert labels.grades.tolist() == _matrix().tolist()


def test_agreement_from_db_matches_metrics_on_arrays(judged):
    report = agreement_from_db(judged)
    m = _matrix()
    assert report.assessors == NAMES
    assert report.n_items == 6
    ab = report.pairs[0]
    assert (ab.a, ab.b) == ("alice", "bob")
    assert ab.stats.n == 5
    assert ab.stats.observed == pytest.approx(3 / 5)
    assert ab.stats.cohen_kappa == pytest.approx(ag.cohen_kappa(m[:, 0], m[:, 1]))
    assert ab.stats.weighted_kappa_quadratic == pytest.approx(
        ag.weighted_kappa(m[:, 0], m[:, 1], "quadratic")
    )
    assert [(p.a, p.b) for p in report.pairs] == [("alice", "bob"), ("alice", "carol"), ("bob", "carol")]
    assert report.fleiss_kappa == pytest.approx(ag.fleiss_kappa(m))
    assert report.alpha_ordinal == pytest.approx(ag.krippendorff_alpha(m, "ordinal"))


def test_agreement_from_db_subset_binary_and_per_query(judged):
    report = agreement_from_db(judged, ["carol", "alice"], binary=True, per_query=True)
    assert report.assessors == ("carol", "alice")
    assert report.threshold == 1  # the campaign's threshold
    m = ag.binarize(_matrix()[:, [2, 0]], 1)
    # both judged: q1 d1 (1,1), q1 d2 (0,0), q2 d1 (1,1), q2 d4 (0,0) -> perfect
    assert report.pairs[0].stats.n == 4
    assert report.pairs[0].stats.cohen_kappa == pytest.approx(1.0)
    assert report.alpha_nominal == pytest.approx(ag.krippendorff_alpha(m))
    assert [q.query for q in report.per_query] == ["q1", "q2"]
    assert report.per_query[0].n_items == 2


def test_campaign_threshold_is_used_for_binary(judged):
    with judged.write.begin() as s:
        s.execute(update(Campaign).where(Campaign.id == 1).values(relevance_threshold=2))
    report = agreement_from_db(judged, ["alice", "bob"], binary=True)
    m = ag.binarize(_matrix()[:, :2], 2)
    assert report.threshold == 2
    assert report.pairs[0].stats.cohen_kappa == pytest.approx(ag.cohen_kappa(m[:, 0], m[:, 1]))


def test_unknown_or_too_few_assessors(judged):
    with pytest.raises(NotFoundError):
        agreement_from_db(judged, ["alice", "nobody"])
    with pytest.raises(UsageError):
        agreement_from_db(judged, ["alice"])


def test_notes_example_through_the_database(db):
    # docs/architecture.md#worked-examples, 400 items; stored as current judgments of two assessors.
    a = [1] * 300 + [0] * 70 + [1] * 20 + [0] * 10
    b = [1] * 300 + [0] * 70 + [0] * 20 + [1] * 10
    with db.write.begin() as s:
        s.add(Query(ext_id="q"))
        s.add_all([Assessor(name="judge1"), Assessor(name="judge2")])
        s.execute(insert(Document), [{"ext_id": f"d{i:03d}"} for i in range(400)])
    with db.write.begin() as s:
        qid = s.scalar(select(Query.id))
        docs = dict(s.execute(select(Document.ext_id, Document.id)).all())
        aids = dict(s.execute(select(Assessor.name, Assessor.id)).all())
        rows = [
            {"query_id": qid, "document_id": docs[f"d{i:03d}"], "assessor_id": aids[name], "grade": g}
            for name, grades in (("judge1", a), ("judge2", b))
            for i, g in enumerate(grades)
        ]
        s.execute(insert(Judgment), rows)
    report = agreement_from_db(db)
    pair = report.pairs[0].stats
    assert pair.n == 400 and pair.observed == pytest.approx(0.925)
    assert round(pair.expected_pooled, 4) == 0.6653
    assert round(pair.pooled_kappa, 4) == 0.7759
    assert round(pair.cohen_kappa, 4) == 0.7761
    assert ag.interpret(pair.pooled_kappa) == "acceptable"


def test_empty_database_gives_undefined_values(db):
    """Assessors without grades do not count; named, they give undefined
    values and a pair that is summarised, not listed."""
    with db.write.begin() as s:
        s.add_all([Assessor(name="x"), Assessor(name="y")])
    with pytest.raises(WorkbenchError, match="at least two assessors with grades; got 0"):
        agreement_from_db(db)
    report = agreement_from_db(db, ["x", "y"])
    assert report.n_items == 0 and report.pairs == [] and report.pairs_without_common_items == 1
    assert report.to_json()["fleiss_kappa"] is None


# ---------------------------------------------------------------- files


def _write(path, rows):
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in rows))
    return str(path)


def test_qrels_files_same_as_db(tmp_path, judged):
    paths = []
    for i, name in enumerate(NAMES):
        rows = [(q, d, row[i]) for (q, d), row in GRADES.items() if row[i] is not None]
        paths.append(_write(tmp_path / f"{name}.qrels", rows))
    from_files = agreement_from_qrels_files(paths, names=NAMES)
    from_db = agreement_from_db(judged)
    assert json.dumps(from_files.to_json()) == json.dumps(from_db.to_json())


def test_qrels_negative_grade_is_missing(tmp_path):
    a = _write(tmp_path / "a", [("q1", "d1", 1), ("q1", "d2", -1), ("q1", "d3", 0)])
    b = _write(tmp_path / "b", [("q1", "d1", 1), ("q1", "d2", 1), ("q1", "d3", 0)])
    report = agreement_from_qrels_files([a, b])
    assert report.pairs[0].stats.n == 2
    assert report.assessors == (a, b)


def test_bad_qrels_file_names_file_and_line(tmp_path):
    a = _write(tmp_path / "a", [("q1", "d1", 1)])
    bad = tmp_path / "bad"
    bad.write_text("q1 0 d1 1\nq1 0 d2 high\n")
    with pytest.raises(InputError) as err:
        agreement_from_qrels_files([a, str(bad)])
    assert f"{bad}:2" in str(err.value)


def test_labels_from_rows_handles_byte_ids():
    labels = labels_from_rows(
        ["x", "y"],
        np.array([b"q2", b"q1", b"q1"]),
        np.array([b"d1", b"d1", b"d1"]),
        [0, 0, 1],
        [2, 1, 1],
    )
    assert labels.queries.tolist() == ["q1", "q2"]
    assert labels.grades.tolist() == [[1, 1], [2, -1]]


def test_self_consistency_from_blind_repeats(judged):
    """alice repeats four of her items: two the same, q1/d3 (2 -> 1) and q2/d4 (0 -> 3)
    differ. Her repeats against her earlier grades: n 4, P(A) 2/4, kappa as sklearn's."""
    from sklearn.metrics import cohen_kappa_score

    from workbench.campaign.judging.assessing import record_repeat

    repeats = [("q1", "d1", 3), ("q1", "d2", 0), ("q1", "d3", 1), ("q2", "d4", 3)]
    for q, d, g in repeats:
        record_repeat(judged, "alice", q, d, g)
    report = agreement_from_db(judged)
    (own,) = report.self_consistency  # bob and carol repeated nothing
    first = [GRADES[(q, d)][0] for q, d, _ in repeats]
    again = [g for _, _, g in repeats]
    assert (own.assessor, own.n, own.observed) == ("alice", 4, 0.5)
    assert own.cohen_kappa == pytest.approx(cohen_kappa_score(first, again))
    data = report.to_json()
    assert data["self"] == [{"assessor": "alice", "n": 4, "observed": 0.5,
                             "cohen_kappa": pytest.approx(own.cohen_kappa)}]
    assert any("alice repeated only 4 items" in w for w in data["warnings"])
    # a later change of the judgment does not rewrite what the repeat was compared with
    record_grade(judged, "alice", "q1", "d3", 1)
    assert agreement_from_db(judged).self_consistency[0].observed == 0.5


def test_only_assessors_with_grades_count_and_disjoint_pairs_are_summarised(db):
    """302 assessors without grades took 30 s and printed 45 000 rows of "n 0 undefined":
    they are left out, and pairs with no common item are counted, not listed."""
    import time

    with db.write.begin() as s:
        s.add_all([Assessor(name=f"idle{i:03d}") for i in range(300)])
        s.execute(insert(Query), [{"ext_id": "q1"}, {"ext_id": "q2"}])
        s.execute(insert(Document), [{"ext_id": f"d{i}"} for i in (1, 2, 3)])
    for doc, (a, b, c) in {"d1": (1, 1, None), "d2": (0, 1, 2), "d3": (None, 0, 1)}.items():
        for name, grade in (("ann", a), ("bob", b)):
            if grade is not None:
                record_grade(db, name, "q1", doc, grade)
        if c is not None:
            record_grade(db, "cat", "q2", doc, c)  # cat shares nothing with ann or bob
    start = time.perf_counter()
    report = agreement_from_db(db)
    assert time.perf_counter() - start < 5
    assert report.assessors == ("ann", "bob", "cat")
    assert [(p.a, p.b, p.stats.n) for p in report.pairs] == [("ann", "bob", 2)]
    assert report.pairs_without_common_items == 2
    assert "2 pairs of assessors share no graded item: not listed" in report.warnings()
    assert len(report.ci["cohen_kappa"]) == 1
    out = report.to_json()
    assert out["pairs_without_common_items"] == 2 and len(out["pairs"]) == 1
