"""Evaluate runs against qrels: per-query values and trec_eval's aggregates.

Entry points (plain arrays in, plain arrays out; no files, no database):

- ``evaluate(qrels_qid, qrels_docno, qrels_rel, run_qid, run_docno, run_score,
  measures, ...)`` -> ``Evaluation`` for one run;
- ``evaluate_many(qrels_qid, qrels_docno, qrels_rel, runs, measures, ...)`` -> one
  ``Evaluation`` per run, sharing the qrels encoding (``runs`` is a sequence of
  ``RunArrays`` or of (qid, docno, score) tuples);
- ``SubsetEvaluator(qrels..., runs, measures, ...).evaluate(keep)`` -> what
  ``evaluate_many`` gives on the qrels rows selected by a mask, for many masks: each run
  is ranked once.

Aggregation follows trec_eval: the arithmetic mean over the evaluated queries for most
measures, the geometric mean for gm_map (values floored at 1e-5), the sum for num_ret,
num_rel and num_rel_ret, a count for num_q. Evaluated queries are those of the qrels that
the run retrieved something for; with ``complete=True`` (``-c``) every qrels query, a
query missing from the run scoring 0 (trec_eval 10 prints NaN for some iprec levels of
such queries: we print 0). Run queries absent from the qrels are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

from workbench.metrics.judged_only import judged_only as _judged_only
from workbench.metrics.kernels import compute
from workbench.metrics.measures import Measure, parse_measures
from workbench.metrics.qrels_index import (
    NONPOOL,
    UNJUDGED,
    DuplicatePairError,
    QrelsIndex,
)
from workbench.metrics.ranking import _rank
from workbench.metrics.registry import AGGREGATIONS

__all__ = ["Evaluation", "RunArrays", "evaluate", "evaluate_many", "SubsetEvaluator", "aggregate",
           "QrelsIndex",
           "evaluation_from_values", "per_query_values", "positive_qrels"]


@dataclass(frozen=True)
class RunArrays:
    """One run as arrays (what ``evaluate_many`` takes); rank only for ties='rank'."""

    qid: ArrayLike  # str, bytes or int ids
    docno: ArrayLike | None  # None: the caller gives the grades (per_query_values)
    score: ArrayLike | None  # None: the rows are in rank order already
    tag: str = ""
    rank: ArrayLike | None = None
    # each row's qrels grade as QrelsIndex's lookup gives it (NONPOOL, UNJUDGED), joined by
    # the caller (then docno is needed only to order tied scores, and may be None without)
    grades: ArrayLike | None = None


@dataclass(frozen=True)
class Evaluation:
    """The result of evaluating one run.

    qids: evaluated query ids (str, trec_eval's order); per_query[m]: float64 array
    aligned with qids (for gm_map: the query's AP); summary[m]: the 'all' value;
    missing: qrels queries the run retrieved nothing for (averaged in only with -c);
    ties: the tie policy used; tag: the run's tag.
    """

    measures: tuple[Measure, ...]
    qids: tuple[str, ...]
    per_query: dict[Measure, np.ndarray]
    summary: dict[Measure, float]
    missing: tuple[str, ...] = ()
    tag: str = ""
    ties: str = "trec_eval"
    settings: dict = field(default_factory=dict)

    def value(self, measure: Measure | str, qid: str | None = None) -> float:
        """One value: the summary, or the value for one query."""
        m = measure if isinstance(measure, Measure) else _one(measure)
        if qid is None:
            return self.summary[m]
        return float(self.per_query[m][self.qids.index(qid)])


def _one(name: str) -> Measure:
    from workbench.metrics.measures import parse_measure

    return parse_measure(name)


def aggregate(measure: Measure, values: np.ndarray) -> float:
    """trec_eval's 'all' value of a measure from its per-query values (the family's
    aggregation in the registry: mean, geometric mean, sum; 0.0 over no queries)."""
    return AGGREGATIONS[measure.aggregation](values)


def _measures(measures) -> tuple[Measure, ...]:
    if isinstance(measures, Measure):
        return (measures,)
    if isinstance(measures, str):
        return parse_measures([measures])
    out: list[Measure] = []
    names = [m for m in measures if not isinstance(m, Measure)]
    objs = [m for m in measures if isinstance(m, Measure)]
    out.extend(objs)
    out.extend(parse_measures(names) if names else ())
    seen: dict[Measure, Measure] = {}
    for m in out:
        seen.setdefault(m, m)
    return tuple(sorted(seen.values(), key=lambda m: m.sort_key))


def evaluate_many(
    qrels_qid,
    qrels_docno,
    qrels_rel,
    runs: Sequence,
    measures,
    *,
    rel_level: int = 1,
    ties: str = "trec_eval",
    max_depth: int | None = None,
    complete: bool = False,
    compat: int = 10,
    unjudged_as: int | None = None,
    index: QrelsIndex | None = None,
    check_duplicates: bool = True,
    judged_only: bool = False,
    num_docs: int = 0,
) -> list[Evaluation]:
    """Evaluate several runs against one qrels (encoded once). See ``evaluate``.

    index: a ``QrelsIndex`` already built from the qrels (then the qrels arrays are
    ignored); check_duplicates=False skips the run duplicate check (readers did it).
    Raises ``DuplicatePairError`` (a ValueError, with the row) for a repeated pair.
    """
    ms = _measures(measures)
    if compat not in (9, 10):
        raise ValueError("compat must be 9 or 10")
    if max_depth is not None and max_depth < 0:
        raise ValueError("max_depth must be >= 0")
    if index is None:
        index = QrelsIndex(qrels_qid, qrels_docno, qrels_rel)
    out = []
    for run in runs:
        if not isinstance(run, RunArrays):
            run = RunArrays(*run)
        ev_index = index
        if unjudged_as is not None:
            if run.grades is not None:
                raise ValueError("unjudged_as needs the run's document ids, not joined grades")
            ev_index = _with_unjudged_as(index, run, unjudged_as)
        values, present = _per_query_values(
            ev_index, run, ms, rel_level=rel_level, ties=ties, max_depth=max_depth,
            compat=compat, check_duplicates=check_duplicates and run.grades is None,
            judged_only=judged_only, num_docs=num_docs, grades=run.grades,
        )
        out.append(evaluation_from_values(
            index.qids, ms, values, present, tag=run.tag, ties=ties, complete=complete,
            settings={"rel_level": rel_level, "max_depth": max_depth, "complete": complete,
                      "compat": compat, "unjudged_as": unjudged_as,
                      "judged_only": judged_only, "num_docs": num_docs},
            num_rel_all=positive_qrels(ev_index) if complete else None,
        ))
    return out


class SubsetEvaluator:
    """Fixed runs evaluated against many subsets of one qrels (pool planning's question:
    how would the runs score had only these documents been judged?).

    Each run is ranked and joined with the full qrels once (``ranking.rank_for_subsets``);
    a subset, a mask over the qrels rows, then only regrades the ranked rows: a document
    left out becomes absent from the qrels, and R, the ideal rankings and the evaluated
    queries come from the subset. ``evaluate(keep)`` equals ``evaluate_many`` on the
    qrels rows where `keep` is true, with the same options (unjudged_as excepted: it
    depends on the qrels). Runs are checked for duplicates once, over all their rows.
    """

    def __init__(self, qrels_qid, qrels_docno, qrels_rel, runs: Sequence, measures, *,
                 rel_level: int = 1, ties: str = "trec_eval", max_depth: int | None = None,
                 complete: bool = False, compat: int = 10, check_duplicates: bool = True,
                 judged_only: bool = False, num_docs: int = 0,
                 qrels_rows: Sequence | None = None) -> None:
        """qrels_rows: for each run, each of its rows' position in the qrels arrays (-1:
        not in the qrels), when the caller has joined them (then no document is looked
        up by name)."""
        from workbench.metrics.encode import as_bytes
        from workbench.metrics.ranking import rank_for_subsets

        self.measures = _measures(measures)
        if compat not in (9, 10):
            raise ValueError("compat must be 9 or 10")
        if max_depth is not None and max_depth < 0:
            raise ValueError("max_depth must be >= 0")
        self.qid, self.docno = as_bytes(qrels_qid), as_bytes(qrels_docno)
        self.rel = np.asarray(qrels_rel)
        self.index = QrelsIndex(self.qid, self.docno, self.rel)
        self.opts = dict(rel_level=rel_level, ties=ties, max_depth=max_depth, complete=complete,
                         compat=compat, judged_only=judged_only, num_docs=num_docs)
        self.runs = [run if isinstance(run, RunArrays) else RunArrays(*run) for run in runs]
        joined = [None] * len(self.runs) if qrels_rows is None else list(qrels_rows)
        if len(joined) != len(self.runs):
            raise ValueError("qrels_rows: one array per run")
        self.ranked = [
            rank_for_subsets(self.index, run.qid, run.docno, run.score, ties=ties, rank=run.rank,
                             max_depth=max_depth, check_duplicates=check_duplicates, qrels_rows=j,
                             compat=compat)
            for run, j in zip(self.runs, joined)
        ]

    def evaluate(self, keep: np.ndarray, runs: Sequence[int] | None = None) -> list[Evaluation]:
        """One ``Evaluation`` per run (or per run index in `runs`) against the qrels rows
        where the boolean mask `keep` is true."""
        from workbench.metrics.ranking import on_subset

        keep = np.asarray(keep)
        if keep.dtype != bool or keep.shape != self.rel.shape:
            raise ValueError(f"keep must be a boolean mask of the {self.rel.size} qrels rows")
        o = self.opts
        sub = QrelsIndex(self.qid[keep], self.docno[keep], self.rel[keep])
        qmap = sub.query_index(self.index.qids)
        row_grade = np.append(np.where(keep, self.index.rel, NONPOOL), NONPOOL).astype(sub._rel_dtype)
        settings = {"rel_level": o["rel_level"], "max_depth": o["max_depth"],
                    "complete": o["complete"], "compat": o["compat"], "unjudged_as": None,
                    "judged_only": o["judged_only"], "num_docs": o["num_docs"]}
        num_rel_all = positive_qrels(sub) if o["complete"] else None
        out = []
        for i in range(len(self.runs)) if runs is None else runs:
            rk = on_subset(self.ranked[i], row_grade, qmap, sub.nq)
            if o["judged_only"]:
                rk = _judged_only(rk)
            cache: dict = {}
            values = {m: compute(m, sub, rk, o["rel_level"], o["compat"], cache, o["num_docs"])
                      for m in self.measures}
            out.append(evaluation_from_values(
                sub.qids, self.measures, values, rk.present, tag=self.runs[i].tag,
                ties=o["ties"], complete=o["complete"], settings=dict(settings),
                num_rel_all=num_rel_all,
            ))
        return out


def positive_qrels(index: QrelsIndex) -> int:
    """The qrels lines with a grade above 0, every query: trec_eval's num_rel 'all'
    value with -c (te_calc_avg_num_rel), whatever -l says."""
    return int(np.count_nonzero(index.rel > 0))


def evaluation_from_values(qids: np.ndarray, ms, values, present, *, tag: str, ties: str,
                           complete: bool, settings: dict,
                           num_rel_all: int | None = None) -> Evaluation:
    """The ``Evaluation`` of one run from ``per_query_values`` (values[m] for every
    qrels query, present; qids: those queries' ids in trec_eval's order, an ``S`` array):
    selects the evaluated queries and aggregates. num_rel_all: with complete, num_rel's
    'all' value as trec_eval prints it (``positive_qrels``: with -l 2 more than the
    per-query values add up to)."""
    ms = _measures(ms)
    qsel = np.arange(qids.size) if complete else np.flatnonzero(present)
    per_query = {}
    summary = {}
    for m in ms:
        vals = values[m][qsel]
        per_query[m] = vals
        summary[m] = aggregate(m, vals)
        if complete and num_rel_all is not None and m.family == "num_rel" and m.rel is None:
            summary[m] = float(num_rel_all)
    missing = tuple(q.decode("utf-8", "replace") for q in qids[~present].tolist())
    return Evaluation(
        measures=ms, qids=tuple(q.decode("utf-8", "replace") for q in qids[qsel].tolist()), per_query=per_query, summary=summary, missing=missing,
        tag=tag, ties=ties, settings=settings,
    )


def per_query_values(index: QrelsIndex, run: RunArrays, measures, *, rel_level: int = 1,
                     ties: str = "trec_eval", max_depth: int | None = None, compat: int = 10,
                     check_duplicates: bool = True, judged_only: bool = False,
                     num_docs: int = 0, grades: np.ndarray | None = None):
    """(values, present) for one run: values[m] a float64 array over every qrels query
    (an empty ranking's value where the run lacks the query; strings in an object array
    for relstring), present the queries it has. Runs cut into pieces of whole queries
    can be evaluated piece by piece and merged. grades: each run row's qrels grade, as
    the index's lookup gives it (NONPOOL where absent, UNJUDGED for a negative grade),
    when the caller has joined them by its own ids: no document is then looked up by name.
    The run's score may be None with ties="input" (rows already in ranked order, as the
    stored runs of a campaign), and its docno with grades and no duplicate check."""
    return _per_query_values(index, run, _measures(measures), rel_level=rel_level, ties=ties,
                             max_depth=max_depth, compat=compat, check_duplicates=check_duplicates,
                             judged_only=judged_only, num_docs=num_docs, grades=grades)


BLOCK_ROWS = 1 << 20  # run rows evaluated together (whole queries); see _per_query_values


def _per_query_values(index, run, ms, *, rel_level, ties, max_depth, compat, check_duplicates,
                      judged_only=False, num_docs=0, grades=None):
    """(values[m] for every qrels query, present) for one run: ``_row_values``, with
    trec_eval's stand-in values for the queries the run lacks (``_stand_in``)."""
    values, present = _row_values(index, run, ms, rel_level=rel_level, ties=ties,
                                  max_depth=max_depth, compat=compat,
                                  check_duplicates=check_duplicates, judged_only=judged_only,
                                  num_docs=num_docs, grades=grades)
    if compat == 10 and not judged_only and max_depth != 0 and not present.all():
        _stand_in(values, ~present, ms)
    return values, present


