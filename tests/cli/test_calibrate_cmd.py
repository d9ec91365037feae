"""`workbench calibrate` and the `--source` option (hybrid:MACHINE) of score, compare and
export qrels, on a generated campaign with a machine assessor."""

from __future__ import annotations

import json

import pytest
from sklearn.metrics import cohen_kappa_score

from tests.campaign.machine_campaign import build_machine_campaign, people_majority
from tests.cli.helpers import cli_ok, run
from workbench.errors import NotFoundError, UsageError


@pytest.fixture
def campaign(db, db_url, tmp_path):
    return db_url, build_machine_campaign(db, tmp_path / "f", human_queries=5)


def test_calibrate_json_contract(campaign):
    url, c = campaign
    out = json.loads(cli_ok(url, "calibrate", "--machine", "llm", "--format", "json"))
    for key in ("machine", "against", "items", "kappa_binary", "kappa_binary_ci", "kappa_weighted",
                "kappa_weighted_ci", "confusion", "leniency", "per_query", "rankings"):
        assert key in out
    human = people_majority(c)
    items = sorted(set(human) & set(c.machine))
    h = [human[i] for i in items]
    m = [c.machine[i] for i in items]
    assert (out["machine"], out["against"], out["items"]) == ("llm", "consensus:majority", len(items))
    assert out["kappa_weighted"] == pytest.approx(cohen_kappa_score(h, m, labels=[0, 1, 2, 3], weights="linear"))
    assert len(out["confusion"]) == 4 and all(len(row) == 4 for row in out["confusion"])
    assert sum(map(sum, out["confusion"])) == len(items)
    assert len(out["kappa_binary_ci"]) == 2 and out["kappa_binary_ci"][0] < out["kappa_binary"]
    assert {r["query"] for r in out["per_query"]} == set(c.queries[:5])
    assert set(out["rankings"]) >= {"human_vs_machine", "human_vs_hybrid"}
    assert set(out["rankings"]["human_vs_machine"]) >= {"tau_b", "tau_ap", "rbo"}
    assert out["measure"] == "map" and out["sample"] is None
    other = json.loads(cli_ok(url, "calibrate", "--machine", "llm", "-m", "P@5", "--against", "alice",
                              "--format", "json"))
    assert other["against"] == "assessor:alice" and other["measure"] == "P@5"


def test_calibrate_table_and_errors(campaign):
    url, _ = campaign
    out = cli_ok(url, "calibrate", "--machine", "llm")
    assert "llm against consensus:majority" in out and "kappa binary" in out
    assert "Confusion (rows human grade, columns machine grade)" in out
    assert "human vs hybrid" in out and "Weakest queries" in out
    # (main() maps these to exit 1 and 2; in-process the exception is kept)
    assert isinstance(run(url, "calibrate", "--machine", "nobody").exception, NotFoundError)
    assert isinstance(run(url, "calibrate", "--machine", "alice").exception, UsageError)
    assert run(url, "calibrate").exit_code == 2


def test_score_compare_and_export_take_a_hybrid_source(campaign):
    url, c = campaign
    hybrid = {**c.machine, **people_majority(c)}
    out = cli_ok(url, "export", "qrels", "--source", "hybrid:llm")
    lines = [line.split() for line in out.splitlines()]
    assert {(q, d): int(g) for q, _, d, g in lines} == hybrid
    assert sum(1 for _, it, _, _ in lines if it == "M") == len(set(c.machine) - set(people_majority(c)))
    score = json.loads(cli_ok(url, "score", "--source", "hybrid:llm", "-m", "P@5", "--format", "json"))
    assert score["source"] == "hybrid:llm" and len(score["systems"]) == len(c.runs)
    same = json.loads(cli_ok(url, "score", "--source", "majority", "-m", "P@5", "--format", "json"))
    old = json.loads(cli_ok(url, "score", "--consensus", "majority", "-m", "P@5", "--format", "json"))
    assert same == old
    compared = json.loads(cli_ok(url, "compare", "--source", "hybrid:llm", "-m", "P@5", "--format", "json"))
    assert list(compared["rankings"]) == ["hybrid:llm"]
    assert isinstance(run(url, "score", "--source", "hybrid:alice").exception, UsageError)  # a person
    assert run(url, "score", "--source", "median").exit_code == 2
    assert run(url, "score", "--source", "mean", "--consensus", "mean").exit_code == 2
    assert run(url, "export", "qrels", "--source", "assessor:llm").stdout.split("\n")[0].split()[1] == "M"
