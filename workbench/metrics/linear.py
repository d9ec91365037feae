"""Measures that are, within a query, a sum over ranks of a fixed weight times the gain of
the document at that rank: sum_r w(r) * gain(grade_r). Their mean over topics is a mean of
item labels with weights the labels do not set, which is what prediction-powered inference
needs (campaign/scoring/ppi.py, docs/uncertainty.md).

- P@k: w = 1/k for r <= k, gain = [grade >= rel].
- DCG@k and CG@k (the formulations): w = 1 / discount(r) (1 for CG) for r <= k, gain linear
  (the grade) or exponential (2^g - 1); trec_eval's dcg over the whole list (no gain pairs).
- RBP(rel=N): w = (1 - p) p^(r - 1) over the whole list, gain = [grade >= N]. Graded RBP
  divides by the query's top grade, which the labels set, and is not linear in them.

Everything else (nDCG, AP, bpref, R-precision, ...) divides by a quantity the labels set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.metrics.kernels.gain import gains, rank_discounts
from workbench.metrics.kernels.rbp import RBP_P
from workbench.metrics.measures import Measure

__all__ = ["LinearForm", "linear_form", "not_linear_reason"]

_DIVIDES = {
    "ndcg": "it divides by the ideal DCG, which the labels themselves set",
    "ndcg_cut": "it divides by the ideal DCG, which the labels themselves set",
    "nDCG": "it divides by the ideal DCG, which the labels themselves set",
    "map": "it divides by the number of relevant documents, which the labels set",
    "bpref": "it counts judged non-relevant documents above each relevant one and divides by R",
    "Rprec": "its cutoff R is the number of relevant documents, which the labels set",
}


@dataclass(frozen=True)
class LinearForm:
    """sum over ranks r <= depth of weight(r) * gain(grade_r); depth None: the whole list."""

    measure: Measure
    depth: int | None
    kind: str  # "binary" | "linear" | "exp"
    rel: int | None  # binary gains: the threshold (None: the evaluation's level)

    def weights(self, rank: np.ndarray) -> np.ndarray:
        """The weight of each 1-based rank."""
        m = self.measure
        rank = np.asarray(rank, dtype=np.int64)
        if m.family == "P":
            return np.full(rank.size, 1.0 / float(m.cutoff))
        if m.family == "CG":
            return np.ones(rank.size)
        if m.family == "rbp":
            p = float(dict(m.params).get("p", RBP_P))
            return (1.0 - p) * np.power(p, (rank - 1).astype(np.float64))
        return 1.0 / rank_discounts(rank, m.discount, m.base)

    def gains(self, grade: np.ndarray, level: int) -> np.ndarray:
        """The gain of each grade (a negative grade, unjudged, gains 0)."""
        grade = np.asarray(grade)
        if self.kind == "binary":
            return (grade >= (level if self.rel is None else self.rel)).astype(np.float64)
        return gains(grade, self.kind)


def not_linear_reason(m: Measure) -> str | None:
    """Why `m` is not a fixed-weight sum of item gains (None: it is)."""
    if m.judged_only:
        return f"{m}: judged_only drops the unjudged documents, which the labels set"
    if m.family == "P":
        return None if m.cutoff else f"{m}: P needs a cutoff (P@k)"
    if m.family in ("DCG", "CG"):
        return (f"{m}: gain pairs rescale by grade" if m.params else None)
    if m.family == "dcg":
        return f"{m}: dcg with gain pairs is not covered; use DCG@k" if m.params else None
    if m.family == "rbp":
        if m.rel is None:
            return (f"{m}: graded RBP divides each gain by the query's top grade, which the "
                    f"labels set; binarise it with RBP(rel=N)")
        return None
    why = _DIVIDES.get(m.family)
    if why:
        return f"{m}: {why}"
    return f"{m}: not a sum of fixed rank weights times item gains (P@k, DCG@k, CG@k, RBP(rel=N))"


def linear_form(m: Measure) -> LinearForm | None:
    """The measure as weights and gains, or None (see `not_linear_reason`)."""
    if not_linear_reason(m) is not None:
        return None
    if m.family in ("P", "rbp"):
        return LinearForm(m, m.cutoff if m.family == "P" else None, "binary", m.rel)
    kind = "linear" if m.family == "dcg" else m.gain
    return LinearForm(m, m.cutoff, kind, None)
