"""`compare`'s use case: rankings per qrels source, correlations between them and paired
tests between systems; hand-computed tables, then the database on each backend."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as ss
from sqlalchemy import insert, select
from statsmodels.stats.multitest import multipletests

from workbench.campaign.comparison.systems import SourceScores, compare_systems, compare_tables
from workbench.campaign.judging.grades import record_grade
from workbench.errors import NotFoundError
from workbench.metrics import correlation as corr
from tests.stored_runs import write_results
from workbench.store.models import Document, Query, System


def _source(name, table):
    """table: system -> list of per-query scores (q1, q2, ...; None = not scored)."""
    systems = tuple(table)
    nq = max(len(v) for v in table.values())
    present = np.array([[i < len(table[s]) and table[s][i] is not None for i in range(nq)]
                        for s in systems])
    values = np.array([[table[s][i] if present[k, i] else 0.0 for i in range(nq)]
                       for k, s in enumerate(systems)])
    means = np.array([np.mean([v for v in table[s] if v is not None]) for s in systems])
    return SourceScores(name, systems, values, present, means, present.any(axis=1))


CONSENSUS = _source("consensus", {"A": [0.9, 0.8, 0.7, 0.9], "B": [0.5, 0.6, 0.4, 0.7],
                                  "C": [0.2, 0.3, 0.4, 0.1], "D": [0.6, 0.1, 0.2, 0.3]})
# alice swaps the top two systems; bob swaps the bottom two
ALICE = _source("alice", {"A": [0.5, 0.5, 0.5, 0.5], "B": [0.9, 0.9, 0.9, 0.9],
                          "C": [0.2, 0.2, 0.2, 0.2], "D": [0.3, 0.3, 0.3, 0.3]})
BOB = _source("bob", {"A": [0.9, 0.9, 0.9, 0.9], "B": [0.5, 0.5, 0.5, 0.5],
                      "C": [0.3, 0.3, 0.3, 0.3], "D": [0.2, 0.2, 0.2, 0.2]})


def test_rankings_best_first():
    report = compare_tables("nDCG@10", [CONSENSUS, ALICE, BOB])
    assert report.rankings == {
        "consensus": ["A", "B", "D", "C"],  # means .825 .55 .3 .25
        "alice": ["B", "A", "D", "C"],
        "bob": ["A", "B", "C", "D"],
    }


def test_correlations_between_sources_hand_computed():
    report = compare_tables("nDCG@10", [CONSENSUS, ALICE, BOB])
    rows = {(c.a, c.b): c for c in report.correlations}
    assert list(rows) == [("consensus", "alice"), ("consensus", "bob"), ("alice", "bob")]
    top, bottom = rows[("consensus", "alice")], rows[("consensus", "bob")]
    # one swapped pair of six: tau = (5 - 1) / 6 either way
    assert top.kendall_tau_b == pytest.approx(4 / 6) and bottom.kendall_tau_b == pytest.approx(4 / 6)
    assert top.kendall_tau_a == pytest.approx(4 / 6)
    # tau_AP punishes the swap at the top: 2/3 (0 + 1 + 1) - 1 vs 2/3 (1 + 1 + 2/3) - 1
    assert top.tau_ap == pytest.approx(2 / 3 * 2 - 1)
    assert bottom.tau_ap == pytest.approx(2 / 3 * (8 / 3) - 1)
    assert top.rbo == pytest.approx(corr.rbo(list("ABDC"), list("BADC")))
    assert bottom.rbo > top.rbo
    assert top.n_systems == 4


def test_means_equal_up_to_noise_rank_and_correlate_as_ties():
    # P@10 0.2 as 0.20000000000000004 and 0.19999999999999998: one ranking, not two
    hi, lo = 0.20000000000000004, 0.19999999999999998
    a = SourceScores("a", ("s1", "s2", "s3", "s4"), np.zeros((4, 1)), np.ones((4, 1), bool),
                     np.array([0.5, hi, lo, 0.1]), np.ones(4, bool))
    b = SourceScores("b", a.systems, a.values, a.present, np.array([0.5, lo, hi, 0.1]), a.scored)
    report = compare_tables("P@10", [a, b])
    assert report.rankings["a"] == report.rankings["b"] == ["s1", "s2", "s3", "s4"]
    (c,) = report.correlations
    assert (c.kendall_tau_b, c.tau_ap, c.rbo) == (pytest.approx(1.0), pytest.approx(1.0), pytest.approx(1.0))


def test_t_tests_with_holm_against_scipy_and_statsmodels():
    report = compare_tables("nDCG@10", [CONSENSUS, ALICE], test="t")
    assert report.tests_source == "consensus"
    pairs = [(t.a, t.b) for t in report.tests]
    assert pairs == [("A", "B"), ("A", "D"), ("A", "C"), ("B", "D"), ("B", "C"), ("D", "C")]
    table = {s: CONSENSUS.values[i].tolist() for i, s in enumerate(CONSENSUS.systems)}
    p = [ss.ttest_rel(table[a], table[b]).pvalue for a, b in pairs]
    assert [t.p_value for t in report.tests] == pytest.approx(p)
    assert [t.p_holm for t in report.tests] == pytest.approx(multipletests(p, method="holm")[1])
    assert report.tests[0].mean_diff == pytest.approx(np.mean(np.subtract(table["A"], table["B"])))
    assert report.tests[0].n_queries == 4


def test_randomization_and_bootstrap_are_seeded():
    r1 = compare_tables("m", [CONSENSUS], test="randomization", n_resamples=999, seed=5)
    r2 = compare_tables("m", [CONSENSUS], test="randomization", n_resamples=999, seed=5)
    assert [t.p_value for t in r1.tests] == [t.p_value for t in r2.tests]
    # 4 queries: 16 sign patterns; A vs C all positive -> exact p = 2/16
    ac = next(t for t in r1.tests if (t.a, t.b) == ("A", "C"))
    assert ac.p_value == pytest.approx(2 / 16, abs=0.04)
    boot = compare_tables("m", [CONSENSUS], test="bootstrap", n_resamples=999)
    assert all(t.low <= t.mean_diff <= t.high for t in boot.tests)
    with pytest.raises(ValueError):
        compare_tables("m", [CONSENSUS], test="wilcoxon")


def test_tests_pair_only_queries_both_systems_were_scored_on():
    partial = _source("s", {"A": [0.9, None, 0.5], "B": [0.1, 0.2, 0.3]})
    (t,) = compare_tables("m", [partial]).tests
    assert t.n_queries == 2
    assert t.mean_diff == pytest.approx(((0.9 - 0.1) + (0.5 - 0.3)) / 2)


def test_json_keys_follow_the_design_and_nan_is_null():
    lone = _source("s", {"A": [0.5]})
    out = compare_tables("P@5", [lone, _source("t", {"A": [0.4]})]).to_json()
    assert list(out)[:4] == ["measure", "rankings", "correlations", "tests"]
    assert out["measure"] == "P@5"
    assert out["correlations"] == [
        {"a": "s", "b": "t", "kendall_tau_b": None, "kendall_tau_a": None, "tau_ap": None, "rbo": None}
    ]
    assert out["tests"] == []


# ---------------------------------------------------------------- database


@pytest.fixture
def stored(db):
    """3 queries x 5 docs; systems good (d1..d5 in order), bad (reversed), mid; alice and
    bob grade d1, d2 relevant in every query, bob also d5 (so bad gains under bob)."""
    with db.write.begin() as s:
        s.execute(insert(Query), [{"ext_id": f"q{i}"} for i in (1, 2, 3)])
        s.execute(insert(Document), [{"ext_id": f"d{i}"} for i in range(1, 6)])
        s.execute(insert(System), [{"tag": t} for t in ("good", "bad", "mid")])
    with db.write.begin() as s:
        q = dict(s.execute(select(Query.ext_id, Query.id)).all())
        d = dict(s.execute(select(Document.ext_id, Document.id)).all())
        sy = dict(s.execute(select(System.tag, System.id)).all())
        orders = {"good": [1, 2, 3, 4, 5], "bad": [5, 4, 3, 2, 1], "mid": [3, 1, 4, 2, 5]}
        rows = [
            {"system_id": sy[tag], "query_id": q[qe], "document_id": d[f"d{doc}"],
             "rank": r, "score": 10.0 - r}
            for tag, order in orders.items() for qe in q for r, doc in enumerate(order, 1)
        ]
        write_results(s, rows)
    for qe in ("q1", "q2", "q3"):
        for doc in range(1, 6):
            record_grade(db, "alice", qe, f"d{doc}", 1 if doc <= 2 else 0)
            record_grade(db, "bob", qe, f"d{doc}", 1 if doc in (1, 5) else 0)
    return db


def test_compare_systems_over_the_database(stored):
    report = compare_systems(stored, "P@2", by_assessor=True)
    assert report.sources == ("consensus:majority", "assessor:alice", "assessor:bob")
    # alice: good P@2 = 1, mid 0.5 (d3, d1), bad 0
    assert report.rankings["assessor:alice"] == ["good", "mid", "bad"]
    assert report.means["assessor:alice"] == {"good": 1.0, "bad": 0.0, "mid": 0.5}
    # bob: good 0.5 (d1), bad 0.5 (d5), mid 0.5 (d1) -> all tied, by name
    assert report.rankings["assessor:bob"] == ["bad", "good", "mid"]
    alice_bob = next(c for c in report.correlations if c.a == "assessor:alice")
    assert math.isnan(alice_bob.kendall_tau_b)  # bob's means are all equal
    assert alice_bob.kendall_tau_a == 0.0
    # majority of {alice, bob}: ties go to the lower grade -> only d1 relevant
    assert report.rankings["consensus:majority"] == ["good", "mid", "bad"]
    assert report.means["consensus:majority"] == {"good": 0.5, "bad": 0.0, "mid": 0.5}
    assert len(report.tests) == 3 and report.tests_source == "consensus:majority"


def test_compare_systems_named_assessors_and_errors(stored):
    report = compare_systems(stored, "P@2", assessors=["bob"])
    assert report.sources == ("consensus:majority", "assessor:bob")
    with pytest.raises(NotFoundError):
        compare_systems(stored, "P@2", assessors=["nobody"])


def test_compare_without_judgments_is_empty(db):
    report = compare_systems(db, "nDCG@10", by_assessor=True)
    assert report.rankings == {"consensus:majority": []}
    assert report.tests == [] and report.correlations == []


def test_rankings_under_two_measures(stored):
    report = compare_systems(stored, "P@2", other_measures=["P@1", "recip_rank"], assessors=["alice"])
    assert report.sources == (
        "consensus:majority", "assessor:alice", "consensus:majority P@1",
        "consensus:majority recip_rank",
    )
    # consensus: only d1 relevant. P@1: good 1 (d1 first), mid 0 (d3), bad 0 (d5)
    assert report.means["consensus:majority P@1"] == {"good": 1.0, "bad": 0.0, "mid": 0.0}
    # RR: good 1, mid 1/2 (d1 at rank 2), bad 1/5
    assert report.means["consensus:majority recip_rank"] == pytest.approx(
        {"good": 1.0, "bad": 0.2, "mid": 0.5}
    )
    assert report.rankings["consensus:majority recip_rank"] == ["good", "mid", "bad"]
    assert len(report.correlations) == 6  # 4 sources, every pair
    # tests stay on the first measure under the consensus
    assert report.measure == "P@2" and report.tests_source == "consensus:majority"


def test_one_measure_at_a_time(stored):
    from workbench.errors import UsageError

    with pytest.raises(UsageError):
        compare_systems(stored, "P")  # trec_eval's P expands to nine cutoffs
