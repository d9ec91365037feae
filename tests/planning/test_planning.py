"""Planning a campaign: pooling orders worked by hand, the simulation and the leave-one-out
test on hand-worked collections, a property of the adaptive methods, and the commands."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.cli import cli, main
from workbench.planning.collection import collection_from_arrays, collection_from_files
from workbench.planning.methods import (
    bandit_order,
    depth_order,
    judging_order,
    mtf_order,
    next_choice,
)
from workbench.planning.reusability import reusability
from workbench.planning.budget import shares
from workbench.planning.simulate import simulate

SAMPLE = Path(__file__).resolve().parents[2] / "sample_db" / "sample.sqlite"

# three runs' lists for one query (document codes); relevant: 1, 5, 6, 9
LISTS = [np.array([1, 2, 3, 4]), np.array([5, 1, 6, 7]), np.array([8, 9, 5, 2])]
RELEVANT = {1, 5, 6, 9}


def test_depth_order_takes_every_runs_rank_one_then_rank_two():
    assert depth_order(LISTS, 100) == [1, 5, 8, 2, 9, 3, 6, 4, 7]
    assert depth_order(LISTS, 4) == [1, 5, 8, 2]
    assert depth_order(LISTS, 3, known={5: True}) == [1, 8, 2]


def test_depth_order_of_large_or_negative_codes():
    # codes too large for a table of first positions (database ids), or negative
    for shift in (10**12, -100):
        lists = [x + shift for x in LISTS]
        assert depth_order(lists, 100) == [d + shift for d in [1, 5, 8, 2, 9, 3, 6, 4, 7]]


def test_mtf_order_worked_by_hand():
    # run 0 (priority 0): 1 relevant -> keeps the turn; 2 not -> priority -1.
    # run 1 (0, first of the highest): 5 relevant, 1 judged (skipped), 6 relevant, 7 not -> -1.
    # run 2 (0): 8 not -> -1.  All at -1, first is run 0: 3 not -> -2.
    # run 1 (-1): nothing left.  run 2 (-1): 9 relevant, then 5 and 2 judged: nothing left.
    # run 0 (-2): 4 not.
    assert mtf_order(LISTS, RELEVANT.__contains__, 100) == [1, 2, 5, 6, 7, 8, 3, 9, 4]
    assert mtf_order(LISTS, RELEVANT.__contains__, 5) == [1, 2, 5, 6, 7]


@pytest.mark.parametrize("method", ["depth", "mtf", "bandit"])
def test_next_choice_one_grade_at_a_time_is_the_judging_order(method):
    """A live queue (one document served per grade) follows the simulated order exactly."""
    grades, served = {}, []
    while (d := next_choice(method, LISTS, grades, seed=7)) is not None:
        served.append(d)
        grades[d] = d in RELEVANT
    assert served == judging_order(method, LISTS, RELEVANT.__contains__, 100, seed=7)
    assert next_choice(method, LISTS, dict(grades), seed=7) is None


def test_next_choice_depends_on_the_grades_and_skips_pending_documents():
    assert next_choice("mtf", LISTS, {1: True}) == 2  # run A keeps the turn
    assert next_choice("mtf", LISTS, {1: False}) == 5  # the turn passes to run B
    # 2 is with another assessor: passed as not relevant, so B's 5 comes next
    assert next_choice("mtf", LISTS, {1: True}, pending={2}) == 5
    assert next_choice("bandit", LISTS, {1: True, 5: False}, seed=3) == next_choice(
        "bandit", LISTS, {5: False, 1: True}, seed=3)


def test_bandit_is_seeded_and_judges_each_document_once():
    a = bandit_order(LISTS, RELEVANT.__contains__, 100, seed=7)
    assert a == bandit_order(LISTS, RELEVANT.__contains__, 100, seed=7)
    assert sorted(a) == sorted(set(np.concatenate(LISTS).tolist()))
    assert len(bandit_order(LISTS, RELEVANT.__contains__, 3, seed=7)) == 3


def test_bandit_favours_the_run_that_finds_relevant_documents():
    good = np.arange(0, 100)  # all relevant
    bad = np.arange(1000, 1100)  # none relevant
    order = bandit_order([bad, good], lambda d: d < 100, 40, seed=3)
    assert sum(d < 100 for d in order) >= 30
    with pytest.raises(ValueError, match="unknown pooling method"):
        judging_order("random", LISTS, RELEVANT.__contains__, 3)


def test_shares_spread_the_budget_over_queries():
    assert shares(10, 3).tolist() == [4, 3, 3]
    assert shares(2, 3).tolist() == [1, 1, 0]


def _write(tmp_path: Path, name: str, lines: list[str]) -> str:
    p = tmp_path / name
    p.write_text("".join(line + "\n" for line in lines))
    return str(p)


@pytest.fixture
def three_runs(tmp_path):
    """One query; qrels a b c e relevant, d not; runs A (a b d), B (a c e), C (d e b)."""
    qrels = _write(tmp_path, "qrels", ["q1 0 a 1", "q1 0 b 1", "q1 0 c 1", "q1 0 d 0", "q1 0 e 1"])
    runs = []
    for tag, docs in (("A", "abd"), ("B", "ace"), ("C", "deb")):
        runs.append(_write(tmp_path, tag, [f"q1 Q0 {d} {i + 1} {3 - i} {tag}" for i, d in enumerate(docs)]))
    return qrels, runs


def test_leave_one_out_worked_by_hand(three_runs):
    # depth-2 pool: a (A, B), b (A), c (B), d (C), e (C); P@3 under the full qrels:
    # A 2/3, B 1, C 2/3 -> places B 1, A 2, C 2 (tied).
    # Without A's own document b: A 1/3 -> below B (1) and C (2/3): place 3, a drop of 1.
    # Without B's c: B 2/3 -> nobody above it: place 1.  Without C's d, e: C 1/3 -> place 3.
    qrels, runs = three_runs
    r = reusability(collection_from_files(qrels, runs), depth=2, measure="P.3")
    got = {x.run: (round(x.score_full, 4), round(x.score_loo, 4), x.rank_full, x.rank_loo,
                   x.unique_relevant) for x in r.runs}
    assert got == {"A": (0.6667, 0.3333, 2, 3, 1), "B": (1.0, 0.6667, 1, 1, 1),
                   "C": (0.6667, 0.3333, 2, 3, 1)}
    assert r.max_drop == 1 and r.kendall_tau_b == pytest.approx(1.0) and r.measure == "P_3"


def test_leave_one_group_out(three_runs, tmp_path):
    qrels, runs = three_runs
    # A and B as one site "s": a, b and c are the site's alone in the depth-2 pool
    site = [_write(tmp_path, "sA", [line.replace(" A", " s-A") for line in Path(runs[0]).read_text().splitlines()]),
            _write(tmp_path, "sB", [line.replace(" B", " s-B") for line in Path(runs[1]).read_text().splitlines()]),
            runs[2]]
    r = reusability(collection_from_files(qrels, site), depth=2, measure="P.3", groups="-")
    by = {x.run: x for x in r.runs}
    assert by["s-A"].group == by["s-B"].group == "s"
    # without a, b, c the site's runs keep only e (B's third): A 0, B 1/3
    assert (by["s-A"].score_loo, round(by["s-B"].score_loo, 4)) == (0.0, 0.3333)
    assert by["s-A"].unique_relevant == 3


def test_simulate_worked_by_hand(three_runs):
    # budget 2 on one query: depth judges a (A's and B's rank 1) then d (C's rank 1);
    # mtf judges a (A), b (A), then d (A's rank 3 is not relevant: the turn passes)...
    qrels, runs = three_runs
    c = collection_from_files(qrels, runs)
    depth, mtf = simulate(c, ["depth", "mtf"], [2, 5], measure="P.3")
    assert [(p.budget, p.judged, p.relevant_found) for p in depth.points] == [(2, 2, 1), (5, 5, 4)]
    assert [(p.budget, p.judged, p.relevant_found) for p in mtf.points] == [(2, 2, 2), (5, 5, 4)]
    assert depth.points[-1].kendall_tau_b == pytest.approx(1.0)
    assert depth.points[-1].max_rank_change == 0
    # with a and d judged: A 1/3, B 1/3, C 0 -> places A 1, B 1, C 3 (full: B 1, A 2, C 2)
    assert depth.points[0].max_rank_change == 1


def _collection(seed: int, n_queries: int = 6, n_runs: int = 8, depth: int = 40):
    """Generated collections where runs differ in quality. Assumptions: each query has 400
    candidate documents of which about 10 % are relevant; run r ranks each candidate by
    quality_r * relevant + noise, with qualities spread evenly from 0 (random) to 3 (good),
    and keeps its top `depth`. So good runs put relevant documents high and bad ones do not.
    The worst run comes first, the order that favours depth pooling most (move-to-front
    starts with the first run). Budgets give at least 20 judgments per query: with fewer,
    a move-to-front pool can still be inside the runs it tried first."""
    rng = np.random.default_rng(seed)
    q_ids, d_ids, grades = [], [], []
    run_q, run_d, run_s = [[] for _ in range(n_runs)], [[] for _ in range(n_runs)], [[] for _ in range(n_runs)]
    for q in range(n_queries):
        rel = rng.random(400) < 0.1
        docs = np.array([f"d{q}_{i}" for i in range(400)], dtype="S")
        q_ids += [f"q{q}"] * 400
        d_ids += docs.tolist()
        grades += rel.astype(int).tolist()
        for r, quality in enumerate(np.linspace(0, 3, n_runs)):
            score = quality * rel + rng.normal(size=400)
            top = np.argsort(-score)[:depth]
            run_q[r] += [f"q{q}"] * depth
            run_d[r] += docs[top].tolist()
            run_s[r] += score[top].tolist()
    return collection_from_arrays(
        [f"r{r}" for r in range(n_runs)],
        [np.array(x, dtype="S") for x in run_q], [np.array(x, dtype="S") for x in run_d],
        [np.array(x) for x in run_s], np.array(q_ids, dtype="S"), np.array(d_ids, dtype="S"),
        np.array(grades),
    )


@pytest.mark.parametrize("measure", ["map", "ndcg_cut.10", "P.10", "bpref"])
def test_run_scorer_on_a_qrels_subset_equals_evaluating_from_scratch(measure):
    """The fast path (runs ranked once, a mask regrades them) against evaluate_many on
    the masked qrels and the runs as read: grades -1..3, documents outside the qrels,
    tied scores, a query without judgments."""
    from workbench.metrics.evaluate import RunArrays, evaluate_many
    from workbench.planning.scoring import RunScorer

    rng = np.random.default_rng(5)
    q_ids, d_ids, grades = [], [], []
    for q in range(5):
        for i in rng.choice(60, 35, replace=False):
            q_ids.append(f"q{q}")
            d_ids.append(f"d{i}")
            grades.append(int(rng.integers(-1, 4)))
    runs = []
    for r in range(6):
        rq, rd, rs = [], [], []
        for q in rng.permutation(6):  # q5: no judgments
            for i in rng.choice(60, 30, replace=False):
                rq.append(f"q{q}")
                rd.append(f"d{i}")
                rs.append(float(rng.integers(0, 6)))
        runs.append(RunArrays(np.array(rq, dtype="S"), np.array(rd, dtype="S"), np.array(rs), f"r{r}"))
    qrels = (np.array(q_ids, dtype="S"), np.array(d_ids, dtype="S"), np.array(grades))
    c = collection_from_arrays([r.tag for r in runs], [r.qid for r in runs], [r.docno for r in runs],
                               [r.score for r in runs], *qrels)
    scorer = RunScorer(c, measure)
    for share in (0.05, 0.3, 0.7, 1.0):
        keep = rng.random(c.qrels_grade.size) < share
        sub = (c.query_names[c.qrels_query[keep]], c.doc_names[c.qrels_doc[keep]], c.qrels_grade[keep])
        want = [ev.summary[scorer.measure] for ev in evaluate_many(*sub, runs, [measure])]
        assert scorer.means(keep).tolist() == want
        assert scorer.means(keep, [4, 1]).tolist() == [want[4], want[1]]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), budget=st.sampled_from([120, 240, 480]))
def test_adaptive_methods_find_at_least_as_many_relevant_as_depth(seed, budget):
    c = _collection(seed)
    depth, mtf, bandit = simulate(c, ["depth", "mtf", "bandit"], [budget], measure="P.10", seed=seed)
    found = {s.method: s.points[0].relevant_found for s in (depth, mtf, bandit)}
    assert found["mtf"] >= found["depth"] and found["bandit"] >= found["depth"], found


def test_simulate_and_reusability_commands_on_files(three_runs, capsys):
    qrels, runs = three_runs
    out = CliRunner().invoke(cli, ["simulate", "--qrels", qrels, *runs, "--method", "mtf",
                                   "--budget", "2,5", "-m", "P.3", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["method"] == "mtf" and data["measure"] == "P_3"
    assert [p["relevant_found"] for p in data["points"]] == [2, 4]
    assert set(data["points"][0]) == {"budget", "judged", "relevant_found", "kendall_tau_b", "max_rank_change"}
    out = CliRunner().invoke(cli, ["reusability", "--qrels", qrels, *runs, "--depth", "2", "-m", "P.3",
                                   "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert set(data) == {"measure", "depth", "runs", "kendall_tau_b", "max_drop"}
    assert data["max_drop"] == 1 and [r["run"] for r in data["runs"]] == ["A", "B", "C"]
    table = CliRunner().invoke(cli, ["reusability", "--qrels", qrels, *runs, "--depth", "2", "-m", "P.3"])
    assert table.exit_code == 0 and table.output.splitlines()[3].split()[:6] == ["A", "0.6667", "2", "0.3333", "3", "1"]
    assert main(["simulate", "--qrels", qrels, *runs, "--method", "lucky", "--budget", "2"]) == 2
    assert "unknown pooling method 'lucky'" in capsys.readouterr().err
    assert main(["simulate", "--qrels", qrels, *runs, "--method", "mtf", "--budget", "two"]) == 2
    assert "--budget takes whole numbers" in capsys.readouterr().err
    assert main(["reusability", *runs]) == 2  # run files without --qrels
    assert "need --qrels" in capsys.readouterr().err
    # relstring is text per query: nothing to rank runs by
    assert main(["reusability", "--qrels", qrels, *runs, "-m", "relstring"]) == 2
    assert "relstring: not a score" in capsys.readouterr().err


def test_the_stored_campaign_is_the_default_source(tmp_path):
    copy = tmp_path / "sample.sqlite"
    shutil.copyfile(SAMPLE, copy)
    out = CliRunner().invoke(cli, ["--db", str(copy), "reusability", "--depth", "10", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert sorted(r["run"] for r in data["runs"]) == ["bm25", "doclen", "qld", "tfidf"]
    # the full scores are `score`'s (majority consensus)
    score = json.loads(CliRunner().invoke(cli, ["--db", str(copy), "score", "-m", "map", "--format", "json"]).output)
    full = {s["system"]: s["mean"]["map"] for s in score["systems"]}
    assert {r["run"]: r["score_full"] for r in data["runs"]} == pytest.approx(full)
    out = CliRunner().invoke(cli, ["--db", str(copy), "simulate", "--method", "depth,bandit", "--budget",
                                   "20,1000000", "--format", "json"])
    assert out.exit_code == 0, out.output
    both = json.loads(out.output)
    assert [s["method"] for s in both] == ["depth", "bandit"]
    # an unlimited budget judges everything the runs retrieved: the ranking is the full one
    assert all(s["points"][-1]["kendall_tau_b"] == pytest.approx(1.0) for s in both)
