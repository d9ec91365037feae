"""The measure registry: every record complete, every spelling parses back to its family."""

from __future__ import annotations

import re

import numpy as np
import pytest

from workbench.metrics.evaluate import aggregate
from workbench.metrics.measures import MeasureError, parse_measure, parse_measures
from workbench.metrics.registry import AGGREGATIONS, ALIASES, FAMILIES, SETS, ir_spellings

# ir_measures has no name for these (trec_eval-only output lines); set_relative_P and set_map
# are ir_measures' SetRelP and SetAP
TREC_ONLY = {"runid", "11pt_avg", "dcg", "ideal_dcg", "relstring", "gm_bpref", "Rprec_mult",
             "utility", "binG", "G", "ndcg_rel", "Rndcg", "relative_P",
             "num_nonrel_judged_ret", "rbp_resid", "unj"}
CITATION = re.compile(r"[A-Z][\w\-]+(?: et al\.| & [A-Z][\w\-]+|, [A-Z][\w\-]+ & [A-Z][\w\-]+)? \(\d{4}\)")


@pytest.mark.parametrize("fam", FAMILIES, ids=lambda f: f.name)
def test_every_record_is_complete(fam):
    assert fam.definition and len(fam.definition.splitlines()) == 1
    assert fam.aggregation in AGGREGATIONS
    if fam.trec:
        assert re.fullmatch(r"m_\w+\.c", fam.source), fam.source
    else:
        assert "not in trec_eval" in fam.source
    doc = fam.kernel.__doc__ or ""
    assert " = " in doc.split("\n\n")[0]  # the formula first
    assert CITATION.search(doc), f"{fam.name}: no citation in {fam.kernel.__name__}'s docstring"
    assert CITATION.search(fam.citation), f"{fam.name}: its record's citation names no paper"
    if fam.name in TREC_ONLY:
        assert ir_spellings(fam) == ()
    else:
        assert ir_spellings(fam), f"{fam.name} has no ir_measures spelling"
    if fam.param in ("cutoffs", "levels", "avg_levels"):
        assert fam.defaults


def test_aliases_are_unique_and_sets_in_print_order():
    assert len(ALIASES) == sum(len(f.aliases) for f in FAMILIES)
    assert [f.name for f in SETS["official"]] == [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
        "bpref", "recip_rank", "iprec_at_recall", "P"]


def _trec_spelling(fam) -> str:
    return {"cutoffs": f"{fam.name}.10", "levels": f"{fam.name}.0.5",
            "avg_levels": fam.name, "beta_squared": fam.name}.get(fam.param, fam.name)


def _ir_example(spelling: str) -> str:
    return spelling.replace("(gain=…,discount=…,base=…)", "(gain=exp,discount=jk,base=3)").replace("@k", "@10")


@pytest.mark.parametrize("fam", FAMILIES, ids=lambda f: f.name)
def test_canonical_names_parse_back_to_the_same_measure(fam):
    ms = []
    if fam.trec:
        m = parse_measure(_trec_spelling(fam))
        assert m.family == fam.name
        ms.append(m)
    for spelling in ir_spellings(fam):
        name = _ir_example(spelling)
        if fam.param == "levels":
            name += "@0.5"
        elif (fam.cutoff == "required" or fam.without_cutoff) and "@" not in name:
            name += "@10"
        m = parse_measure(name)
        assert m.family == fam.name, (name, m)
        if ms and not fam.ir_defaults:  # the trec_eval and ir_measures spellings name one measure
            assert m == ms[0], (name, m, ms[0])  # (unless ir_measures' defaults differ: RBP)
        ms.append(m)
    for m in ms:  # and the printed label parses back to it (or is suggested)
        assert _from_label(m.label) == m
        assert _from_label(m.label).label == m.label


def _from_label(label: str):
    """The measure a printed label names: it parses, or the error suggests the spelling
    (trec_eval prints P_10 for P.10)."""
    try:
        return parse_measure(label)
    except MeasureError as exc:
        guess = re.fullmatch(r"unknown measure '.*' — did you mean (.*)\?", str(exc))
        assert guess, str(exc)
        return parse_measure(guess[1])


def test_every_default_measure_round_trips_through_its_label():
    every = parse_measures([f.name for f in FAMILIES if f.trec] + ["Judged@5", "F@5", "CG@5",
                            "DCG(discount=jk)@5", "IDCG@5", "nDCG(gain=exp)@5", "P(rel=2)@5",
                            "RR@10", "SetF(beta=2)", "AP(rel=3)"])
    assert len(every) == 68 + 34 + 10  # 34: trec_eval's remaining families
    for m in every:
        assert _from_label(m.label) == m


def test_aggregation_comes_from_the_record():
    v = np.array([0.5, 0.0, 1.0])
    assert aggregate(parse_measure("map"), v) == 0.5
    assert aggregate(parse_measure("num_ret"), np.array([3.0, 4.0])) == 7.0
    assert aggregate(parse_measure("num_q"), np.ones(4)) == 4.0
    assert aggregate(parse_measure("gm_map"), v) == pytest.approx(np.exp(np.log([0.5, 1e-5, 1.0]).mean()))
    assert aggregate(parse_measure("map"), np.array([])) == 0.0
    assert parse_measure("num_rel").is_count and not parse_measure("P@5").is_count
    assert parse_measure("gm_map").summary_only and not parse_measure("map").summary_only


def test_printed_names_are_accepted_back():
    """What the workbench prints (trec_eval's labels) parses to the same measure."""
    for printed, trec in [("P_10", "P.10"), ("ndcg_cut_10", "ndcg_cut.10"), ("set_F_0.5", "set_F.0.5"),
                          ("iprec_at_recall_0.50", "iprec_at_recall.0.50"), ("rbp_p=0.8", "rbp.p=0.8"),
                          ("utility_2,-1,0,0", "utility.2,-1,0,0"), ("ndcg_1=3,2=9", "ndcg.1=3,2=9")]:
        assert parse_measures([printed]) == parse_measures([trec])
        assert [m.label for m in parse_measures([printed])] == [printed]


@pytest.mark.parametrize("name, guess", [
    ("ndcg_cutt.10", "ndcg_cut.10"), ("nDGC@10", "nDCG@10"), ("mapp", "map"),
    ("Bpreff", "Bpref"), ("offical", "official"), ("iprec_at_recal.0.5", "iprec_at_recall.0.5"),
    ("recal.100", "recall.100"), ("precisionn@10", "precision@10"), ("P(rell=2)@5", None), ("xyzzy", None),
])
def test_unknown_names_suggest_the_closest_spelling(name, guess):
    with pytest.raises(MeasureError) as exc:
        parse_measures([name])
    if guess is None:
        assert str(exc.value) == f"unknown measure {name!r}" or "unknown parameter" in str(exc.value)
    else:
        assert str(exc.value) == f"unknown measure {name!r} — did you mean {guess}?"


def test_a_parameter_the_family_lacks_is_refused():
    with pytest.raises(MeasureError, match="unknown parameter"):
        parse_measure("P(beta=2)@5")
    with pytest.raises(MeasureError, match="takes no cutoff"):
        parse_measure("Bpref@10")
    with pytest.raises(MeasureError, match="needs a cutoff"):
        parse_measure("Success")
