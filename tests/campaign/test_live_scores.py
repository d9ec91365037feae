"""Live scores for a judging screen carry the blindness check themselves
(campaign/scoring/live.py), so no screen can show per-system numbers on a blind campaign."""

from __future__ import annotations

import pytest

from tests.tui.factory import build_campaign
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.scoring.live import BlindCampaign, assessor_tracker, live_scores
from workbench.campaign.scoring.scores import score_campaign
from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.settings import is_blind, set_blind


def test_a_blind_campaign_refuses_live_scores(db):
    camp = build_campaign(db, n_queries=2, n_systems=2, depth=4, assessors=("alice",))
    q = camp.queries[0]
    record_grade(db, "alice", q, camp.queues[q]["alice"][0], 2)
    assert is_blind(db)  # the default
    tracker = assessor_tracker(db, ["P@5"], "alice")
    with pytest.raises(BlindCampaign, match="blind"):
        live_scores(db, tracker, [q])
    assert not tracker.loaded  # refused before anything was read or computed


def test_not_blind_gives_the_assessors_scores_and_refuses_again_when_blind(db):
    camp = build_campaign(db, n_queries=2, n_systems=3, depth=4, assessors=("alice",))
    q = camp.queries[0]
    for doc, grade in zip(camp.queues[q]["alice"], (2, 0, 1)):
        record_grade(db, "alice", q, doc, grade)
    set_blind(db, False)
    tracker = assessor_tracker(db, ["P@5", "AP"], "alice")
    table = live_scores(db, tracker)
    expected = score_campaign(db, ["P@5", "AP"], QrelsSource.assessor("alice"))
    assert table.systems == expected.systems and table.queries == expected.queries == (q,)
    for tag in table.systems:
        assert table.mean(tag, "AP") == expected.mean(tag, "AP")
        assert table.mean(tag, "P@5") == expected.mean(tag, "P@5")
    set_blind(db, True)  # a lead's change reaches an open tracker at its next call
    with pytest.raises(BlindCampaign):
        live_scores(db, tracker, [q])
