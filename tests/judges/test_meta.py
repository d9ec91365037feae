"""`workbench meta`: correlations of each judge with the truth and their bootstrap
intervals, paired differences between judges (Holm), Bland–Altman, AutoJudge's diagnostics,
and the JSON contract, in-process on leaderboards and on a campaign's own sources."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from tests.cli.helpers import cli_ok, run
from workbench.errors import UsageError
from workbench.metrics import correlation as corr
from workbench.metrics.agreement_ci import resample_counts
from workbench.metrics.meta_evaluation import bland_altman, meta_evaluate, parse_correlations

RNG = np.random.default_rng(5)
S, T = 8, 6
TRUTH = RNG.random((S, T))
PRESENT = np.ones((S, T), bool)
CLOSE = TRUTH + RNG.normal(0, 0.05, (S, T))
FAR = TRUTH + RNG.normal(0, 0.6, (S, T))
NAMES = [f"s{i}" for i in range(S)]


def test_spellings():
    assert parse_correlations("kendall,kendall@5, tau_ap") == ["kendall_tau_b", "kendall_tau_b@5", "tau_ap"]
    assert parse_correlations(None)[0] == "kendall_tau_b" and len(parse_correlations("")) == 7
    with pytest.raises(ValueError, match="unknown correlation 'tau_x'"):
        parse_correlations("tau_x")


def test_points_intervals_and_pairs_by_hand():
    res = meta_evaluate(NAMES, (TRUTH, PRESENT), [("close", (CLOSE, PRESENT)), ("far", (FAR, PRESENT))],
                        resamples=400, seed=3)
    t, c = TRUTH.mean(1), CLOSE.mean(1)
    close = res.judges[0]
    assert close.correlations["kendall_tau_b"] == pytest.approx(stats.kendalltau(t, c).statistic)
    assert close.correlations["spearman"] == pytest.approx(stats.spearmanr(t, c).statistic)
    assert close.correlations["pearson"] == pytest.approx(stats.pearsonr(t, c).statistic)
    assert close.correlations["tau_ap"] == pytest.approx(corr.tau_ap_b(t, c))
    assert close.correlations["tau_gap"] == pytest.approx(corr.tau_gap(t, c))
    assert close.correlations["rbo"] == pytest.approx(corr.rbo(corr.rank_order(NAMES, t), corr.rank_order(NAMES, c)))
    # the interval: resample the topics with the same weights, by hand
    w = resample_counts(T, 400, 3)
    rows = [stats.kendalltau(TRUTH @ wr / wr.sum(), CLOSE @ wr / wr.sum()).statistic for wr in w]
    lo, hi = np.quantile(rows, [0.025, 0.975])
    assert close.intervals["kendall_tau_b"] == pytest.approx((lo, hi))
    # pairs: paired differences on the same resamples, p = 2 x the smaller side, Holm per correlation
    far = res.judges[1]
    pairs = {p.correlation: p for p in res.pairs}
    assert len(res.pairs) == 7
    for name, p in pairs.items():
        d = close.rows[name] - far.rows[name]
        d = d[~np.isnan(d)]
        assert p.difference == pytest.approx(close.correlations[name] - far.correlations[name])
        assert p.difference_ci == pytest.approx(tuple(np.quantile(d, [0.025, 0.975])))
        assert p.p_value == pytest.approx(min(1.0, 2 * min(np.mean(d <= 0), np.mean(d >= 0))))
        assert p.p_holm == pytest.approx(p.p_value)  # one pair per correlation
        if p.difference_ci[0] > 0:
            assert p.sentence == f"close ranks systems closer to the truth than far ({name})"
        elif p.difference_ci[1] >= 0:
            assert p.sentence is None
    assert pairs["kendall_tau_b"].sentence is not None  # noise 0.05 against 0.6: a real difference


def test_holm_over_the_pairs_of_one_correlation():
    third = TRUTH + RNG.normal(0, 0.3, (S, T))
    res = meta_evaluate(NAMES, (TRUTH, PRESENT), [("a", (CLOSE, PRESENT)), ("b", (FAR, PRESENT)),
                                                  ("c", (third, PRESENT))],
                        correlations=["kendall_tau_b", "rbo"], resamples=300, seed=1)
    for name in ("kendall_tau_b", "rbo"):
        group = [p for p in res.pairs if p.correlation == name]
        assert [(p.a, p.b) for p in group] == [("a", "b"), ("a", "c"), ("b", "c")]
        expected = multipletests([p.p_value for p in group], method="holm")[1]
        assert [p.p_holm for p in group] == pytest.approx(list(expected))


def test_seeded_and_identical_judges():
    a = meta_evaluate(NAMES, (TRUTH, PRESENT), [("x", (CLOSE, PRESENT)), ("y", (CLOSE, PRESENT))],
                      resamples=200, seed=9)
    b = meta_evaluate(NAMES, (TRUTH, PRESENT), [("x", (CLOSE, PRESENT)), ("y", (CLOSE, PRESENT))],
                      resamples=200, seed=9)
    assert a.judges[0].intervals == b.judges[0].intervals
    same = a.pairs[0]
    assert same.difference == 0 and same.difference_ci == (0.0, 0.0) and same.p_value == 1.0
    assert same.sentence is None


def test_bland_altman_by_hand():
    t = np.array([0.2, 0.4, 0.5, 0.7, 0.9])
    j = np.array([0.25, 0.5, 0.55, 0.85, 1.1])
    ba = bland_altman(t, j)
    d = j - t
    assert ba["bias"] == pytest.approx(d.mean())
    assert ba["limits"] == pytest.approx((d.mean() - 1.96 * d.std(ddof=1), d.mean() + 1.96 * d.std(ddof=1)))
    assert ba["slope"] == pytest.approx(np.polyfit((t + j) / 2, d, 1)[0])


def _board(tmp_path, name, values, systems=None, topics=None):
    systems = systems or NAMES
    topics = topics or [f"t{k}" for k in range(values.shape[1])]
    path = tmp_path / f"{name}.tot"
    path.write_text("".join(f"{s} ndcg_cut_10 {t} {float(values[i, k])!r}\n"
                            for i, s in enumerate(systems) for k, t in enumerate(topics)))
    return str(path)


def _url(tmp_path):
    return f"sqlite:///{tmp_path}/meta.db"


def test_cli_json_contract_and_diagnostics(tmp_path):
    url = _url(tmp_path)
    cli_ok(url, "init")
    for name, values in (("truth", TRUTH), ("close", CLOSE), ("far", FAR)):
        cli_ok(url, "import", "leaderboard", _board(tmp_path, name, values), "--name", name, "--format", "tot")
    cli_ok(url, "import", "leaderboard", _board(tmp_path, "short", CLOSE[:6], NAMES[:6]), "--name", "short",
           "--format", "tot")
    out = json.loads(cli_ok(url, "meta", "--truth", "leaderboard:truth", "--judge", "leaderboard:close",
                            "--judge", "leaderboard:far", "-m", "nDCG@10", "--correlation", "kendall,tau_ap,kendall@5",
                            "--resamples", "200", "--seed", "4", "--format", "json"))
    assert list(out)[:5] == ["truth", "measure", "judges", "pairs", "resamples"] and out["warnings"] == []
    j0 = out["judges"][0]
    assert (j0["judge"], j0["systems"], j0["topics"]) == ("leaderboard:close", S, T)
    assert list(j0["correlations"]) == ["kendall_tau_b", "kendall_tau_b_ci", "tau_ap", "tau_ap_ci",
                                        "kendall_tau_b@5", "kendall_tau_b@5_ci"]
    assert j0["correlations"]["kendall_tau_b"] == pytest.approx(stats.kendalltau(TRUTH.mean(1), CLOSE.mean(1)).statistic)
    assert set(j0["bland_altman"]) == {"bias", "limits", "slope"}
    assert {k for k in out["pairs"][0]} >= {"a", "b", "correlation", "difference", "difference_ci", "p_holm"}
    # a system missing on one side: refused, then zero or drop
    missing = run(url, "meta", "--truth", "leaderboard:truth", "--judge", "leaderboard:short", "-m", "ndcg_cut_10")
    assert isinstance(missing.exception, UsageError) and "2 systems missing from leaderboard:short: s6, s7" in str(missing.exception)
    dropped = json.loads(cli_ok(url, "meta", "--truth", "leaderboard:truth", "--judge", "leaderboard:short",
                                "-m", "ndcg_cut_10", "--on-missing", "drop", "--resamples", "50", "--format", "json"))
    assert dropped["judges"][0]["systems"] == 6 and "left out" in dropped["warnings"][0]
    zero = json.loads(cli_ok(url, "meta", "--truth", "leaderboard:truth", "--judge", "leaderboard:short",
                             "-m", "ndcg_cut_10", "--on-missing", "zero", "--resamples", "50", "--format", "json"))
    assert zero["judges"][0]["systems"] == 8 and "scored 0" in zero["warnings"][0]
    table = cli_ok(url, "meta", "--truth", "leaderboard:truth", "--judge", "leaderboard:close",
                   "--judge", "leaderboard:far", "-m", "ndcg_cut_10", "--resamples", "200")
    assert "leaderboard:close ranks systems closer to the truth than leaderboard:far" in table


def test_one_topic_gives_null_intervals_and_few_or_tied_systems_warn(tmp_path):
    url = _url(tmp_path)
    cli_ok(url, "init")
    cli_ok(url, "import", "leaderboard", _board(tmp_path, "t1", TRUTH[:, :1]), "--name", "t1", "--format", "tot")
    cli_ok(url, "import", "leaderboard", _board(tmp_path, "j1", CLOSE[:, :1]), "--name", "j1", "--format", "tot")
    out = json.loads(cli_ok(url, "meta", "--truth", "leaderboard:t1", "--judge", "leaderboard:j1",
                            "-m", "ndcg_cut_10", "--format", "json"))
    assert out["judges"][0]["correlations"]["kendall_tau_b_ci"] is None
    assert out["judges"][0]["correlations"]["kendall_tau_b"] is not None
    flat = np.full((2, 3), 0.5)
    cli_ok(url, "import", "leaderboard", _board(tmp_path, "flat", flat, NAMES[:2]), "--name", "flat", "--format", "tot")
    cli_ok(url, "import", "leaderboard", _board(tmp_path, "two", TRUTH[:2, :3], NAMES[:2]), "--name", "two", "--format", "tot")
    out = json.loads(cli_ok(url, "meta", "--truth", "leaderboard:two", "--judge", "leaderboard:flat",
                            "-m", "ndcg_cut_10", "--format", "json", "--resamples", "20"))
    assert any("only 2 systems" in w for w in out["warnings"])
    assert any("every system ties under leaderboard:flat" in w for w in out["warnings"])
    assert out["judges"][0]["correlations"]["kendall_tau_b"] is None


def test_campaign_sources_as_judges(tmp_path):
    url = _url(tmp_path)
    runs = []
    for s in range(4):
        p = tmp_path / f"r{s}.run"
        p.write_text("".join(f"q{q} Q0 d{(d + s) % 5} {d + 1} {10 - d} r{s}\n" for q in range(3) for d in range(5)))
        runs.append(str(p))
    cli_ok(url, "import", "run", *runs)
    ann = tmp_path / "ann.qrels"
    ann.write_text("".join(f"q{q} 0 d{d} {int(d < 2)}\n" for q in range(3) for d in range(5)))
    bob = tmp_path / "bob.qrels"
    bob.write_text("".join(f"q{q} 0 d{d} {int(d in (1, 2))}\n" for q in range(3) for d in range(5)))
    cli_ok(url, "import", "qrels", str(ann), "--assessor", "ann")
    cli_ok(url, "import", "qrels", str(bob), "--assessor", "bob")
    out = json.loads(cli_ok(url, "meta", "--truth", "assessor:ann", "--judge", "assessor:bob", "-m", "P@1",
                            "--correlation", "kendall", "--resamples", "50", "--format", "json"))
    # P@1 of run s = relevance of d(s) under each assessor; ann: [1, 1, 0, 0], bob: [0, 1, 1, 0]
    assert out["truth"] == "assessor:ann" and out["judges"][0]["judge"] == "assessor:bob"
    assert out["judges"][0]["correlations"]["kendall_tau_b"] == pytest.approx(
        stats.kendalltau([1, 1, 0, 0], [0, 1, 1, 0]).statistic)
    assert out["judges"][0]["topics"] == 3


def test_per_topic_correlations_and_bland_altman():
    res = meta_evaluate(NAMES, (TRUTH, PRESENT), [("close", (CLOSE, PRESENT))], correlations=["kendall_tau_b"],
                        resamples=50, per_topic=True, topics=[f"t{k}" for k in range(T)])
    j = res.judges[0]
    for k in range(T):
        assert j.per_topic[f"t{k}"]["kendall_tau_b"] == pytest.approx(
            stats.kendalltau(TRUTH[:, k], CLOSE[:, k]).statistic)
    d = (CLOSE - TRUTH).ravel()
    assert j.bland_altman_per_topic["bias"] == pytest.approx(d.mean())
    assert j.bland_altman_per_topic["n"] == S * T
    assert j.bland_altman["bias"] == pytest.approx((CLOSE.mean(1) - TRUTH.mean(1)).mean())
