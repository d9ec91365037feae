"""Measure kernels, one module per family, one signature.

Every kernel is ``kernel(ctx, measure) -> np.ndarray``: one value per qrels query (a
float64; relstring's are strings), for the ``Context`` of one ranking at one relevance
level (``context.py``). The registry (``metrics/registry.py``) names each family's kernel,
source file and aggregation; each kernel's docstring gives its formula and where it comes
from. Families:

- ``counts``: runid, num_q, num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret, relstring;
- ``precision``: P, recall, success, set_P, set_recall, F, Rprec, Rprec_mult, relative_P,
  set_relative_P, set_map, utility, unj, Judged;
- ``average_precision``: AP (map, map_cut, gm_map), bpref, infAP, RR, iprec_at_recall,
  11pt_avg;
- ``gain``: the DCG family (trec_eval's and the formulations), ndcg_rel, Rndcg, G, binG; the
  DCG formula (``gains``, ``discount``) lives there once;
- ``rbp``: rank-biased precision and its residual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from workbench.metrics.kernels.context import INFAP_EPSILON, MIN_GEO_MEAN, Context
from workbench.metrics.qrels_index import QrelsIndex
from workbench.metrics.ranking import Ranking

if TYPE_CHECKING:
    from workbench.metrics.measures import Measure

__all__ = ["compute", "Context", "MIN_GEO_MEAN", "INFAP_EPSILON"]


def compute(measure: Measure, index: QrelsIndex, rk: Ranking, level: int, compat: int,
            _ctx_cache: dict | None = None, num_docs: int = 0) -> np.ndarray:
    """Per-query values (length nq) of one measure on one ranking: its family's kernel
    (num_docs: trec_eval's -N, the collection size utility uses)."""
    lvl = level if measure.rel is None else measure.rel
    cache = _ctx_cache if _ctx_cache is not None else {}
    if lvl not in cache:
        cache[lvl] = Context(index, rk, lvl, compat, num_docs)
    return measure.spec.kernel(cache[lvl], measure)
