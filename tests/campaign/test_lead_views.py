"""Read models of the lead screens (campaign.lead_views) against the CLI's own paths."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import update

from tests.tui.factory import build_campaign
from workbench.campaign import lead_views as lv
from workbench.campaign.agreement import load_labels
from workbench.campaign.database import Database
from workbench.campaign.judging import record_grade
from workbench.campaign.scoring import score_campaign
from workbench.errors import InputError, UsageError
from workbench.store.models import Result

SAMPLE = Path(__file__).resolve().parents[2] / "sample_db" / "sample.sqlite"


@pytest.fixture
def sample(tmp_path):
    copy = tmp_path / "s.sqlite"
    shutil.copyfile(SAMPLE, copy)
    db = Database.open(str(copy))
    yield db
    db.close()


def test_ranked_list_is_trec_order_with_ties_by_docno_descending(sqlite_db):
    db = sqlite_db
    camp = build_campaign(db, n_queries=1, n_systems=1, depth=4, assessors=("alice", "bob"))
    with db.write.begin() as s:  # every score tied: trec_eval sorts by docno descending
        s.execute(update(Result).values(score=1.0))
    q = camp.queries[0]
    docs = sorted(camp.queues[q]["alice"], reverse=True)
    record_grade(db, "alice", q, docs[1], 2)
    record_grade(db, "bob", q, docs[1], 0)
    items = lv.ranked_list(db, camp.systems[0], q, assessor="alice")
    assert [d.document for d in items] == docs
    assert [d.rank for d in items] == [1, 2, 3, 4]
    assert items[1].grade == 2 and items[1].grades == (("alice", 2), ("bob", 0))
    assert items[0].grade is None and items[0].grades == ()
    majority = lv.ranked_list(db, camp.systems[0], q, consensus="majority")
    assert majority[1].grade == 0  # tie 2/0 goes to the lower grade
    assert lv.grades_of_ranked_list(items) == [0, 2, 0, 0]


def test_pr_curves_are_the_iprec_means_of_score(sample):
    curves = lv.pr_curves(sample, assessor="bob")
    table = score_campaign(sample, ["iprec_at_recall"], assessor="bob")
    for system, values in curves.items():
        assert values == [table.mean(system, m) for m in table.measures]
        assert len(values) == 11 and all(a >= b for a, b in zip(values, values[1:]))


def test_confusion_counts_the_items_both_graded(sample):
    c = lv.confusion(sample, "alice", "carol")
    labels = load_labels(sample, ["alice", "carol"])
    both = (labels.grades >= 0).all(axis=1)
    assert c.n == int(both.sum()) == 152
    a, b = labels.grades[both, 0], labels.grades[both, 1]
    for i, ga in enumerate(c.categories):
        for j, gb in enumerate(c.categories):
            assert c.counts[i][j] == int(np.sum((a == ga) & (b == gb)))


def test_parse_grades_and_quick_score():
    assert lv.parse_grades("3 2 3\n0, 1; 2  # comment") == [3, 2, 3, 0, 1, 2]
    assert lv.parse_grades("d7 3\n101 0 d2 2\n") == [3, 2]
    with pytest.raises(InputError, match=r"grades:2: 'x' is not an integer grade"):
        lv.parse_grades("1 2\n3 x 4 x")
    with pytest.raises(InputError, match=r"grades:1: 'x' is not"):
        lv.parse_grades("3 x 2")  # a typo on one line is an error, not a 'document grade' line
    with pytest.raises(InputError, match="type some grades"):
        lv.parse_grades("  # nothing\n")
    r = lv.quick_score("3 2 3 0 1 2")
    assert round(r.summary.dcg[r.formulations[0]][2], 3) == 0.961
    assert round(r.summary.cg, 3) == 11
    r = lv.quick_score("1 0 1 0 1", rel_level=1)
    assert round(r.summary.ap, 3) == 0.756  # DESIGN §6: relevant at 1, 3, 5
    with pytest.raises(InputError, match="num_rel"):
        lv.quick_score("1 1", num_rel=1)


def test_judged_depth_sources_and_split(sample):
    assert lv.judged_depth(["nDCG@10", "P@20", "AP"]) == 20
    assert lv.judged_depth(["AP", "bpref"]) == 10
    with pytest.raises(UsageError):
        lv.judged_depth(["nope"])
    assert lv.qrels_sources(sample) == [
        "consensus:majority", "consensus:mean", "consensus:adjudicated",
        "assessor:alice", "assessor:bob", "assessor:carol"]
    assert lv.split_source("assessor:a:b") == {"assessor": "a:b"}
    with pytest.raises(UsageError):
        lv.split_source("qrels:x")
