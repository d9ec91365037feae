"""Rank-biased precision and its residual (Moffat & Zobel 2008), as trec_eval names them.

RBP = (1 - p) · sum over ranks i of gain_i · p^(i-1), with gains in [0, 1]; the residual
is how much RBP could still grow: the weight of the unjudged documents the run retrieved
plus that of every rank past its end, p^n + (1 - p) · sum over unjudged i of p^(i-1).

Gains: trec_eval's gain table (``kernels.gain.gain_tables``, so ``rbp.p=0.8,2=3`` works as
in trec_eval), rescaled to (gain - min) / (max - min) over the query's table when a gain
lies outside [0, 1]. With the default gains (gain = grade) that is grade / the query's
top grade, Moffat & Zobel's graded RBP. trec_eval 10's m_rbp.c compares the gains with
two variables it never initialises, so its rescaling depends on the build; here ``min``
and ``max`` start from the table itself, and the values equal trec_eval's whenever the
gains already lie in [0, 1] (binary qrels, or grades 0/1).

Cite: Alistair Moffat and Justin Zobel, "Rank-Biased Precision for Measurement of
Retrieval Effectiveness", ACM TOIS 27(1), article 2, 2008. doi:10.1145/1416950.1416952.
Source: usnistgov/trec_eval m_rbp.c, m_rbp_resid.c.

One signature: ``kernel(ctx, measure)`` -> float64 per qrels query.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from workbench.metrics.kernels.context import Context
from workbench.metrics.kernels.gain import GainTables, _tables, row_gains
from workbench.metrics.ranking import Ranking
from workbench.metrics.segments import per_query_sum

if TYPE_CHECKING:  # measures imports the registry, which imports these kernels
    from workbench.metrics.measures import Measure

RBP_P = 0.9  # trec_eval's default persistence


def rbp_gains(tables: GainTables) -> GainTables:
    """The tables with each layout's gains rescaled to [0, 1] when any lies outside
    ((g - min) / (max - min), min and max over that layout's table)."""
    gain_of = tables.gain_of.copy()
    for li in range(gain_of.shape[0]):
        q = np.flatnonzero(tables.layout == li)
        if q.size == 0:
            continue
        entries = tables.entry_gain[tables.entry_grp == q[0]]
        if entries.size == 0:
            continue
        lo, hi = float(entries.min()), float(entries.max())
        if lo < 0 or hi > 1:
            # only the levels in the table have a gain; the others (unjudged) stay 0
            levels = tables.entry_level[tables.entry_grp == q[0]]
            col = levels - tables.lo
            gain_of[li, col] = (gain_of[li, col] - lo) / (hi - lo)
    return GainTables(tables.nq, tables.lo, tables.layout, gain_of, tables.ideal_grp,
                      tables.ideal_gain, tables.ideal_len, tables.entry_grp,
                      tables.entry_level, tables.entry_gain, tables.entry_count)


def _rbp_values(rk: Ranking, tables: GainTables, p: float = RBP_P) -> np.ndarray:
    """RBP = (1 - p) · sum_i gain_i · p^(i-1) over the retrieved ranks (m_rbp.c), gains
    from ``rbp_gains(tables)``."""
    g = row_gains(rk, rbp_gains(tables))
    nz = g != 0
    w = g * np.power(float(p), (rk.rank - 1).astype(np.float64))
    return (1.0 - p) * per_query_sum(rk.grp, w, rk.nq, nz)


def _rbp_resid_values(rk: Ranking, p: float = RBP_P) -> np.ndarray:
    """The RBP residual (m_rbp_resid.c): p^n + (1 - p) · sum over retrieved documents
    without a judgment (absent from the qrels or a negative grade) of p^(i-1), n the
    number retrieved; 0, as in trec_eval, when every retrieved document is judged
    (Moffat & Zobel's residual would still be p^n there)."""
    nq = rk.nq
    unj = rk.rel < 0
    w = np.power(float(p), (rk.rank - 1).astype(np.float64))
    s = per_query_sum(rk.grp, w, nq, unj)
    n = np.bincount(rk.grp, minlength=nq).astype(np.float64)
    has = np.bincount(rk.grp[unj], minlength=nq) > 0
    return np.where(has, np.power(float(p), n) + (1.0 - p) * s, 0.0)


def rbp_persistence(m: Measure) -> float:
    """The persistence p of rbp / rbp_resid: the last ``p=`` pair, else 0.9 (m_rbp.c)."""
    p = RBP_P
    for name, value in m.params:
        if name == "p":
            p = float(value)
    return p


def rbp(ctx: Context, m: Measure) -> np.ndarray:
    """RBP = (1 − p) Σ_i g_i p^(i−1), g_i = grade / top grade of the query's scale
    (gains outside [0, 1] rescaled), p = 0.9 unless ``rbp.p=…``.

    Moffat & Zobel (2008), "Rank-biased precision for measurement of retrieval
    effectiveness", ACM TOIS 27(1) (rbp.rbp)."""
    return _rbp_values(ctx.rk, _tables(ctx, m), rbp_persistence(m))


def rbp_resid(ctx: Context, m: Measure) -> np.ndarray:
    """rbp_resid = p^n + (1 − p) Σ over unjudged retrieved i of p^(i−1): the RBP upper
    bound minus RBP (0 when every retrieved document is judged, as trec_eval).

    Moffat & Zobel (2008), ACM TOIS 27(1) (rbp.rbp_resid)."""
    return _rbp_resid_values(ctx.rk, rbp_persistence(m))
