"""`score --ci t|bootstrap` and `--sort`: scipy's t interval per
system, a reproducible seeded bootstrap, every format, warnings on degenerate input."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from tests.tui.factory import build_campaign
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.scoring.intervals import score_intervals
from workbench.campaign.scoring.scores import score_campaign
from workbench.campaign.scoring.sources import QrelsSource
from workbench.cli import main
from workbench.metrics.mean_ci import bootstrap_intervals, t_intervals

ALICE = QrelsSource.assessor("alice")


@pytest.fixture
def graded(sqlite_db):
    camp = build_campaign(sqlite_db, n_queries=6, n_systems=3, depth=8)
    for q in camp.queries:
        for i, d in enumerate(camp.queues[q]["alice"]):
            record_grade(sqlite_db, "alice", q, d, (i * 5 + int(q[1:])) % 3)
    return sqlite_db, camp


def _json(capsys, *args) -> dict:
    assert main(["score", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_t_interval_equals_scipy(graded, capsys):
    db, _ = graded
    data = _json(capsys, "--db", db.url, "-a", "alice", "-m", "P@5", "-m", "ndcg_cut.10", "-q", "--ci")
    assert data["ci"] == "t"
    for s in data["systems"]:
        for label in data["measures"]:
            v = np.array([s["per_query"][q][label] for q in sorted(s["per_query"])])
            lo, hi = stats.t.interval(0.95, v.size - 1, loc=v.mean(), scale=stats.sem(v))
            assert s["mean_ci"][label] == pytest.approx([lo, hi], abs=1e-12)
            assert s["mean_ci"][label][0] < s["mean"][label] < s["mean_ci"][label][1]


def test_t_interval_with_missing_topics_equals_scipy():
    rng = np.random.default_rng(5)
    x = rng.random((4, 9))
    present = rng.random((4, 9)) > 0.3
    low, high = t_intervals(x, present)
    for i in range(4):
        v = x[i, present[i]]
        lo, hi = stats.t.interval(0.95, v.size - 1, loc=v.mean(), scale=stats.sem(v))
        assert (low[i], high[i]) == pytest.approx((lo, hi), abs=1e-12)


def test_bootstrap_is_seeded_and_is_the_percentile_bootstrap(graded, capsys):
    db, _ = graded
    args = ["--db", db.url, "-a", "alice", "-m", "map", "--ci", "bootstrap", "--resamples", "2000"]
    first = _json(capsys, *args, "--seed", "7")
    assert first == _json(capsys, *args, "--seed", "7")
    assert first != _json(capsys, *args, "--seed", "8")
    assert first["ci"] == "bootstrap"
    # an independent resampling: the same draws of topics, one system at a time
    rng = np.random.default_rng(3)
    x = rng.random((3, 12))
    low, high = bootstrap_intervals(x, resamples=500, seed=11)
    draws = np.random.default_rng(11).integers(0, 12, size=(500, 12))
    for i in range(3):
        means = x[i][draws].mean(axis=1)
        assert (low[i], high[i]) == pytest.approx(tuple(np.quantile(means, [0.025, 0.975])), abs=1e-12)
    # and close to scipy's percentile bootstrap (other draws)
    ref = stats.bootstrap((x[0],), np.mean, n_resamples=20000, method="percentile",
                          random_state=0).confidence_interval
    lo, hi = bootstrap_intervals(x[:1], resamples=20000, seed=1)
    assert lo[0] == pytest.approx(ref.low, abs=0.02) and hi[0] == pytest.approx(ref.high, abs=0.02)


def test_every_format_carries_the_interval_and_the_sort(graded, capsys):
    db, camp = graded
    base = ["score", "--db", db.url, "-a", "alice", "-m", "P@5", "-m", "map", "--ci", "t"]
    table = score_campaign(db, ["P@5", "map"], ALICE)
    ci = score_intervals(table, "t")
    m = table.measure("map")
    by_map = sorted(table.systems, key=lambda s: (table.mean(s, "map"), s), reverse=True)
    lo, hi = ci.of(m, table.row(by_map[0]))
    assert main([*base, "--sort", "map", "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "95% intervals (t)" in md
    rows = [ln for ln in md.splitlines() if ln.startswith("| SECRETSYS")]
    assert [r.split(" | ")[0][2:] for r in rows] == by_map
    assert f"[{lo:.4f}, {hi:.4f}]" in rows[0]
    assert main([*base, "--sort", "map", "--format", "latex"]) == 0
    tex = capsys.readouterr().out
    assert f"[{lo:.4f}, {hi:.4f}]" in tex and "95\\% intervals" in tex
    assert main([*base, "--sort", "map", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "system,query,measure,value,ci_low,ci_high"
    first = next(ln for ln in lines if ln.startswith(by_map[0] + ",all,map,"))
    assert first.split(",")[4:] == [f"{lo:.6f}", f"{hi:.6f}"]
    assert [ln.split(",")[0] for ln in lines[1::2]] == by_map
    assert main([*base, "--sort", "map"]) == 0
    assert "95% CI (t)" in capsys.readouterr().out
    data = _json(capsys, *base[1:], "--sort", "map")
    assert [s["system"] for s in data["systems"]] == by_map
    # default order: the first measure
    data = _json(capsys, *base[1:])
    by_p5 = sorted(table.systems, key=lambda s: (table.mean(s, "P@5"), s), reverse=True)
    assert [s["system"] for s in data["systems"]] == by_p5
    assert main([*base, "--sort", "ndcg"]) == 2
    assert "--sort ndcg" in capsys.readouterr().err


def test_degenerate_inputs_warn(sqlite_db, capsys):
    camp = build_campaign(sqlite_db, n_queries=2, n_systems=2, depth=5)
    for q in camp.queries:
        for i, d in enumerate(camp.queues[q]["alice"]):
            record_grade(sqlite_db, "alice", q, d, 0 if q == "q1" else i % 2)
    data = _json(capsys, "--db", sqlite_db.url, "-a", "alice", "-m", "P@5", "-m", "num_rel",
                 "-m", "bpref", "--ci")
    text = " ".join(data["warnings"])
    assert "fewer than 5 topics" in text and "(2 topics)" in text
    assert "num_rel: no interval (its value over topics is a sum" in text
    for s in data["systems"]:
        assert s["mean_ci"]["num_rel"] is None
    # a constant system (both topics give the same value) has no interval, with a warning
    table = score_campaign(sqlite_db, ["P@5"], ALICE)
    x = table.values[table.measures[0]]
    for i, s in enumerate(table.systems):
        got = next(e for e in data["systems"] if e["system"] == s)["mean_ci"]["P@5"]
        if x[i, 0] == x[i, 1]:
            assert got is None and f"{s}: no interval for P@5" in text
        else:
            assert got is not None
    # `score --ci` has no trec format
    assert main(["score", "--db", sqlite_db.url, "--ci", "--format", "trec"]) == 2