def _stand_in(values, absent: np.ndarray, ms) -> None:
    """trec_eval -c evaluates a query the run lacks on a stand-in ranking of one document
    that is not in the qrels (trec_eval.c ``bogus_ranking``), then zeroes the measures
    printed as plain ``num_ret``, ``utility``, ``relstring``, ``unj_*`` and
    ``rbp_resid``. Named with parameters, relstring and rbp_resid keep the stand-in's
    value: ``relstring.N`` is '-' (N >= 1), ``rbp_resid.p=x`` is p + (1 - p) = 1, the
    residual of a ranking that knows nothing. Every other measure scores 0 on the stand-in,
    as on the empty ranking, and ``utility.p1,p2,p3,p4`` keeps an empty retrieval's value
    (docs/measures.md: the stand-in's would count a document never retrieved). Under -J
    or -M 0 the stand-in is dropped before any measure: the empty ranking's values.
    trec_eval 9 has no stand-in (compat 9: the empty ranking's values)."""
    from workbench.metrics.kernels.rbp import rbp_persistence

    for m in ms:
        if not m.params:
            continue
        if m.family == "relstring" and int(m.params[0]) >= 1:
            values[m][absent] = "-"
        elif m.family == "rbp_resid":
            p = rbp_persistence(m)
            values[m][absent] = p + (1.0 - p) * 1.0


