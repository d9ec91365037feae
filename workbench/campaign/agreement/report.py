"""Agreement between assessors, from the database or from qrels files (`workbench agree`).

Both sources become the same plain input: a label matrix of (query, document) items x
assessors with MISSING (-1) where an assessor has no grade, then one `AgreementReport`
from `workbench.metrics.agreement`. Pairwise coefficients use the items both assessors
graded; Fleiss' kappa and alpha use every item at least two assessors graded (`n_items`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np

from workbench.formats.numbers import number
from workbench.formats.output import json_number
from workbench.campaign.assessors.roster import unknown_assessor
from workbench.campaign.database import Database
from workbench.campaign.settings import campaign_threshold
from workbench.errors import UsageError, WorkbenchError
from workbench.metrics import agreement as ag
from workbench.store import external_ids
from workbench.store.judgment_arrays import assessors_not_only_adjudicating, current_judgments

__all__ = [
    "Labels",
    "PairRow",
    "AgreementReport",
    "labels_from_rows",
    "compute_agreement",
    "load_labels",
    "agreement_from_db",
    "agreement_from_qrels_files",
]


@dataclass(frozen=True)
class Labels:
    """items x assessors grades (MISSING = -1), with each item's query and document."""

    assessors: tuple[str, ...]
    queries: np.ndarray
    documents: np.ndarray
    grades: np.ndarray  # int64, shape (items, assessors)


@dataclass(frozen=True)
class PairRow:
    """One pair of assessors: the coefficients and their confusion matrix (rows = a's
    grade, columns = b's, over `categories`, the grades anyone used)."""

    a: str
    b: str
    stats: ag.PairAgreement
    categories: tuple[int, ...] = ()
    confusion: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class SelfRow:
    """One assessor against their own earlier grades (blind repeats)."""

    assessor: str
    n: int
    observed: float
    cohen_kappa: float


@dataclass(frozen=True)
class AgreementReport:
    assessors: tuple[str, ...]
    n_items: int  # items graded by at least two assessors
    binary: bool
    threshold: int | None
    pairs: list[PairRow]
    fleiss_kappa: float
    alpha_nominal: float
    alpha_ordinal: float
    alpha_interval: float
    per_query: list[ag.QueryAgreement] = field(default_factory=list)
    # 95 % intervals: "cohen_kappa" -> one (lo, hi) per pair; "fleiss_kappa",
    # "krippendorff_alpha_<level>" -> (lo, hi) (metrics.agreement_ci)
    ci: dict = field(default_factory=dict)
    self_consistency: list[SelfRow] = field(default_factory=list)
    # pairs of assessors who graded no item in common: counted, not listed (with 302
    # assessors that was 45 000 rows of "n 0 undefined")
    pairs_without_common_items: int = 0
    # sentences on pairs where a rater was constant (campaign/agreement/degenerate.py)
    degenerate: tuple[str, ...] = ()
    undefined_pairs: frozenset[int] = frozenset()  # both raters constant: kappas null

    def warnings(self) -> list[str]:
        """Values to read with care: pairs (or the whole) with fewer than SMALL_N items."""
        from workbench.metrics.agreement_ci import SMALL_N

        out = list(self.degenerate)
        out += [f"{p.a} and {p.b} share only {p.stats.n} items (under {SMALL_N}): their kappa is unreliable"
                for p in self.pairs if 0 < p.stats.n < SMALL_N]
        out += [f"{r.assessor} repeated only {r.n} items (under {SMALL_N}): their self-consistency is unreliable"
                for r in self.self_consistency if 0 < r.n < SMALL_N]
        if self.pairs_without_common_items:
            n = self.pairs_without_common_items
            out.append(f"{n} pair{'s' if n != 1 else ''} of assessors share{'' if n != 1 else 's'} no graded "
                       "item: not listed")
        if 0 < self.n_items < SMALL_N:
            out.append(f"only {self.n_items} items are graded by two assessors or more (under {SMALL_N}): "
                       "Fleiss' kappa and alpha are unreliable")
        return out

    def to_json(self, *, confusion: bool = False) -> dict:
        """The docs/architecture.md#command-line-contract `agree --format json` object (NaN -> null); `per_query` only if
        it was computed, `confusion` (each pair's matrix) only if asked for."""
        out = {
            "assessors": list(self.assessors),
            "n_items": self.n_items,
            "pairs": [
                {
                    "a": p.a,
                    "b": p.b,
                    "n": p.stats.n,
                    "observed": _num(p.stats.observed),
                    **{key: None if k in self.undefined_pairs else _num(getattr(p.stats, key))
                       for key in ("cohen_kappa", "pooled_kappa", "weighted_kappa_linear",
                                   "weighted_kappa_quadratic")},
                    "cohen_kappa_ci": _interval(self.ci.get("cohen_kappa", [None] * len(self.pairs))[k]),
                }
                for k, p in enumerate(self.pairs)
            ],
            "fleiss_kappa": _num(self.fleiss_kappa),
            "krippendorff_alpha_nominal": _num(self.alpha_nominal),
            "krippendorff_alpha_ordinal": _num(self.alpha_ordinal),
            "krippendorff_alpha_interval": _num(self.alpha_interval),
        }
        for key in ("fleiss_kappa", "krippendorff_alpha_nominal", "krippendorff_alpha_ordinal",
                    "krippendorff_alpha_interval"):
            out[f"{key}_ci"] = _interval(self.ci.get(key))
        out["self"] = [{"assessor": r.assessor, "n": r.n, "observed": _num(r.observed),
                        "cohen_kappa": _num(r.cohen_kappa)} for r in self.self_consistency]
        out["pairs_without_common_items"] = self.pairs_without_common_items
        out["warnings"] = self.warnings()
        if confusion:
            out["confusion"] = [
                {"a": p.a, "b": p.b, "categories": list(p.categories),
                 "matrix": [list(row) for row in p.confusion]}
                for p in self.pairs
            ]
        if self.per_query:
            out["per_query"] = [
                {
                    "query": str(q.query),
                    "n_items": q.n_items,
                    "observed": _num(q.observed),
                    "fleiss_kappa": _num(q.fleiss_kappa),
                    "krippendorff_alpha_nominal": _num(q.alpha_nominal),
                }
                for q in self.per_query
            ]
        return out


