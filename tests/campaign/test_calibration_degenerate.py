"""calibrate on degenerate input says what it is: top k
with k systems or fewer, a constant rater, a constant ranking, a stratified sample not yet
judged, another machine as the reference, an empty measure name."""

from __future__ import annotations

import math

import pytest

from tests.campaign.machine_campaign import build_machine_campaign, write_qrels
from workbench.campaign.agreement.calibration import calibrate
from workbench.campaign.agreement.degenerate import BY_CONSTRUCTION, UNDEFINED, kappa_warning
from workbench.campaign.catalog.importing import import_qrels
from workbench.campaign.machine.provenance import make_provenance
from workbench.campaign.pooling.validation import validate_machine
from workbench.errors import UsageError


def _machine(db, tmp, name, labels):
    import_qrels(db, write_qrels(tmp / f"{name}.qrels", labels), assessor=name,
                 machine=make_provenance("other-model", prompt="grade {query} {passage}"))


def test_top_k_with_k_systems_or_fewer_is_not_applicable(db, tmp_path):
    c = build_machine_campaign(db, tmp_path, n_systems=3, n_queries=4)
    # a machine that reverses the people's ranking still shares "the top 3" of 3 systems
    report = calibrate(db, "llm")
    text = "\n".join(line for line, _ in report.lines())
    assert "top 3 n/a (only 3 systems)" in text and "top 10 n/a (only 3 systems)" in text
    assert "top 3 same" not in text
    ranking = report.to_json()["rankings"]["human_vs_machine"]
    assert ranking["top3_same"] is None and ranking["top10_same"] is None
    assert ranking["top3_shared"] == 3
    assert len(c.runs) == 3


def test_top_3_of_6_systems_still_compares(db, tmp_path):
    build_machine_campaign(db, tmp_path, n_systems=6, n_queries=4)
    ranking = calibrate(db, "llm").to_json()["rankings"]["human_vs_machine"]
    assert ranking["top3_same"] in (True, False) and ranking["top10_same"] is None


def test_constant_machine_kappa_zero_by_construction_and_constant_ranking(db, tmp_path):
    c = build_machine_campaign(db, tmp_path, n_queries=4, n_systems=4)
    _machine(db, tmp_path, "flat", {item: 0 for item in c.pool})
    report = calibrate(db, "flat")
    j = report.to_json()
    # kappa stays 0 (defined by construction), its interval is null, a warning names flat
    assert j["kappa_binary"] == 0.0 and j["kappa_binary_ci"] == [None, None]
    assert j["kappa_weighted"] == 0.0 and j["kappa_weighted_ci"] == [None, None]
    assert any("0 by construction: flat gave one value only (0)" in w for w in j["warnings"])
    # every system scores 0 under the machine's labels: tau is undefined, with the reason
    assert any("ranking under assessor:flat gives every system the same score" in w
               for w in j["warnings"])
    assert j["rankings"]["human_vs_machine"]["tau_b"] is None
    assert j["rankings"]["human_vs_machine"]["tau_ap"] is None


def test_both_raters_constant_is_undefined():
    kind, words = kappa_warning([1, 1, 1], [0, 0, 0], "alice", "llm", "kappa")
    assert kind == UNDEFINED and "undefined" in words and "alice" in words
    kind, words = kappa_warning([1, 0, 1], [2, 2, 2], "alice", "llm", "kappa")
    assert kind == BY_CONSTRUCTION and "llm gave one value only (2)" in words
    assert kappa_warning([1, 0], [1, 0], "a", "b", "kappa") == (None, "")


def test_both_constant_in_calibrate_is_null(db, tmp_path):
    c = build_machine_campaign(db, tmp_path, n_queries=2, n_systems=3, people=())
    items = c.pool[:20]
    import_qrels(db, write_qrels(tmp_path / "zed.qrels", {i: 0 for i in items}), assessor="zed")
    _machine(db, tmp_path, "flat", {i: 0 for i in c.pool})
    j = calibrate(db, "flat", against="zed").to_json()
    assert j["kappa_binary"] is None and j["kappa_weighted"] is None
    assert any("undefined: both gave one value only" in w for w in j["warnings"])


def test_stratified_sample_not_yet_judged_is_not_called_a_disagreement_sample(db, tmp_path):
    build_machine_campaign(db, tmp_path, n_queries=3, n_systems=3, people=())
    validate_machine(db, "llm", budget=12, strategy="stratified", assessors=["carol"], seed=1)
    warnings = calibrate(db, "llm").warnings
    assert not any("disagreement sample" in w for w in warnings)
    assert any("none of the 12 items of the validation sample (stratified) is judged" in w
               for w in warnings)


def test_against_another_machine_is_not_human_vs_machine(db, tmp_path):
    c = build_machine_campaign(db, tmp_path, n_queries=4, n_systems=4)
    _machine(db, tmp_path, "llm2", {item: min(3, g + 1) for item, g in c.machine.items()})
    text = "\n".join(line for line, _ in calibrate(db, "llm", against="llm2").lines())
    assert "human" not in text
    assert "reference vs machine" in text and "Confusion (rows reference grade" in text
    people = "\n".join(line for line, _ in calibrate(db, "llm").lines())
    assert "human vs machine" in people


def test_empty_measure_is_refused(db, tmp_path):
    build_machine_campaign(db, tmp_path, n_queries=2, n_systems=3)
    with pytest.raises(UsageError, match="-m needs a measure name"):
        calibrate(db, "llm", measure="")
    assert not math.isnan(calibrate(db, "llm", measure=None).agreement.kappa_binary)