def _row_values(index, run, ms, *, rel_level, ties, max_depth, compat, check_duplicates,
                judged_only=False, num_docs=0, grades=None):
    """(values[m] for every qrels query, present) for one run.

    A big run is evaluated in blocks of whole queries of about BLOCK_ROWS rows: every
    temporary array then stays cache- and allocator-friendly, so 10 million rows cost
    about ten times one million, not more. Queries the run lacks keep the values of an
    empty ranking (0, or R for num_rel)."""
    from workbench.metrics.encode import as_bytes, distinct

    def one(qidx, docno, score, rank, joined=None):
        rk = _rank(index, qidx, docno, score, ties=ties, rank=rank, max_depth=max_depth,
                   check_duplicates=check_duplicates, joined=joined, compat=compat)
        if judged_only:  # -J: after -M, as trec_eval's form_res_rels
            rk = _judged_only(rk)
        cache: dict = {}
        return {m: compute(m, index, rk, rel_level, compat, cache, num_docs) for m in ms}, rk.present

    score = None if run.score is None else np.asarray(run.score, dtype=np.float64)
    qid = as_bytes(run.qid)
    n = qid.size
    heads, hidx = index._query_groups(qid)  # runs of equal ids, their query index
    sizes = np.diff(np.append(heads, n))
    if grades is not None and np.size(grades) != n:
        raise ValueError("grades and the run differ in length")
    if n <= BLOCK_ROWS:
        return one(np.repeat(hidx, sizes), run.docno, score, run.rank, grades)
    docno = None if run.docno is None else as_bytes(run.docno)
    rank = None if run.rank is None else np.asarray(run.rank)
    empty = slice(0, 0)
    values, present = one(hidx[:0], _part(docno, empty), _part(score, empty), _part(rank, empty),
                          _part(grades, empty))
    known = hidx[hidx >= 0]
    if known.size == distinct(known).size:
        # each query's rows are contiguous (as in any run file): cut the file into
        # consecutive slices at query boundaries, no copying of the arrays
        at = np.searchsorted(heads, np.arange(BLOCK_ROWS, n, BLOCK_ROWS))
        at = distinct(np.concatenate(([0], at[at < heads.size], [heads.size])))
        for a, b in zip(at[:-1].tolist(), at[1:].tolist()):
            lo = int(heads[a])
            hi = int(heads[b]) if b < heads.size else n
            try:
                vals, pres = one(np.repeat(hidx[a:b], sizes[a:b]), _part(docno, slice(lo, hi)),
                                 _part(score, slice(lo, hi)), _part(rank, slice(lo, hi)),
                                 _part(grades, slice(lo, hi)))
            except DuplicatePairError as exc:
                raise DuplicatePairError(exc.which, lo + exc.row, qid[lo + exc.row],
                                         docno[lo + exc.row]) from None
            for m in ms:
                values[m][pres] = vals[m][pres]
            present = present | pres
        return values, present
    qidx = np.repeat(hidx, sizes)
    rows_per_query = np.bincount(qidx[qidx >= 0], minlength=index.nq)
    # whole queries, in index order, cut into blocks of about BLOCK_ROWS rows
    qblock = (np.cumsum(rows_per_query) - rows_per_query) // BLOCK_ROWS
    row_block = np.where(qidx >= 0, qblock[np.maximum(qidx, 0)], -1)
    order = np.argsort(row_block, kind="stable")  # keeps the file order inside blocks
    bounds = np.searchsorted(row_block[order], np.arange(-1, int(qblock.max()) + 2))
    for b in range(1, bounds.size - 1):
        rows = order[bounds[b]:bounds[b + 1]]
        if rows.size == 0:
            continue
        try:
            vals, pres = one(qidx[rows], _part(docno, rows), _part(score, rows), _part(rank, rows),
                             _part(grades, rows))
        except DuplicatePairError as exc:
            raise DuplicatePairError(exc.which, int(rows[exc.row]), qid[rows[exc.row]],
                                     docno[rows[exc.row]]) from None
        for m in ms:
            values[m][pres] = vals[m][pres]
        present = present | pres
    return values, present


