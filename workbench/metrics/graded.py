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
    """CG, DCG/IDCG/nDCG per formulation, P@k, AP and RR at depth k for one list of grades,
    computed by the evaluation kernels on a one-query ranking (the numbers `eval` gives).

    AP@k = Σ over relevant ranks <= k of (relevant so far / rank) / R (trec_eval's
    map_cut.k), with R = num_rel or the number of grades >= rel_level in the list (or in
    `judged`); RR@k = 1 / rank of the first relevant at or above k, else 0. Every value is
    at k: with k = the list length, AP and RR are the whole list's.

    The query's qrels are the listed documents with their grades, plus the documents the
    list does not show: with `judged` (the grades of every judged document of the query,
    when the list comes from a system's ranking) the judged grades the list does not hold,
    so that R and the ideal ordering are theirs (as in trec_eval's ndcg_cut); with
    `num_rel` above the relevant grades known, that many more relevant documents at grade
    rel_level. A negative grade is trec_eval's "in the pool, unjudged".
    """
    from workbench.metrics.evaluate import evaluate
    from workbench.metrics.measures import Measure

    g = np.asarray(list(grades), dtype=np.int64)
    n = g.size
    k = n if k is None else int(k)
    if k <= 0:
        raise ValueError("k must be positive")
    unseen = np.zeros(0, dtype=np.int64) if judged is None else _without(judged, g)
    known = int((g >= rel_level).sum() + (unseen >= rel_level).sum())
    R = known if num_rel is None else int(num_rel)
    if R < known:
        what = "given" if judged is None else "judged"
        raise ValueError(f"num_rel ({R}) is smaller than the relevant grades {what} ({known})")
    unseen = np.concatenate((unseen, np.full(R - known, rel_level, dtype=np.int64)))
    # one query: the listed documents 0..n-1 ranked by descending score, then the rest
    qrels_docno = np.arange(n + unseen.size, dtype=np.int64)
    run_docno = qrels_docno[:n]
    per_f = {f: tuple(Measure(fam, cutoff=k, gain=f.gain, discount=f.discount, base=f.base)
                      for fam in ("DCG", "IDCG", "nDCG")) for f in formulations}
    cg, p, ap, rr = (Measure("CG", cutoff=k), Measure("P", cutoff=k), Measure("map_cut", cutoff=k),
                     Measure("recip_rank", cutoff=k))
    measures = [cg, p, ap, rr, *(m for ms in per_f.values() for m in ms)]
    ev = evaluate(np.zeros(qrels_docno.size, dtype=np.int64), qrels_docno, np.concatenate((g, unseen)),
                  np.zeros(n, dtype=np.int64), run_docno, (n - run_docno).astype(np.float64),
                  list(dict.fromkeys(measures)), rel_level=rel_level)

    def value(m: Measure) -> float:
        values = ev.per_query[m]
        return float(values[0]) if values.size else 0.0

    return QuickSummary(
        k=k, rel_level=rel_level, num_rel=R, cg=value(cg),
        dcg={f: tuple(value(m) for m in ms) for f, ms in per_f.items()},
        precision=value(p), ap=value(ap), rr=value(rr),
    )


def _without(pool, listed: np.ndarray) -> np.ndarray:
    """The grades of `pool` (a multiset) less those of `listed`, one for one."""
    pool = np.sort(np.asarray(list(pool), dtype=np.int64))
    grades, counts = np.unique(pool, return_counts=True)
    taken = np.zeros_like(counts)
    lg, lc = np.unique(listed, return_counts=True)
    at = np.searchsorted(grades, lg)
    ok = (at < grades.size) & (grades[np.minimum(at, grades.size - 1)] == lg) if grades.size else at < 0
    taken[at[ok]] = lc[ok]
    return np.repeat(grades, np.maximum(counts - taken, 0))
