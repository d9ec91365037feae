"""evaluation.stored.GradeTable: run rows find their grade by integer ids, exactly as the
metrics' key lookup finds it, and scores are the same with the table as without it."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.database import Database
from workbench.campaign.scoring.scores import ScoreTracker
from workbench.evaluation.stored import GradeTable, id_keys
from workbench.metrics.qrels_index import NONPOOL, UNJUDGED, QrelsIndex

SAMPLE = Path(__file__).resolve().parents[2] / "sample_db" / "sample.sqlite"


def test_lookup_equals_the_key_lookup_of_the_qrels_index():
    rng = np.random.default_rng(5)
    pairs = np.unique(rng.integers(1, 60, size=(400, 2)), axis=0)
    qi, di = pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)
    g = rng.integers(-2, 4, size=qi.size)
    table = GradeTable.build(qi, di, g)
    # run rows: judged pairs, unjudged pairs, a query without qrels, ids past the table
    q = rng.integers(1, 80, size=3000)
    d = rng.integers(1, 80, size=3000)
    got = table.lookup(q, d)
    index = QrelsIndex(id_keys(qi), id_keys(di), g)
    qidx = index.query_index(id_keys(q))
    want = np.full(q.size, NONPOOL, dtype=np.int64)
    known = qidx >= 0
    want[known] = index.lookup(qidx[known], id_keys(d)[known])
    assert np.array_equal(got, want)
    assert {NONPOOL, UNJUDGED} <= set(got.tolist()) and got.max() == 3


def test_no_table_when_it_would_be_big_or_the_grades_do_not_fit(monkeypatch):
    qi, di = np.array([1, 2]), np.array([5, 9])
    assert GradeTable.build(qi, di, np.array([1, 200])) is None
    assert GradeTable.build(qi[:0], di[:0], np.array([], dtype=np.int64)) is None
    monkeypatch.setattr(GradeTable, "MAX_CELLS", 10)
    assert GradeTable.build(qi, di, np.array([1, 0])) is None


@pytest.mark.parametrize("consensus", ["majority", "mean"])
def test_scores_are_the_same_with_and_without_the_table(tmp_path, monkeypatch, consensus):
    copy = tmp_path / "sample.sqlite"
    shutil.copyfile(SAMPLE, copy)
    db = Database.open(str(copy), create=False)
    try:
        measures = ["map", "ndcg_cut.10", "P.10", "bpref", "infAP", "recall.100"]
        with_table = ScoreTracker(db, measures, QrelsSource.consensus(consensus)).load()
        monkeypatch.setattr(GradeTable, "build", classmethod(lambda cls, *a: None))
        without = ScoreTracker(db, measures, QrelsSource.consensus(consensus)).load()
    finally:
        db.close()
    assert with_table.systems == without.systems and with_table.queries == without.queries
    for m in with_table.measures:
        assert np.array_equal(with_table.values[m], without.values[m]), m