_num = json_number


def _interval(pair) -> list | None:
    """[lo, hi], or None when undefined."""
    if pair is None or any(v is None or math.isnan(v) for v in pair):
        return None
    return [float(pair[0]), float(pair[1])]


def labels_from_rows(
    assessors: Sequence[str], queries, documents, raters, grades
) -> Labels:
    """Pivot long rows (query, document, assessor index, grade) into an items x assessors
    matrix. Vectorised: items are coded by np.unique on (query code, document code)."""
    queries = np.asarray(queries)
    documents = np.asarray(documents)
    raters = np.asarray(raters, dtype=np.int64)
    grades = np.asarray(grades, dtype=np.int64)
    n_assessors = len(assessors)
    if queries.size == 0:
        empty = np.array([], dtype=object)
        return Labels(tuple(assessors), empty, empty, np.zeros((0, n_assessors), np.int64))
    q_keys, q_code = np.unique(queries, return_inverse=True)
    d_keys, d_code = np.unique(documents, return_inverse=True)
    item_key = q_code.astype(np.int64) * len(d_keys) + d_code
    items, item_code = np.unique(item_key, return_inverse=True)
    matrix = np.full((len(items), n_assessors), ag.MISSING, dtype=np.int64)
    matrix[item_code, raters] = grades
    return Labels(
        tuple(assessors),
        _text(q_keys[items // len(d_keys)]),
        _text(d_keys[items % len(d_keys)]),
        matrix,
    )


def _text(values: np.ndarray) -> np.ndarray:
    if values.dtype.kind == "S":
        return np.char.decode(values, "utf-8").astype(object)
    return values.astype(object)


def compute_agreement(
    labels: Labels,
    *,
    binary: bool = False,
    threshold: int = 1,
    per_query: bool = False,
) -> AgreementReport:
    """Every coefficient over `labels`; `binary` binarises at `threshold` first (grade >=
    threshold is relevant, as trec_eval's -l)."""
    if len(labels.assessors) < 2:
        # the state of the campaign, not the command line: exit 1
        raise WorkbenchError(
            f"agreement needs at least two assessors with grades; got {len(labels.assessors)}"
        )
    grades = ag.binarize(labels.grades, threshold) if binary else labels.grades
    categories = ag.categories_of(grades)
    listed = _pairs_with_common_items(grades)
    n_assessors = len(labels.assessors)
    pairs = []
    for i, j in listed:
        matrix, _ = ag.confusion_matrix(grades[:, i], grades[:, j], categories)
        pairs.append(PairRow(
            labels.assessors[i],
            labels.assessors[j],
            ag.pair_agreement(grades[:, i], grades[:, j]),
            tuple(int(c) for c in categories),
            tuple(tuple(int(v) for v in row) for row in matrix),
        ))
    n_items = int(np.count_nonzero((grades >= 0).sum(axis=1) >= 2))
    from workbench.metrics import agreement_ci as ci

    from workbench.campaign.agreement.degenerate import UNDEFINED, kappa_warning

    intervals = {
        "cohen_kappa": [ci.cohen_kappa_ci(grades[:, i], grades[:, j], categories=categories)
                        for i, j in listed],
        **ci.bootstrap_intervals(grades),
    }
    degenerate, undefined = [], set()
    for k, (i, j) in enumerate(listed):
        both = (grades[:, i] >= 0) & (grades[:, j] >= 0)
        kind, sentence = kappa_warning(grades[both, i], grades[both, j], labels.assessors[i],
                                       labels.assessors[j], "Cohen's kappa")
        if kind == UNDEFINED:
            undefined.add(k)
        if kind is not None:
            degenerate.append(sentence)
            intervals["cohen_kappa"][k] = (math.nan, math.nan)  # zero width: no information
    for key, name in (("fleiss_kappa", "Fleiss' kappa"),
                      ("krippendorff_alpha_nominal", "Krippendorff's alpha (nominal)"),
                      ("krippendorff_alpha_ordinal", "Krippendorff's alpha (ordinal)"),
                      ("krippendorff_alpha_interval", "Krippendorff's alpha (interval)")):
        pair = intervals.get(key)
        if pair is not None and not any(math.isnan(v) for v in pair) and pair[1] - pair[0] <= 1e-12:
            intervals[key] = (math.nan, math.nan)
            degenerate.append(f"{name}: every resample of the items gives {number(pair[0])}: an "
                              "interval of zero width carries no information and is left out")
    return AgreementReport(
        assessors=labels.assessors,
        n_items=n_items,
        binary=binary,
        threshold=threshold if binary else None,
        pairs=pairs,
        fleiss_kappa=ag.fleiss_kappa(grades),
        alpha_nominal=ag.krippendorff_alpha(grades, "nominal"),
        alpha_ordinal=ag.krippendorff_alpha(grades, "ordinal"),
        alpha_interval=ag.krippendorff_alpha(grades, "interval"),
        per_query=ag.per_query_agreement(labels.queries, grades) if per_query else [],
        ci=intervals,
        pairs_without_common_items=n_assessors * (n_assessors - 1) // 2 - len(listed),
        degenerate=tuple(degenerate),
        undefined_pairs=frozenset(undefined),
    )


def _pairs_with_common_items(grades: np.ndarray) -> list[tuple[int, int]]:
    """(i, j), i < j, of the assessor columns that graded at least one item in common, in
    the order itertools.combinations gives: one matrix product instead of a pass per pair."""
    present = (grades >= 0).astype(np.float32)  # counts are exact below 2**24 items
    common = present.T @ present
    i, j = np.nonzero(np.triu(common, 1) > 0)
    return list(zip(i.tolist(), j.tolist()))


# ---------------------------------------------------------------- database


def load_labels(db: Database, assessors: Sequence[str] | None = None) -> Labels:
    """Every human assessor's current grades (or only `assessors`, in that order, machines
    included when named) as Labels.

    Only `judgment` rows count (current grades); repeats and history do not.
    """
    with db.read() as s:
        if assessors:
            people = external_ids.assessor_names(s)
            id_of = dict(zip(people.names.tolist(), people.ids.tolist()))  # a few assessors
            missing = [a for a in assessors if a not in id_of]
            if missing:
                raise unknown_assessor(missing[0])
            names = list(dict.fromkeys(assessors))
            ids = np.array([id_of[name] for name in names], dtype=np.int64)
        else:
            # Not a lead who only adjudicated: they have nothing to agree on. Not a machine
            # either: machines are compared only when named (or by `calibrate`). Nor anyone
            # without a grade (302 such assessors took 30 s).
            people = assessors_not_only_adjudicating(s, people_only=True)
            names, ids = people.names.tolist(), people.ids
        given = current_judgments(s, assessor_ids=ids.tolist())
        if not assessors:
            graded = np.isin(ids, given.assessor_id)
            names, ids = [n for n, keep in zip(names, graded.tolist()) if keep], ids[graded]
        q = external_ids.query_ext_ids(s, given.query_id)
        d = external_ids.document_ext_ids(s, given.document_id)
    # column of each row's assessor in `names` order
    order = np.argsort(ids)
    a = order[np.searchsorted(ids, given.assessor_id, sorter=order)]
    return labels_from_rows(names, q.astype(str), d.astype(str), a, given.grade)


def agreement_from_db(
    db: Database,
    assessors: Sequence[str] | None = None,
    *,
    binary: bool = False,
    threshold: int | None = None,
    per_query: bool = False,
) -> AgreementReport:
    """Agreement of the stored current grades; `threshold` defaults to the campaign's.
    Naming fewer than two assessors is a malformed request (exit 2); a campaign with fewer
    than two assessors with grades is its state (exit 1, from compute_agreement)."""
    if assessors is not None and len(set(assessors)) < 2:
        raise UsageError(f"agreement needs at least two assessors; {len(set(assessors))} named")
    labels = load_labels(db, assessors)
    if threshold is None:
        threshold = campaign_threshold(db)
    report = compute_agreement(labels, binary=binary, threshold=threshold, per_query=per_query)
    return replace(report, self_consistency=self_consistency(db, labels.assessors, binary=binary,
                                                             threshold=threshold))


def self_consistency(db: Database, assessors: Sequence[str], *, binary: bool = False,
                     threshold: int = 1) -> list[SelfRow]:
    """Each assessor's repeat grades against the grade the item had when it came back
    (blind repeats, campaign/pooling/assign.py): n, observed agreement, Cohen's kappa; assessors
    without repeats are left out."""
    from workbench.store.catalog import repeat_pairs
    from workbench.store.machine import MACHINE, assessor_kinds

    with db.read() as s:
        pairs = repeat_pairs(s)
        kinds = assessor_kinds(s)
    rows = []
    for name in assessors:
        if name not in pairs.assessors or kinds.get(name) == MACHINE:
            continue  # self-consistency is about people
        mine = pairs.assessor == pairs.assessors.index(name)
        first, again = pairs.first[mine], pairs.repeat[mine]
        if binary:
            first, again = ag.binarize(first, threshold), ag.binarize(again, threshold)
        n = int(first.size)
        if n == 0:
            continue  # no repeats for this assessor: nothing to say
        rows.append(SelfRow(name, n, ag.observed_agreement(first, again), ag.cohen_kappa(first, again)))
    return rows


# ---------------------------------------------------------------- files


def agreement_from_qrels_files(
    paths: Sequence[str],
    *,
    names: Sequence[str] | None = None,
    binary: bool = False,
    threshold: int = 1,
    per_query: bool = False,
) -> AgreementReport:
    """Agreement between qrels files, one assessor per file (named by its path unless
    `names` is given). Negative grades mean "in the pool, unjudged": missing."""
    from workbench.formats.trec import read_qrels

    qrels = [read_qrels(p) for p in paths]
    names = list(names) if names is not None else [str(p) for p in paths]
    if len(set(names)) != len(names):
        raise UsageError("the same qrels file is given twice")
    q = np.concatenate([r.qid for r in qrels]) if qrels else np.array([])
    d = np.concatenate([r.docno for r in qrels]) if qrels else np.array([])
    a = np.concatenate([np.full(len(r), i, dtype=np.int64) for i, r in enumerate(qrels)]) if qrels else np.array([], np.int64)
    g = np.concatenate([r.rel for r in qrels]) if qrels else np.array([], np.int64)
    labels = labels_from_rows(names, q, d, a, g)
    return compute_agreement(labels, binary=binary, threshold=threshold, per_query=per_query)
