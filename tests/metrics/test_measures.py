"""The measure registry: trec_eval names with defaults, ir_measures-style names."""

from __future__ import annotations

import pytest

from workbench.metrics.measures import Measure, MeasureError, parse_measure, parse_measures


def labels(*names):
    return [m.label for m in parse_measures(list(names))]


def test_trec_defaults_expand():
    assert labels("P") == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert labels("iprec_at_recall") == [f"iprec_at_recall_{p / 10:3.2f}" for p in range(11)]
    assert labels("success") == ["success_1", "success_5", "success_10"]
    assert labels("ndcg_cut")[:2] == ["ndcg_cut_5", "ndcg_cut_10"]
    assert labels("set_F") == ["set_F"]
    assert labels("official")[:6] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]


def test_trec_parameters():
    assert labels("P.10,5") == ["P_5", "P_10"]
    assert labels("ndcg_cut.10") == ["ndcg_cut_10"]
    assert labels("recall.100") == ["recall_100"]
    assert labels("iprec_at_recall.0.5") == ["iprec_at_recall_0.50"]
    assert labels("set_F.0.5") == ["set_F_0.5"]
    assert labels("11pt_avg") == ["11pt_avg"]


def test_trec_print_order_and_dedup():
    assert labels("ndcg", "P.5", "map", "num_ret", "P_5" if False else "P@5") == [
        "num_ret", "map", "P_5", "ndcg",
    ]


def test_an_explicit_cutoff_survives_its_family_named_again():
    """A family named with parameters drops only the defaults a bare name or a set brings,
    whichever comes first (the lists are what trec_eval 10 prints)."""
    assert labels("P.5", "P") == ["P_5"]
    assert labels("P", "P.5") == ["P_5"]
    assert labels("P_10", "P") == ["P_10"]
    assert [x for x in labels("P.5,10", "official") if x.startswith("P_")] == ["P_5", "P_10"]
    assert labels("ndcg_cut.15", "ndcg_cut") == ["ndcg_cut_15"]
    cut = [x for x in labels("ndcg_cut.1,2,3,1000", "all_trec") if x.startswith("ndcg_cut")]
    assert cut == ["ndcg_cut_1", "ndcg_cut_2", "ndcg_cut_3", "ndcg_cut_1000"]
    # every explicit list counts (trec_eval reads the first only: docs/measures.md)
    assert labels("P.5", "P.10") == ["P_5", "P_10"]


def test_ir_measures_names_map_to_trec():
    assert parse_measure("nDCG@10") == parse_measure("ndcg_cut.10")
    assert parse_measure("AP") == parse_measure("map")
    assert parse_measure("RR") == parse_measure("recip_rank")
    assert parse_measure("Bpref") == parse_measure("bpref")
    assert parse_measure("P@5") == parse_measure("P.5")
    assert parse_measure("R@100") == parse_measure("recall.100")
    assert parse_measure("AP@10") == parse_measure("map_cut.10")
    assert parse_measure("nDCG") == parse_measure("ndcg")
    assert parse_measure("Rprec").label == "Rprec"
    assert parse_measure("SetF").label == "set_F"


def test_relevance_threshold_parameter():
    m = parse_measure("P(rel=2)@5")
    assert (m.family, m.cutoff, m.rel) == ("P", 5, 2)
    assert m.label == "P(rel=2)@5"
    assert m != parse_measure("P@5")


def test_dcg_family_parameters():
    m = parse_measure("nDCG(gain=exp,discount=jk,base=3)@10")
    assert (m.family, m.gain, m.discount, m.base, m.cutoff) == ("nDCG", "exp", "jk", 3.0, 10)
    assert m.label == "nDCG(gain=exp,discount=jk,base=3)@10"
    assert parse_measure("nDCG(gain=linear)@10") == parse_measure("ndcg_cut.10")
    assert parse_measure("Judged@10") == Measure("Judged", cutoff=10)


def test_measures_are_hashable_values():
    a, b = parse_measure("P.5"), parse_measure("P@5")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1


@pytest.mark.parametrize("bad", [
    "nope", "P.0", "P.5,5", "P.x", "map.5", "P@x", "nDCG(gain=cubic)@10", "P(foo=1)@5",
    "nDCG(base=1)@5", "Rprec@5", "P",  # P names 9 measures: not one
])
def test_bad_names(bad):
    with pytest.raises(MeasureError):
        parse_measure(bad)