def _part(values, rows):
    """values[rows], or None for a column the run does not have."""
    return None if values is None else values[rows]


def _with_unjudged_as(index: QrelsIndex, run: RunArrays, grade: int) -> QrelsIndex:
    """A qrels index in which every document the run retrieved without a judgment
    (absent from the qrels, or a negative grade) has `grade` — the upper bound of
    ``--bounds``: how far the holes in the judgments could move a score."""
    from workbench.metrics.encode import as_bytes

    qidx = index.query_index(run.qid)
    docno = as_bytes(run.docno)
    keep = qidx >= 0
    qidx, docno = qidx[keep], docno[keep]
    rel = index.lookup(qidx, docno)
    qrel = index.rel.copy()
    # regrade qrels rows with negative grades that the run retrieved
    unj_run = rel == UNJUDGED
    if unj_run.any():
        sub = QrelsIndex(index.qids[qidx[unj_run]], docno[unj_run], np.zeros(int(unj_run.sum()), dtype=np.int64))
        sub_q = sub.query_index(index.qids[index.qcode])
        found = np.zeros(qrel.size, dtype=bool)
        ok = sub_q >= 0
        found[ok] = sub.lookup(sub_q[ok], index.docno[ok]) == 0
        qrel[found & (qrel == UNJUDGED)] = grade
    add = rel == NONPOOL
    qid_all = np.concatenate((index.qids[index.qcode], index.qids[qidx[add]]))
    doc_all = np.concatenate((index.docno, docno[add]))
    rel_all = np.concatenate((qrel, np.full(int(add.sum()), grade, dtype=np.int64)))
    return QrelsIndex(qid_all, doc_all, rel_all)


