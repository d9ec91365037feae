"""What the lead screens compute beside the ranked list (PR curves, the confusion matrix,
the qrels-source menu, Judged@k), against the CLI's own paths on the sample database."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from workbench.campaign.agreement.report import load_labels
from workbench.campaign.database import Database
from workbench.campaign.agreement.per_query import confusion
from workbench.campaign.scoring.judged_depth import judged_depth
from workbench.campaign.scoring.curves import pr_curves
from workbench.campaign.scoring.sources import QrelsSource, qrels_sources
from workbench.campaign.catalog.queries import query_titles
from workbench.campaign.scoring.scores import score_campaign
from workbench.errors import UsageError

SAMPLE = Path(__file__).resolve().parents[2] / "sample_db" / "sample.sqlite"


@pytest.fixture
def sample(tmp_path):
    copy = tmp_path / "s.sqlite"
    shutil.copyfile(SAMPLE, copy)
    db = Database.open(str(copy))
    yield db
    db.close()


def test_pr_curves_are_the_iprec_means_of_score(sample):
    curves = pr_curves(sample, QrelsSource.assessor("bob"))
    table = score_campaign(sample, ["iprec_at_recall"], QrelsSource.assessor("bob"))
    assert sorted(curves) == sorted(table.systems)
    for system, values in curves.items():
        assert values == [table.mean(system, m) for m in table.measures]
        assert len(values) == 11 and all(a >= b for a, b in zip(values, values[1:]))


def test_confusion_counts_the_items_both_graded(sample):
    c = confusion(sample, "alice", "carol")
    labels = load_labels(sample, ["alice", "carol"])
    both = (labels.grades >= 0).all(axis=1)
    assert c.n == int(both.sum()) == 152
    a, b = labels.grades[both, 0], labels.grades[both, 1]
    for i, ga in enumerate(c.categories):
        for j, gb in enumerate(c.categories):
            assert c.counts[i][j] == int(np.sum((a == ga) & (b == gb)))


def test_judged_depth_sources_and_split(sample):
    assert judged_depth(["nDCG@10", "P@20", "AP"]) == 20
    assert judged_depth(["AP", "bpref"]) == 10
    with pytest.raises(UsageError):
        judged_depth(["nope"])
    assert [s.label for s in qrels_sources(sample)] == [
        "consensus:majority", "consensus:mean", "consensus:adjudicated",
        "assessor:alice", "assessor:bob", "assessor:carol"]
    assert QrelsSource.parse("assessor:a:b") == QrelsSource.assessor("a:b")
    with pytest.raises(UsageError):
        QrelsSource.parse("qrels:x")


def test_query_titles_in_import_order(sample):
    titles = query_titles(sample)
    assert list(titles)[:3] == ["101", "102", "103"] and len(titles) == 10
    assert titles["102"] == "seasoning a cast iron pan"
