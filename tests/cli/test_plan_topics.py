"""`workbench plan topics`: the issue's figures, the JSON contract, sigma from stored runs."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tests.tui.factory import build_campaign
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.scoring.scores import score_campaign
from workbench.campaign.scoring.sources import QrelsSource
from workbench.cli import main
from workbench.metrics.topic_set import topics_needed


def _json(capsys, *args) -> dict:
    assert main(["plan", "topics", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_issue_figures_and_contract(capsys):
    assert _json(capsys, "-m", "map", "--min-diff", "0.05", "--sigma", "0.1") == {
        "topics": 34, "sigma": 0.1, "min_diff": 0.05, "alpha": 0.05, "power": 0.8, "measure": "map"}
    assert _json(capsys, "--min-diff", "0.02", "--sigma", "0.1")["topics"] == 199
    back = _json(capsys, "--topics", "34", "--sigma", "0.1", "--alpha", "0.05", "--power", "0.8")
    assert back["topics"] == 34 and 0.0490 < back["min_diff"] < 0.0500
    assert main(["plan", "topics", "--min-diff", "0.05", "--sigma", "0.1"]) == 0
    assert capsys.readouterr().out.startswith("34 topics detect a difference of 0.05")


@pytest.mark.parametrize("args,says", [
    (["--min-diff", "0.05"], "--sigma"),
    (["--min-diff", "0.05", "--sigma", "0.1", "--from-source", "majority"], "--sigma"),
    (["--sigma", "0.1"], "--min-diff"),
    (["--min-diff", "0.05", "--sigma", "0.1", "--alpha", "2"], "alpha"),
    (["--min-diff", "-1", "--sigma", "0.1"], "--min-diff"),
    (["--topics", "1", "--sigma", "0.1"], "--topics"),
])
def test_usage_errors(capsys, args, says):
    assert main(["plan", "topics", *args]) == 2
    assert says in capsys.readouterr().err


def test_sigma_from_stored_runs(sqlite_db, capsys):
    camp = build_campaign(sqlite_db, n_queries=4, n_systems=3, depth=8)
    for q in ("q1", "q2", "q3", "q4"):
        for i, d in enumerate(camp.queues[q]["alice"]):
            record_grade(sqlite_db, "alice", q, d, (i * 7 + len(q) + int(q[1:])) % 3)
    data = _json(capsys, "--db", sqlite_db.url, "-m", "P@5", "--min-diff", "0.1",
                 "--from-source", "assessor:alice")
    table = score_campaign(sqlite_db, ["P@5"], QrelsSource.assessor("alice"))
    x = table.values[table.measures[0]]
    # Sakai: sigma^2 = 2 V_E, V_E the residual mean square of systems x topics
    resid = x - x.mean(1, keepdims=True) - x.mean(0, keepdims=True) + x.mean()
    sigma = math.sqrt(2 * (resid ** 2).sum() / ((x.shape[0] - 1) * (x.shape[1] - 1)))
    assert data["sigma"] == pytest.approx(sigma, rel=1e-12)
    assert (data["sigma_systems"], data["sigma_topics"]) == (3, 4)
    assert data["source"] == "assessor:alice"
    assert data["topics"] == topics_needed(0.1 / sigma)
    assert np.isfinite(sigma) and sigma > 0


def test_sigma_needs_two_topics(sqlite_db, capsys):
    camp = build_campaign(sqlite_db, n_queries=2, n_systems=2, depth=5)
    record_grade(sqlite_db, "alice", "q1", camp.queues["q1"]["alice"][0], 1)
    assert main(["plan", "topics", "--db", sqlite_db.url, "--min-diff", "0.1",
                 "--from-source", "assessor:alice"]) == 2
    assert "give --sigma instead" in capsys.readouterr().err