def evaluate(
    qrels_qid,
    qrels_docno,
    qrels_rel,
    run_qid,
    run_docno,
    run_score,
    measures,
    *,
    rel_level: int = 1,
    ties: str = "trec_eval",
    max_depth: int | None = None,
    complete: bool = False,
    compat: int = 10,
    run_rank=None,
    tag: str = "",
    unjudged_as: int | None = None,
    judged_only: bool = False,
    num_docs: int = 0,
) -> Evaluation:
    """Evaluate one run (arrays) against qrels (arrays), exactly as trec_eval does.

    qrels_*: parallel arrays (ids as str/bytes/int; rel integers, negative = unjudged).
    run_*: parallel arrays; run_rank only for ties='rank'.
    measures: names (``"map"``, ``"P.5,10"``, ``"nDCG@10"``…) or Measure objects.
    rel_level: relevance threshold (trec_eval ``-l``); ties: ``trec_eval`` | ``input`` |
    ``rank``; max_depth: top n per query (``-M``); complete: average over every qrels
    query (``-c``); compat: 10, or 9 for trec_eval 9's recall-level rounding;
    unjudged_as: treat unjudged retrieved documents as having this grade (bounds);
    judged_only: drop unjudged retrieved documents before evaluating (``-J``);
    num_docs: the collection size (``-N``, utility's d).
    Raises ValueError on inconsistent input (duplicate pairs, unequal lengths).
    """
    return evaluate_many(
        qrels_qid, qrels_docno, qrels_rel,
        [RunArrays(run_qid, run_docno, run_score, tag, run_rank)],
        measures, rel_level=rel_level, ties=ties, max_depth=max_depth, complete=complete,
        compat=compat, unjudged_as=unjudged_as, judged_only=judged_only, num_docs=num_docs,
    )[0]
