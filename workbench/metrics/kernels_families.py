"""Registry kernels (``kernel(ctx, measure)``) for trec_eval's families whose array code
lives in kernels_gain, kernels_set, rbp and relstring.

Each adapter reads the measure's parameters (``Measure.params``: gain pairs such as
``(("1", 3.0), ("p", 0.8))``, utility's four coefficients, relstring's length; or its
cutoff / level) and hands the flat ranking to the array kernel. Gain tables depend on the
qrels only, so they are built once per qrels index and parameter list and reused for
every run. Formulas and citations: the docstrings of the modules named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from workbench.metrics import kernels_gain as kg
from workbench.metrics import kernels_set as ks
from workbench.metrics import rbp as rb
from workbench.metrics.relstring import RELSTRING_LENGTH
from workbench.metrics.relstring import relstring as _relstring

if TYPE_CHECKING:
    from workbench.metrics.measures import Measure

__all__ = [
    "gain_dcg", "gain_ideal_dcg", "gain_ndcg", "ndcg_rel", "Rndcg", "G", "binG", "rbp",
    "rbp_resid", "Rprec_mult", "relative_P", "unj", "utility", "set_map",
    "set_relative_P", "num_nonrel_judged_ret", "relstring", "rbp_persistence",
]


def _tables(ctx, m: Measure) -> kg.GainTables:
    """trec_eval's gain tables of the qrels under the measure's gain pairs (cached on
    the qrels index: the same for every run)."""
    pairs = kg.parse_gain_pairs(m.params)
    key = ("gain_tables", pairs)
    cache = ctx.index.cache
    if key not in cache:
        index = ctx.index
        cache[key] = kg.gain_tables(kg.grade_counts(index.qcode, index.rel, index.nq), pairs)
    return cache[key]


def rbp_persistence(m: Measure) -> float:
    """The persistence p of rbp / rbp_resid: the last ``p=`` pair, else 0.9 (m_rbp.c)."""
    p = rb.RBP_P
    for name, value in m.params:
        if name == "p":
            p = float(value)
    return p


def gain_dcg(ctx, m: Measure) -> np.ndarray:
    """dcg with gain parameters (kernels_gain.dcg)."""
    return kg.dcg(ctx.rk, _tables(ctx, m))


def gain_ideal_dcg(ctx, m: Measure) -> np.ndarray:
    """ideal_dcg with gain parameters (kernels_gain.ideal_dcg)."""
    return kg.ideal_dcg(_tables(ctx, m))


def gain_ndcg(ctx, m: Measure) -> np.ndarray:
    """ndcg with gain parameters (kernels_gain.ndcg)."""
    return kg.ndcg(ctx.rk, _tables(ctx, m))


def ndcg_rel(ctx, m: Measure) -> np.ndarray:
    """nDCG averaged over the relevant documents (kernels_gain.ndcg_rel, m_ndcg_rel.c)."""
    return kg.ndcg_rel(ctx.rk, _tables(ctx, m))


def Rndcg(ctx, m: Measure) -> np.ndarray:
    """nDCG averaged at the R levels (kernels_gain.Rndcg, m_Rndcg.c)."""
    return kg.Rndcg(ctx.rk, _tables(ctx, m), ctx.R)


def G(ctx, m: Measure) -> np.ndarray:
    """Buckley's normalised gain G (kernels_gain.G, m_G.c)."""
    return kg.G(ctx.rk, _tables(ctx, m))


def binG(ctx, m: Measure) -> np.ndarray:
    """Binary G (kernels_gain.binG, m_binG.c)."""
    return kg.binG(ctx.rk, ctx.R, ctx.level)


def rbp(ctx, m: Measure) -> np.ndarray:
    """Rank-biased precision, Moffat & Zobel (2008) (rbp.rbp)."""
    return rb.rbp(ctx.rk, _tables(ctx, m), rbp_persistence(m))


def rbp_resid(ctx, m: Measure) -> np.ndarray:
    """RBP's residual: its upper bound minus RBP (rbp.rbp_resid)."""
    return rb.rbp_resid(ctx.rk, rbp_persistence(m))


def Rprec_mult(ctx, m: Measure) -> np.ndarray:
    """Precision at rank m·R (kernels_set.Rprec_mult, m_Rprec_mult.c)."""
    return ks.Rprec_mult(ctx.rk, ctx.R, ctx.level, (m.level,))[0]


def relative_P(ctx, m: Measure) -> np.ndarray:
    """Relevant in the top k / min(k, R) (kernels_set.relative_P, m_rel_P.c)."""
    return ks.relative_P(ctx.rk, ctx.R, ctx.level, (m.cutoff,))[0]


def unj(ctx, m: Measure) -> np.ndarray:
    """Unjudged documents in the top k / k (kernels_set.unj, m_unjudged.c)."""
    return ks.unj(ctx.rk, (m.cutoff,))[0]


def utility(ctx, m: Measure) -> np.ndarray:
    """p1·a + p2·b + p3·c + p4·d (kernels_set.utility, m_utility.c); d uses -N."""
    coef = m.params or ks.UTILITY_COEFFICIENTS
    return ks.utility(ctx.rk, ctx.R, ctx.level, coef, ctx.num_docs)


def set_map(ctx, m: Measure) -> np.ndarray:
    """Set precision times set recall (kernels_set.set_map, m_set_map.c)."""
    return ks.set_map(ctx.rk, ctx.R, ctx.level)


def set_relative_P(ctx, m: Measure) -> np.ndarray:
    """num_rel_ret / min(num_ret, R) (kernels_set.set_relative_P, m_set_rel_P.c)."""
    return ks.set_relative_P(ctx.rk, ctx.R, ctx.level)


def num_nonrel_judged_ret(ctx, m: Measure) -> np.ndarray:
    """Judged non-relevant documents retrieved (m_num_nonrel_judged_ret.c)."""
    return ks.num_nonrel_judged_ret(ctx.rk, ctx.level)


def relstring(ctx, m: Measure) -> np.ndarray:
    """The grades of the first n retrieved documents as text, one ``str`` per query in
    an object array (relstring.relstring, m_relstring.c)."""
    length = int(m.params[0]) if m.params else RELSTRING_LENGTH
    out = np.empty(ctx.nq, dtype=object)
    out[:] = _relstring(ctx.rk, length)
    return out
