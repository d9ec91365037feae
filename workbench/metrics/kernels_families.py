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
    """ndcg_rel = (1/L) Σ over the L documents of positive gain of DCG@i / IDCG@min(i, L),
    i the rank where the document was retrieved (the run's end when it was not).

    Järvelin & Kekäläinen (2002), ACM TOIS 20(4); averaged at relevant documents:
    Buckley (2008), trec_eval's experimental m_ndcg_rel.c (kernels_gain.ndcg_rel)."""
    return kg.ndcg_rel(ctx.rk, _tables(ctx, m))


def Rndcg(ctx, m: Measure) -> np.ndarray:
    """Rndcg = mean of DCG@c / IDCG@c over the ranks c where the ideal gain changes.

    Järvelin & Kekäläinen (2002), ACM TOIS 20(4); at R levels: Buckley (2008), trec_eval's
    experimental m_Rndcg.c (kernels_gain.Rndcg)."""
    return kg.Rndcg(ctx.rk, _tables(ctx, m), ctx.R)


def G(ctx, m: Measure) -> np.ndarray:
    """G = Σ_i gain_i / log2(2 + ideal gain so far − gain so far) / Σ ideal gains.

    Buckley (2008), trec_eval's experimental m_G.c (kernels_gain.G)."""
    return kg.G(ctx.rk, _tables(ctx, m))


def binG(ctx, m: Measure) -> np.ndarray:
    """binG = (1/R) Σ over relevant retrieved d of 1 / log2(2 + non-relevant above d).

    Buckley (2008), trec_eval's experimental m_binG.c (kernels_gain.binG)."""
    return kg.binG(ctx.rk, ctx.R, ctx.level)


def rbp(ctx, m: Measure) -> np.ndarray:
    """RBP = (1 − p) Σ_i g_i p^(i−1), g_i = grade / top grade of the query's scale
    (gains outside [0, 1] rescaled), p = 0.9 unless ``rbp.p=…``.

    Moffat & Zobel (2008), "Rank-biased precision for measurement of retrieval
    effectiveness", ACM TOIS 27(1) (rbp.rbp). With ``rel=`` (ir_measures'
    ``RBP(rel=2,p=0.8)``) the gains are binary: 1 for a grade >= rel, else 0."""
    if m.rel is not None:
        rk, p = ctx.rk, rbp_persistence(m)
        hit = rk.rel >= m.rel
        w = (1.0 - p) * np.power(p, (rk.rank[hit] - 1).astype(np.float64))
        return np.bincount(rk.grp[hit], weights=w, minlength=rk.nq)
    return rb.rbp(ctx.rk, _tables(ctx, m), rbp_persistence(m))


def rbp_resid(ctx, m: Measure) -> np.ndarray:
    """rbp_resid = p^n + (1 − p) Σ over unjudged retrieved i of p^(i−1): the RBP upper
    bound minus RBP (0 when every retrieved document is judged, as trec_eval).

    Moffat & Zobel (2008), ACM TOIS 27(1) (rbp.rbp_resid)."""
    return rb.rbp_resid(ctx.rk, rbp_persistence(m))


def Rprec_mult(ctx, m: Measure) -> np.ndarray:
    """Rprec_mult(m) = relevant in the top k / k, k = (long)(m·R + 0.9).

    Buckley & Voorhees (2005), TREC book ch. 3 (R-precision); trec_eval m_Rprec_mult.c."""
    return ks.Rprec_mult(ctx.rk, ctx.R, ctx.level, (m.level,))[0]


def relative_P(ctx, m: Measure) -> np.ndarray:
    """relative_P@k = relevant in the top k / min(k, R) (0 when R = 0).

    Buckley & Voorhees (2005), TREC book ch. 3; trec_eval m_rel_P.c."""
    return ks.relative_P(ctx.rk, ctx.R, ctx.level, (m.cutoff,))[0]


def unj(ctx, m: Measure) -> np.ndarray:
    """unj@k = documents without a judgment in the top k / k (1 − ir_measures' Judged).

    MacAvaney, Macdonald & Ounis (2022), ECIR (Judged); trec_eval m_unjudged.c."""
    return ks.unj(ctx.rk, (m.cutoff,))[0]


def utility(ctx, m: Measure) -> np.ndarray:
    """utility = p1·a + p2·b + p3·c + p4·d (a relevant retrieved, b non-relevant
    retrieved, c relevant missed, d = -N + a − retrieved − R); default 1, −1, 0, 0.

    Hull & Robertson (2000), "The TREC-8 filtering track final report", TREC-8."""
    coef = m.params or ks.UTILITY_COEFFICIENTS
    return ks.utility(ctx.rk, ctx.R, ctx.level, coef, ctx.num_docs)


def set_map(ctx, m: Measure) -> np.ndarray:
    """set_map = relevant retrieved² / (retrieved · R): set precision × set recall.

    Buckley & Voorhees (2005), TREC book ch. 3; trec_eval m_set_map.c."""
    return ks.set_map(ctx.rk, ctx.R, ctx.level)


def set_relative_P(ctx, m: Measure) -> np.ndarray:
    """set_relative_P = relevant retrieved / min(retrieved, R).

    Buckley & Voorhees (2005), TREC book ch. 3; trec_eval m_set_rel_P.c."""
    return ks.set_relative_P(ctx.rk, ctx.R, ctx.level)


def num_nonrel_judged_ret(ctx, m: Measure) -> np.ndarray:
    """num_nonrel_judged_ret = |{retrieved d : 0 <= grade(d) < l}| (summed over queries).

    Buckley & Voorhees (2005), TREC book ch. 3; trec_eval m_num_nonrel_judged_ret.c."""
    return ks.num_nonrel_judged_ret(ctx.rk, ctx.level)


def relstring(ctx, m: Measure) -> np.ndarray:
    """relstring = the grades of the first n (10) retrieved documents as text: digits,
    ``>`` above 9, ``-`` not in the qrels, ``.`` unjudged; a ``str`` per query.

    Buckley & Voorhees (2005), TREC book ch. 3; trec_eval m_relstring.c."""
    length = int(m.params[0]) if m.params else RELSTRING_LENGTH
    out = np.empty(ctx.nq, dtype=object)
    out[:] = _relstring(ctx.rk, length)
    return out
