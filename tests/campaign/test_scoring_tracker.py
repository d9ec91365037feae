"""ScoreTracker: stored systems vs derived qrels, checked against pytrec_eval, and the
incremental update equals a full reload."""

from __future__ import annotations

import pytest
import pytrec_eval

from tests.tui.factory import build_campaign, stored_runs
from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.scoring.scores import ScoreTracker, score_campaign

ORACLE = {"map": "map", "bpref": "bpref", "P_10": "P_10", "ndcg_cut_10": "ndcg_cut_10"}


def _grade_some(db, camp, who="alice", seed=3):
    import random

    rng = random.Random(seed)
    for q in camp.queries[:-1]:  # the last query stays unjudged
        for d in camp.queues[q][who][: len(camp.queues[q][who]) * 2 // 3]:
            record_grade(db, who, q, d, rng.choice([0, 0, 1, 2, 3]))


def test_values_match_pytrec_eval(db):
    camp = build_campaign(db, n_queries=4, n_systems=3, depth=12)
    _grade_some(db, camp)
    table = score_campaign(db, ["nDCG@10", "AP", "bpref", "P@10"], QrelsSource.assessor("alice"))
    assert table.labels == ("nDCG@10", "AP", "bpref", "P@10")  # as asked, in that order
    assert table.systems == tuple(camp.systems)
    from workbench.campaign.scoring.qrels import derive_qrels

    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in derive_qrels(db, QrelsSource.assessor("alice")).rows():
        qrels.setdefault(q, {})[d] = g
    assert sorted(table.queries) == sorted(qrels) == ["q1", "q2", "q3"]
    for tag, run in stored_runs(db).items():
        oracle = pytrec_eval.RelevanceEvaluator(qrels, set(ORACLE.values())).evaluate(run)
        assert table.n_queries[table.row(tag)] == len(oracle)
        for q, values in oracle.items():
            for label, name in ORACLE.items():
                assert table.value(tag, q, label) == pytest.approx(values[name], abs=1e-9)
        for label, name in ORACLE.items():
            mean = sum(v[name] for v in oracle.values()) / len(oracle)
            assert table.mean(tag, label) == pytest.approx(mean, abs=1e-9)


def same_scores(a, b) -> bool:
    """Two tables hold the same systems, queries and values (exactly)."""
    return (a.systems == b.systems and a.queries == b.queries and a.measures == b.measures
            and (a.present == b.present).all() and (a.n_queries == b.n_queries).all()
            and all((a.values[m][a.present] == b.values[m][b.present]).all()
                    and (a.means[m] == b.means[m]).all() for m in a.measures))


def test_incremental_update_equals_full_reload(db):
    camp = build_campaign(db, n_queries=3, n_systems=4, depth=8)
    tracker = ScoreTracker(db, source=QrelsSource.assessor("alice"))
    empty = tracker.load()
    assert empty.queries == () and not empty.n_queries.any()
    order = camp.queues["q2"]["alice"]
    for i, d in enumerate(order[:5]):
        record_grade(db, "alice", "q2", d, i % 4)
        tracker.mark_dirty("q2")
        live = tracker.refresh()
        full = ScoreTracker(db, source=QrelsSource.assessor("alice")).load()
        assert same_scores(live, full)
    record_grade(db, "alice", "q1", camp.queues["q1"]["alice"][0], 3)
    tracker.mark_dirty("q1")
    live = tracker.refresh()
    full = ScoreTracker(db, source=QrelsSource.assessor("alice")).load()
    assert live.queries == full.queries == ("q1", "q2")
    assert same_scores(live, full)


def test_consensus_source_and_campaign_default_measures(db):
    camp = build_campaign(db, n_queries=2, n_systems=2, depth=6, assessors=("a", "b"))
    for who, g in (("a", 1), ("b", 3)):
        for d in camp.queues["q1"][who]:
            record_grade(db, who, d and "q1", d, g)
    table = score_campaign(db, source=QrelsSource.consensus("mean"))  # campaign default: nDCG@10 AP bpref P@10
    assert table.labels == ("nDCG@10", "AP", "bpref", "P@10")  # the campaign's names and order
    assert table.source == "consensus:mean" and table.queries == ("q1",)
    # mean of 1 and 3 is 2: every pooled doc relevant; all docs of each run are pooled
    for tag in table.systems:
        assert table.value(tag, "q1", "P_10") == pytest.approx(0.6)
        assert table.value(tag, "q1", "map") == pytest.approx(6 / len(camp.queues["q1"]["a"]))
