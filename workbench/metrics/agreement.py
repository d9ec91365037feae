"""Agreement between assessors: P(A), P(E), the kappa family and Krippendorff's alpha.

Input layout, shared by every function here: a label array of shape (items, raters). One
row is one judged item (a query-document pair), one column one assessor. A label is a
grade (an integer, or any real value for interval alpha); a **missing** label is any
negative value (the conventional marker is ``MISSING = -1``, matching trec_eval's "negative
rel means unjudged") or NaN in a float array. Pairwise coefficients use the items both
raters labelled; Fleiss' kappa and alpha use every item with at least two labels.

Undefined values are NaN, never an exception: no overlapping items, or a single category
(P(E) = 1, so kappa = 0/0; alpha's expected disagreement is 0). `interpret` says so.

Everything is vectorised: categories are coded once, contingency tables come from
`np.bincount`, and there is no Python loop over items.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np

MISSING = -1
ACCEPTABLE = 2 / 3  # the reference notes: kappa in [2/3, 1] is acceptable

__all__ = [
    "MISSING",
    "ACCEPTABLE",
    "PairAgreement",
    "QueryAgreement",
    "binarize",
    "categories_of",
    "confusion_matrix",
    "observed_agreement",
    "expected_agreement",
    "cohen_kappa",
    "kappa_from_tables",
    "weighted_kappa_from_tables",
    "pooled_kappa",
    "scott_pi",
    "weighted_kappa",
    "pair_agreement",
    "fleiss_kappa",
    "fleiss_kappa_from_counts",
    "krippendorff_alpha",
    "per_query_agreement",
    "interpret",
    "landis_koch",
    "reading",
]


# ---------------------------------------------------------------- coding of labels


def _as_labels(labels) -> np.ndarray:
    arr = np.asarray(labels)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"labels must be (items, raters), got shape {arr.shape}")
    return arr


def _valid(arr: np.ndarray) -> np.ndarray:
    """True where a label is present (not negative, not NaN)."""
    if arr.dtype.kind == "f":
        return ~np.isnan(arr) & (arr >= 0)
    return arr >= 0


def categories_of(labels, categories=None) -> np.ndarray:
    """The sorted category values: `categories` if given, else those present in `labels`."""
    if categories is not None:
        return np.unique(np.asarray(categories))
    arr = _as_labels(labels)
    return np.unique(arr[_valid(arr)])


def _encode(arr: np.ndarray, categories=None) -> tuple[np.ndarray, np.ndarray]:
    """Category codes 0..K-1 (-1 = missing) and the category values, same shape as `arr`.

    Small non-negative integer grades (the usual case) go through a lookup table, which is
    several times faster than `np.unique` on a million labels.
    """
    valid = _valid(arr)
    codes = np.full(arr.shape, -1, dtype=np.int64)
    values = arr[valid]
    if categories is not None:
        cats = np.unique(np.asarray(categories))
        idx = np.searchsorted(cats, values)
        if values.size and (idx.max() >= len(cats) or np.any(cats[idx] != values)):
            raise ValueError(f"a label is not among the given categories {cats.tolist()}")
        codes[valid] = idx
        return codes, cats
    if values.size == 0:
        return codes, np.array([], dtype=arr.dtype)
    integral = arr.dtype.kind in "iub" or bool(np.all(values == np.round(values)))
    top = values.max()
    if integral and top < 1 << 16:
        ints = values.astype(np.int64)
        present = np.bincount(ints) > 0
        cats = np.flatnonzero(present)
        lookup = np.cumsum(present) - 1
        codes[valid] = lookup[ints]
        return codes, cats.astype(arr.dtype if arr.dtype.kind in "iu" else np.float64)
    cats, inverse = np.unique(values, return_inverse=True)
    codes[valid] = inverse
    return codes, cats


def binarize(labels, threshold: float = 1) -> np.ndarray:
    """Grades >= `threshold` -> 1, others -> 0; missing labels stay MISSING (-1).

    The same rule as trec_eval's ``-l``: relevant means grade >= threshold.
    """
    arr = np.asarray(labels)
    valid = _valid(arr)
    out = np.full(arr.shape, MISSING, dtype=np.int64)
    out[valid] = (arr[valid] >= threshold).astype(np.int64)
    return out


# ---------------------------------------------------------------- two raters


def _pair_codes(a, b, categories=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.asarray(a).ravel()
    b = np.asarray(b).ravel()
    if a.shape != b.shape:
        raise ValueError(f"the two label vectors differ in length ({a.size} vs {b.size})")
    codes, cats = _encode(np.stack([a, b], axis=1), categories)
    both = (codes[:, 0] >= 0) & (codes[:, 1] >= 0)
    return codes[both, 0], codes[both, 1], cats


def _table(ca: np.ndarray, cb: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(ca * k + cb, minlength=k * k).reshape(k, k)


def confusion_matrix(a, b, categories=None) -> tuple[np.ndarray, np.ndarray]:
    """Counts of (a's label, b's label) over items both labelled: (matrix, categories).

    Rows are rater `a`'s categories, columns rater `b`'s, both in sorted category order.
    """
    ca, cb, cats = _pair_codes(a, b, categories)
    return _table(ca, cb, len(cats)), cats


def _ratio(num: float, den: float) -> float:
    return float(num / den) if den != 0 else math.nan


def _kappa_from_table(table: np.ndarray, pooled: bool) -> tuple[float, float, float]:
    """(P(A), P(E), kappa) of a k x k contingency table."""
    n = table.sum()
    if n == 0:
        return math.nan, math.nan, math.nan
    p = table / n
    observed = float(np.trace(p))
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    if pooled:
        m = (rows + cols) / 2
        expected = float(np.dot(m, m))
    else:
        expected = float(np.dot(rows, cols))
    return observed, expected, _ratio(observed - expected, 1 - expected)


def observed_agreement(a, b) -> float:
    """P(A): the share of items both raters labelled on which they gave the same label."""
    ca, cb, _ = _pair_codes(a, b)
    return float(np.mean(ca == cb)) if ca.size else math.nan


def expected_agreement(a, b, *, pooled: bool = False) -> float:
    """P(E): chance agreement from each rater's own marginals (Cohen) or, with
    `pooled=True`, from the marginals of both raters pooled (Scott; the reference notes'
    P(E) = P(nonrel)^2 + P(rel)^2)."""
    table, _ = confusion_matrix(a, b)
    return _kappa_from_table(table, pooled)[1]


def cohen_kappa(a, b, *, categories=None) -> float:
    """Cohen's kappa, (P(A) - P(E)) / (1 - P(E)), P(E) from each rater's own marginals.

    Items missing in either vector are skipped. NaN with no overlap or a single category.
    Equals scikit-learn's `cohen_kappa_score` on complete data.
    """
    table = _small_int_table(a, b) if categories is None else None
    if table is None:
        table, _ = confusion_matrix(a, b, categories)
    return _kappa_from_table(table, pooled=False)[2]


def _small_int_table(a, b) -> np.ndarray | None:
    """The contingency table of two integer label vectors in a few linear passes, or None
    when the fast case does not apply (floats, missing labels, grades of 2^16 and up).

    Categories nobody used give empty rows and columns, which change no kappa: P(A) and
    P(E) only sum products of marginals."""
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 1 or a.shape != b.shape or a.size == 0:
        return None
    if a.dtype.kind not in "iu" or b.dtype.kind not in "iu":
        return None
    low = min(int(a.min()), int(b.min()))
    k = max(int(a.max()), int(b.max())) + 1
    if low < 0 or k > 1 << 16:
        return None
    cells = a.astype(np.int64, copy=False) * k
    cells += b
    return np.bincount(cells, minlength=k * k).reshape(k, k)


def pooled_kappa(a, b, *, categories=None) -> float:
    """Kappa with P(E) from the pooled marginals of both raters: Scott's pi, and the
    kappa of the reference notes (400-item example: P(A) 0.925, P(E) 0.6653, 0.7759)."""
    table, _ = confusion_matrix(a, b, categories)
    return _kappa_from_table(table, pooled=True)[2]


scott_pi = pooled_kappa


def _weights(cats: np.ndarray, kind: str) -> np.ndarray:
    """Disagreement weights from the category *values* (a grade gap of 2 weighs twice 1)."""
    v = cats.astype(np.float64)
    diff = np.abs(v[:, None] - v[None, :])
    if kind == "linear":
        return diff
    if kind == "quadratic":
        return diff**2
    raise ValueError(f"weights must be 'linear' or 'quadratic', not {kind!r}")


def _weighted_from_table(table: np.ndarray, cats: np.ndarray, kind: str) -> float:
    n = table.sum()
    if n == 0:
        return math.nan
    w = _weights(cats, kind)
    p = table / n
    expected = np.outer(p.sum(axis=1), p.sum(axis=0))
    return 1.0 - _ratio(float((w * p).sum()), float((w * expected).sum()))


def weighted_kappa(a, b, weights: str = "linear", *, categories=None) -> float:
    """Weighted kappa 1 - sum(w O) / sum(w E), w = |i - j| (linear) or (i - j)^2
    (quadratic) on the category values, E from each rater's marginals (Cohen 1968).

    With `categories` = the whole scale (e.g. 0..3) this equals scikit-learn's
    `cohen_kappa_score(a, b, labels=scale, weights=...)`; without it the distance is still
    taken on the grade values, so a scale gap that nobody used still counts.
    """
    table, cats = confusion_matrix(a, b, categories)
    return _weighted_from_table(table, cats, weights)


def kappa_from_tables(tables) -> np.ndarray:
    """Cohen's kappa of each k x k contingency table in a stack (..., k, k) of counts or
    weighted counts: (P(A) - P(E)) / (1 - P(E)) with P(E) from the table's own margins,
    NaN where undefined. What bootstrap resamples and per-query tables are scored with."""
    t = np.asarray(tables, dtype=np.float64)
    n = t.sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = t / n[..., None, None]
        observed = np.trace(p, axis1=-2, axis2=-1)
        expected = (p.sum(axis=-1) * p.sum(axis=-2)).sum(axis=-1)
        kappa = (observed - expected) / (1 - expected)
    return np.where((n > 0) & (expected < 1), kappa, np.nan)


def weighted_kappa_from_tables(tables, categories, weights: str = "linear") -> np.ndarray:
    """Weighted kappa (as `weighted_kappa`) of each table in a stack (..., k, k) whose rows
    and columns are `categories` (values, for the disagreement weights)."""
    t = np.asarray(tables, dtype=np.float64)
    w = _weights(np.asarray(categories), weights)
    n = t.sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = t / n[..., None, None]
        expected = p.sum(axis=-1)[..., :, None] * p.sum(axis=-2)[..., None, :]
        den = (w * expected).sum(axis=(-2, -1))
        out = 1.0 - (w * p).sum(axis=(-2, -1)) / den
    return np.where((n > 0) & (den != 0), out, np.nan)


@dataclass(frozen=True)
class PairAgreement:
    """Every pairwise coefficient for raters `a` and `b` over their `n` common items."""

    n: int
    observed: float
    expected_cohen: float
    expected_pooled: float
    cohen_kappa: float
    pooled_kappa: float
    weighted_kappa_linear: float
    weighted_kappa_quadratic: float


def pair_agreement(a, b, *, categories=None) -> PairAgreement:
    """All pairwise coefficients from one contingency table."""
    table, cats = confusion_matrix(a, b, categories)
    observed, exp_c, kappa_c = _kappa_from_table(table, pooled=False)
    _, exp_p, kappa_p = _kappa_from_table(table, pooled=True)
    return PairAgreement(
        n=int(table.sum()),
        observed=observed,
        expected_cohen=exp_c,
        expected_pooled=exp_p,
        cohen_kappa=kappa_c,
        pooled_kappa=kappa_p,
        weighted_kappa_linear=_weighted_from_table(table, cats, "linear"),
        weighted_kappa_quadratic=_weighted_from_table(table, cats, "quadratic"),
    )


# ---------------------------------------------------------------- many raters


def unit_counts(labels, categories=None) -> tuple[np.ndarray, np.ndarray]:
    """(items x K) counts of each category per item, and the category values."""
    arr = _as_labels(labels)
    codes, cats = _encode(arr, categories)
    k = len(cats)
    n_items = arr.shape[0]
    rows = np.broadcast_to(np.arange(n_items)[:, None], codes.shape)
    ok = codes >= 0
    flat = rows[ok] * k + codes[ok]
    counts = np.bincount(flat, minlength=n_items * k).reshape(n_items, k) if k else np.zeros((n_items, 0), np.int64)
    return counts, cats


def fleiss_kappa_from_counts(counts) -> float:
    """Fleiss' kappa from an (items x categories) table of how many raters chose each
    category (the layout of Fleiss 1971 and statsmodels' `fleiss_kappa`).

    Items may have different numbers of ratings: each item's agreement P_i uses its own
    n_i, P-bar is their mean and p_j the share of all ratings in category j; with a constant
    number of raters this is exactly Fleiss (1971). Items with fewer than 2 ratings are
    dropped. NaN when no item is left or only one category is used.
    """
    counts = np.asarray(counts, dtype=np.float64)
    n_i = counts.sum(axis=1)
    keep = n_i >= 2
    counts, n_i = counts[keep], n_i[keep]
    if counts.shape[0] == 0:
        return math.nan
    p_i = ((counts * (counts - 1)).sum(axis=1)) / (n_i * (n_i - 1))
    p_bar = float(p_i.mean())
    p_j = counts.sum(axis=0) / n_i.sum()
    p_e = float(np.dot(p_j, p_j))
    return _ratio(p_bar - p_e, 1 - p_e)


def fleiss_kappa(labels, *, categories=None) -> float:
    """Fleiss' kappa over all raters of an (items x raters) label array (missing allowed,
    see `fleiss_kappa_from_counts`). For two raters on complete data it equals the pooled
    kappa (Scott's pi)."""
    counts, _ = unit_counts(labels, categories)
    return fleiss_kappa_from_counts(counts)


def delta2(cats: np.ndarray, marginals: np.ndarray, level: str) -> np.ndarray:
    """Krippendorff's squared difference function delta^2(c, k) for each category pair."""
    k = len(cats)
    if level == "nominal":
        return 1.0 - np.eye(k)
    if level == "interval":
        v = cats.astype(np.float64)
        return (v[:, None] - v[None, :]) ** 2
    if level == "ordinal":
        # (sum of n_g for g from c to k) - (n_c + n_k) / 2, squared.
        cum = np.concatenate([[0.0], np.cumsum(marginals)])
        lo = np.minimum.outer(np.arange(k), np.arange(k))
        hi = np.maximum.outer(np.arange(k), np.arange(k))
        between = cum[hi + 1] - cum[lo]
        d = between - (marginals[:, None] + marginals[None, :]) / 2
        return d**2
    raise ValueError(f"level must be nominal, ordinal or interval, not {level!r}")


def _alpha_from_counts(counts: np.ndarray, cats: np.ndarray, level: str) -> float:
    m_u = counts.sum(axis=1)
    pairable = m_u >= 2
    counts = counts[pairable].astype(np.float64)
    if counts.shape[0] == 0 or counts.shape[1] < 1:
        return math.nan
    w = 1.0 / (m_u[pairable] - 1)
    # Coincidence matrix o_ck = sum_u (n_uc n_uk - [c == k] n_uc) / (m_u - 1).
    coincidence = (counts * w[:, None]).T @ counts
    coincidence -= np.diag((counts * w[:, None]).sum(axis=0))
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    if n <= 1:
        return math.nan
    d2 = delta2(cats, n_c, level)
    d_observed = float((coincidence * d2).sum())
    d_expected = float((np.outer(n_c, n_c) * d2).sum()) / (n - 1)
    return 1.0 - _ratio(d_observed, d_expected)


def krippendorff_alpha(labels, level: str = "nominal", *, categories=None) -> float:
    """Krippendorff's alpha = 1 - D_o / D_e from the coincidence matrix (Krippendorff 2011),
    at the `nominal`, `ordinal` or `interval` level of measurement.

    Handles missing labels: items with fewer than two labels are not pairable and are
    dropped. NaN when nothing is pairable or only one value occurs (D_e = 0). Matches the
    `krippendorff` package (which takes the transpose, raters x items, NaN for missing).
    """
    counts, cats = unit_counts(labels, categories)
    return _alpha_from_counts(counts, cats, level)


# ---------------------------------------------------------------- per query


@dataclass(frozen=True)
class QueryAgreement:
    """Agreement within one query: `n_items` with >= 2 labels, mean pairwise P(A),
    Fleiss' kappa (= pooled kappa for two raters) and nominal alpha."""

    query: Hashable  # the caller's query id (str or int)
    n_items: int
    observed: float
    fleiss_kappa: float
    alpha_nominal: float


def per_query_agreement(queries, labels, *, categories=None) -> list[QueryAgreement]:
    """Agreement per query. `queries` gives each item's query (any sortable value);
    `labels` is (items x raters). Vectorised over items; one small step per query."""
    queries = np.asarray(queries)
    counts, cats = unit_counts(labels, categories)
    keys, qidx = np.unique(queries, return_inverse=True)
    nq, k = len(keys), counts.shape[1]
    m_u = counts.sum(axis=1).astype(np.float64)
    pairable = m_u >= 2
    c = counts.astype(np.float64)
    # Mean pairwise agreement of an item: sum n_uc (n_uc - 1) / (m_u (m_u - 1)).
    agree_u = np.zeros(len(m_u))
    agree_u[pairable] = (c[pairable] * (c[pairable] - 1)).sum(axis=1) / (m_u[pairable] * (m_u[pairable] - 1))
    n_q = np.bincount(qidx, weights=pairable, minlength=nq)
    obs_q = np.bincount(qidx, weights=agree_u, minlength=nq)
    # Items grouped by query once (stable sort), then one slice per query.
    order = np.argsort(qidx, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(qidx, minlength=nq))])
    grouped = counts[order]
    out = []
    for i, key in enumerate(keys):  # one step per query, not per item
        sub = grouped[bounds[i] : bounds[i + 1]]
        n = int(n_q[i])
        out.append(
            QueryAgreement(
                query=key.item() if hasattr(key, "item") else key,
                n_items=n,
                observed=float(obs_q[i] / n) if n else math.nan,
                fleiss_kappa=fleiss_kappa_from_counts(sub) if k else math.nan,
                alpha_nominal=_alpha_from_counts(sub, cats, "nominal") if k else math.nan,
            )
        )
    return out


# ---------------------------------------------------------------- reading a value


def interpret(value: float) -> str:
    """The reference notes' reading: [2/3, 1] acceptable; below, a methodology problem."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "undefined"
    return "acceptable" if value >= ACCEPTABLE - 1e-12 else "methodology problem"


def reading(value: float) -> str:
    """One consistent reading of a kappa or alpha: at or above 2/3 "acceptable" with its
    Landis & Koch (1977) band ("acceptable (substantial)"); below, "methodology problem
    (below 2/3)" -- never a band that says the opposite (0.65 is "substantial" to Landis &
    Koch, but under the threshold the reference notes set)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "undefined"
    if interpret(value) == "acceptable":
        return f"acceptable ({landis_koch(value)})"
    return "methodology problem (below 2/3)"


def landis_koch(value: float) -> str:
    """Landis & Koch (1977) bands: poor < 0 <= slight <= .20 < fair <= .40 < moderate
    <= .60 < substantial <= .80 < almost perfect."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "undefined"
    if value < 0:
        return "poor"
    for top, name in ((0.20, "slight"), (0.40, "fair"), (0.60, "moderate"), (0.80, "substantial")):
        if value <= top:
            return name
    return "almost perfect"
