"""The per-query calculator behind ``workbench quick``: one list of grades, every formula.

For a ranked list of grades (rank 1 first) it gives, rank by rank, the gain, the
discount, DCG so far and the ideal DCG so far, and the summary measures (CG, DCG, IDCG,
nDCG under each formulation of docs/architecture.md#measure-semantics, P@k, AP, RR). The ideal ordering is the same
grades sorted descending (all the judged documents of the query are the ones given),
unless more relevant documents exist than the list shows (``num_rel``).

Formulas (ranks i = 1, 2, …; grades g_i, negative grades count as 0), the kernels' own
(``kernels.gain``: the DCG formula lives there once):
- gain: linear g_i, or exponential 2^g_i − 1;
- discount: ``log2`` → divide by log2(i + 1) at every rank;
  ``jk`` (Järvelin–Kekäläinen, base b) → no discount before rank b, then divide by
  log_b(i);
- DCG@k = Σ_{i<=k} gain_i / discount_i; IDCG@k the same over the ideal order;
  nDCG@k = DCG@k / IDCG@k (0 when IDCG is 0); CG@k = Σ_{i<=k} gain_i.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.metrics.kernels.gain import gains as _kernel_gains
from workbench.metrics.kernels.gain import rank_discounts

__all__ = ["Formulation", "FORMULATIONS", "RankTable", "QuickSummary", "rank_table", "quick_summary"]


@dataclass(frozen=True)
class Formulation:
    """One way of computing DCG: gain ``linear``|``exp``, discount ``log2``|``jk``, base b."""

    gain: str = "linear"
    discount: str = "log2"
    base: float = 2.0

    @property
    def name(self) -> str:
        d = "log2(i+1)" if self.discount == "log2" else f"J-K b={_num(self.base)}"
        return f"{'exponential' if self.gain == 'exp' else 'linear'} gain, {d}"


def _num(x: float) -> str:
    if abs(x - math.e) < 1e-12:
        return "e"
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


FORMULATIONS = (
    Formulation("linear", "log2"),
    Formulation("linear", "jk", 2.0),
    Formulation("exp", "log2"),
    Formulation("exp", "jk", 2.0),
)


def gains(grades, gain: str) -> np.ndarray:
    """The gains of a list of grades: the DCG formula of the kernels (kernels.gain.gains)."""
    return _kernel_gains(np.asarray(grades, dtype=np.int64), gain)


def discounts(n: int, discount: str, base: float = 2.0) -> np.ndarray:
    """The divisor at ranks 1..n: the kernels' discount (kernels.gain.rank_discounts)."""
    return rank_discounts(np.arange(1, n + 1, dtype=np.int64), discount, base)


@dataclass(frozen=True)
class RankTable:
    """Per-rank columns for one formulation (arrays of length len(grades))."""

    formulation: Formulation
    grade: np.ndarray
    gain: np.ndarray
    discount: np.ndarray
    dcg: np.ndarray
    ideal_grade: np.ndarray
    idcg: np.ndarray


def rank_table(grades, formulation: Formulation = FORMULATIONS[0], judged=None) -> RankTable:
    """Gain, discount, DCG so far and ideal DCG so far at each rank. The ideal ordering is
    the grades' own, or that of `judged` (every judged document of the query) when given."""
    g = np.asarray(list(grades), dtype=np.int64)
    pool = g if judged is None else np.asarray(list(judged), dtype=np.int64)
    ideal = np.zeros(g.size, dtype=np.int64)
    best = np.sort(pool)[::-1][: g.size]
    ideal[: best.size] = best
    disc = discounts(g.size, formulation.discount, formulation.base)
    gain = gains(g, formulation.gain)
    return RankTable(
        formulation=formulation,
        grade=g,
        gain=gain,
        discount=disc,
        dcg=np.cumsum(gain / disc),
        ideal_grade=ideal,
        idcg=np.cumsum(gains(ideal, formulation.gain) / disc),
    )


@dataclass(frozen=True)
class QuickSummary:
    """Summary values at depth k (k = the list length when not given)."""

    k: int
    rel_level: int
    num_rel: int
    cg: float
    dcg: dict[Formulation, tuple[float, float, float]]  # (DCG, IDCG, nDCG)
    precision: float
    ap: float
    rr: float


def quick_summary(
    grades, *, k: int | None = None, rel_level: int = 1, num_rel: int | None = None,
    formulations=FORMULATIONS, judged=None,
) -> QuickSummary:
    """CG, DCG/IDCG/nDCG per formulation, P@k, AP and RR at depth k for one list of grades.

    AP@k = Σ over relevant ranks <= k of (relevant so far / rank) / R (trec_eval's
    map_cut.k), with R = num_rel or the number of grades >= rel_level in the list (or in
    `judged`); RR@k = 1 / rank of the first relevant at or above k, else 0. Every value is
    at k: with k = the list length, AP and RR are the whole list's.

    `judged`: the grades of every judged document of the query (a qrels), when the list
    comes from a system's ranking: R counts them, and the ideal ordering is theirs (as in
    trec_eval's ndcg_cut), not only the listed grades.
    """
    g = np.asarray(list(grades), dtype=np.int64)
    n = g.size
    k = n if k is None else int(k)
    if k <= 0:
        raise ValueError("k must be positive")
    rel = g >= rel_level
    pool = g if judged is None else np.asarray(list(judged), dtype=np.int64)
    listed = int((pool >= rel_level).sum())
    R = listed if num_rel is None else int(num_rel)
    if R < listed:
        what = "given" if judged is None else "judged"
        raise ValueError(f"num_rel ({R}) is smaller than the relevant grades {what} ({listed})")
    ranks = np.arange(1, n + 1)
    crel = np.cumsum(rel)
    at_k = rel & (ranks <= k)
    ap = float((crel[at_k] / ranks[at_k]).sum() / R) if R else 0.0
    first = np.flatnonzero(at_k)
    rr = 1.0 / (first[0] + 1) if first.size else 0.0
    top = g[:k]
    ideal_all = np.sort(pool)[::-1]
    # more relevant documents than listed: the ideal list holds them at grade rel_level
    extra = R - listed
    if extra:
        ideal_all = np.sort(np.concatenate((pool, np.full(extra, rel_level))))[::-1]
    out = {}
    for f in formulations:
        d = discounts(max(k, 1), f.discount, f.base)
        dcg = float((gains(top, f.gain) / d[: top.size]).sum())
        it = ideal_all[:k]
        idcg = float((gains(it, f.gain) / d[: it.size]).sum())
        out[f] = (dcg, idcg, dcg / idcg if idcg > 0 else 0.0)
    return QuickSummary(
        k=k, rel_level=rel_level, num_rel=R, cg=float(gains(top, "linear").sum()),
        dcg=out, precision=float((g[:k] >= rel_level).sum()) / k, ap=ap, rr=rr,
    )
