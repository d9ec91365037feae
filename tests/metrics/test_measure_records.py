"""The registry's records name each family's spelling in ir_measures and in ranx
(`workbench measures NAME`): each spelling is the library's own (the library parses
it and computes it), -m takes it for the same family, and the values agree, per query, on
test_peer_spellings' graded collection (no tied scores, a relevant document per query)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from tests.metrics.test_peer_spellings import QIDS, QRELS, RUN, _ours, _ranx_interpreted
from workbench.metrics.measures import parse_measures
from workbench.metrics.registry import FAMILIES

ir_measures = pytest.importorskip("ir_measures")


def _concrete(spelling: str) -> str:
    """A spelling with its placeholders filled: k = 10, p (a recall level) = 0.5."""
    return spelling.replace("@k", "@10").replace("@p", "@0.5")


IR = [(f.name, _concrete(f.ir_measures)) for f in FAMILIES if f.ir_measures]
RANX = [(f.name, _concrete(f.ranx)) for f in FAMILIES if f.ranx]
# ir_measures parses these, but no provider of theirs is installed here (cwl_eval, trectools)
NO_PROVIDER = {"RBP(p=0.9)"}


def test_every_family_has_a_citation_and_the_main_ones_their_spellings():
    assert all(f.citation for f in FAMILIES)
    by = {f.name: f for f in FAMILIES}
    assert (by["map"].ir_measures, by["map"].ranx) == ("AP", "map")
    assert (by["ndcg_cut"].ir_measures, by["ndcg_cut"].ranx) == ("nDCG@k", "ndcg@k")
    assert (by["P"].ir_measures, by["P"].ranx) == ("P@k", "precision@k")
    assert (by["recip_rank"].ir_measures, by["recip_rank"].ranx) == ("RR", "mrr")
    assert by["bpref"].citation.startswith("Buckley & Voorhees (2004)")
    assert len(IR) >= 25 and len(RANX) >= 12


@pytest.mark.parametrize("family, spelling", IR + RANX, ids=[s for _, s in IR + RANX])
def test_minus_m_takes_the_spelling_for_the_same_family(family, spelling):
    assert {m.family for m in parse_measures([spelling])} == {family}


@pytest.mark.parametrize("family, spelling", IR, ids=[s for _, s in IR])
def test_ir_measures_spelling_gives_ir_measures_values(family, spelling):
    measure = ir_measures.parse_measure(spelling)  # ir_measures' own name: it parses it
    if spelling in NO_PROVIDER:
        return
    ref = {r.query_id: r.value for r in ir_measures.iter_calc([measure], QRELS, RUN)}
    ours = _ours(spelling, QRELS, RUN)
    assert set(ref) == set(ours) == set(QIDS)
    tol = 5e-6 if spelling.startswith(("ERR", "nDCG(dcg=")) else 1e-12  # gdeval prints 5 decimals
    for q, v in ref.items():
        assert math.isclose(ours[q], v, abs_tol=tol), (spelling, q, ours[q], v)


def test_ranx_spellings_give_ranx_values():
    names = [s for _, s in RANX]
    with _ranx_interpreted() as ranx, warnings.catch_warnings():  # numba's type warnings
        warnings.simplefilter("ignore")
        ref = ranx.evaluate(ranx.Qrels(QRELS), ranx.Run(RUN), names, return_mean=False)
    for name in names:
        ours = _ours(name, QRELS, RUN)
        values = np.asarray(ref[name])
        assert values.size == len(QIDS)
        for q, v in zip(sorted(RUN), values.tolist()):  # ranx: queries in sorted order
            assert math.isclose(ours[q], v, abs_tol=1e-12), (name, q, ours[q], v)
