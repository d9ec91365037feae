"""From qrels and run arrays to the flat, query-grouped ranking every kernel reads.

``QrelsIndex`` (``metrics.qrels_index``) encodes the qrels once, shared by every run;
``rank_run`` sorts one run the way trec_eval does and looks up each retrieved document's
grade. The result, ``Ranking``, is a set of flat arrays sorted by (query, rank): one row
per retrieved document, no padding, so one cumulative sum serves all queries at once.

Grades of retrieved documents follow trec_eval (form_res_rels.c): the qrels grade, or
NONPOOL (-1) for a document absent from the qrels, or UNJUDGED (-2) for a qrels entry
with a negative grade ("in the pool but unjudged").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.metrics.encode import as_bytes, distinct, factorize
from workbench.metrics.qrels_index import (  # noqa: F401 - re-exported: callers import them from here
    NONPOOL,
    UNJUDGED,
    DuplicatePairError,
    QrelsIndex,
    _first_duplicate,
    _ranks,
    _run_starts,
    _sort_groups,
)

__all__ = ["NONPOOL", "UNJUDGED", "TIES", "DuplicatePairError", "QrelsIndex", "Ranking", "rank_run",
           "rank_for_subsets", "on_subset", "sort_in_groups", "trec_order", "COMPAT",
           "score_precision"]

TIES = ("trec_eval", "input", "rank")


@dataclass(frozen=True)
class Ranking:
    """One run, sorted and joined with the qrels: flat rows grouped by query.

    grp: query index (into QrelsIndex.qids) of each row; each query's rows are
    contiguous and in rank order (queries in any order);
    rank: 1-based rank within the query; rel: grade, NONPOOL or UNJUDGED;
    num_ret: retrieved documents per query (length nq); present: queries the run
    retrieved anything for (before -M).
    """

    nq: int
    grp: np.ndarray
    rank: np.ndarray
    rel: np.ndarray
    num_ret: np.ndarray
    present: np.ndarray


COMPAT = (9, 10)  # trec_eval versions whose score order is offered


def score_precision(compat: int) -> type:
    """The type trec_eval compares run scores as: ``double`` since trec_eval 10
    (trec_format.h: ``double sim``), ``float`` in trec_eval 9. Scores written with 16
    digits (neural rankers) often differ only beyond float32, so the two orders differ."""
    if compat not in COMPAT:
        raise ValueError("compat must be 9 or 10")
    return np.float64 if compat == 10 else np.float32


def _desc_score_key(score: np.ndarray, compat: int) -> np.ndarray:
    """Unsigned keys whose ascending order is the descending order of the scores compared
    as trec_eval `compat` compares them (uint64 for doubles, uint32 for floats)."""
    ftype = score_precision(compat)
    utype = np.uint64 if ftype is np.float64 else np.uint32
    width = np.dtype(utype).itemsize * 8
    # beyond float32's range a score becomes ±inf, as C's conversion gives, without
    # numpy's overflow RuntimeWarning (it printed source paths to the user's terminal)
    with np.errstate(over="ignore"):
        bits = score.astype(ftype).view(utype)
    neg = (bits >> utype(width - 1)).astype(bool)
    sign = utype(1 << (width - 1))
    key = np.where(neg, ~bits, bits | sign)
    key = np.where(key == utype((1 << (width - 1)) - 1), sign, key)  # -0.0 == +0.0
    return ~key


def _trec_order(qidx: np.ndarray, score: np.ndarray, docno: np.ndarray,
                starts: np.ndarray | None = None, compat: int = 10,
                sort: bool = False) -> np.ndarray | None:
    """Row order (query, score desc as trec_eval `compat` compares it, docno desc) or
    None if already in it.

    Query groups need only be contiguous, in any order. A run file written in rank order
    is detected without sorting; only its runs of tied scores are put in docno order.
    starts: the query groups' first rows, when each query's rows are known contiguous.
    sort: the caller knows the rows are not in rank order (_tie_moves said so): sort.
    """
    n = score.size
    if n < 2:
        return None
    if starts is None and not sort:
        s = _run_starts(qidx)
        if s.size == np.count_nonzero(np.bincount(qidx)):
            starts = s
    if starts is not None and not sort:
        moved = _tie_moves(score, docno, starts, compat)
        if moved is not None:
            if moved[0].size == 0:
                return None
            order = np.arange(n)
            order[moved[0]] = moved[1]
            return order
    skey = _desc_score_key(score, compat)
    order = None if starts is None else sort_in_groups(skey, starts)
    if order is not None:  # each query's rows sorted in their place
        sk = skey[order]
        same = sk[1:] == sk[:-1]
        same[starts[1:] - 1] = False  # a query's last row and the next one's first
        tie = np.flatnonzero(same)
    elif skey.dtype == np.uint32:  # query and score in one 64-bit key: one argsort
        key = (qidx.astype(np.uint64) << np.uint64(32)) | skey.astype(np.uint64)
        order = np.argsort(key)
        sk = key[order]
        tie = np.flatnonzero(sk[1:] == sk[:-1])
    else:  # by score, then a stable (radix) sort by query: faster than lexsort
        order = np.argsort(skey)
        order = order[np.argsort(qidx[order], kind="stable")]
        sq, sk = qidx[order], skey[order]
        tie = np.flatnonzero((sk[1:] == sk[:-1]) & (sq[1:] == sq[:-1]))
    if tie.size:
        _docno_desc_within_ties(order, tie, docno)
    return order


def sort_in_groups(key: np.ndarray, starts: np.ndarray) -> np.ndarray | None:
    """The argsort of `key` within each group of contiguous rows (the groups start at
    `starts`; empty ones allowed), each group kept in its place; None where the groups
    differ so much in size that one 2-D sort of them, padded to the largest, would sort
    more than twice the rows. Several times faster than one sort of all the rows by
    (group, key)."""
    n = key.size
    sizes = np.diff(np.append(starts, n))
    g, k = sizes.size, int(sizes.max(initial=0))
    if n == 0 or g * k > 2 * n:
        return None
    if np.all(sizes == k):
        order = np.argsort(key.reshape(g, k), axis=1)
        order += starts[:, None]
        return order.ravel()
    padded = np.zeros((g, k), dtype=key.dtype)
    padded[np.repeat(np.arange(g), sizes), np.arange(n) - np.repeat(starts, sizes)] = key
    order = np.argsort(padded, axis=1)
    real = order < sizes[:, None]  # the padding, wherever it sorts, is dropped by position
    order += starts[:, None]
    return order[real]


def _tie_moves(score: np.ndarray, docno: np.ndarray, starts: np.ndarray,
               compat: int) -> tuple[np.ndarray, np.ndarray] | None:
    """For rows already in rank order (each query's rows contiguous, starting at
    `starts`; scores descending as trec_eval `compat` compares them): (rows, src), the
    rows that trec_eval's docno-descending tie order moves, row rows[i] taking what was
    at src[i] (both empty when none moves); None when the rows are not in rank order.

    A run file written in rank order needs only this, not a sort of every row."""
    # comparisons at trec_eval's precision order as _desc_score_key's keys do (-0.0 ==
    # +0.0); a NaN fails them and takes the sorting path
    with np.errstate(over="ignore"):
        sc = score.astype(score_precision(compat), copy=False)
    ok = sc[1:] <= sc[:-1]
    ok[starts[1:] - 1] = True  # a new query may start anywhere
    if not ok.all():
        return None
    tied = np.equal(sc[1:], sc[:-1], out=ok)
    tied[starts[1:] - 1] = False
    tie = np.flatnonzero(tied)
    if tie.size == 0 or np.all(docno[tie + 1] < docno[tie]):
        none = np.empty(0, dtype=np.int64)
        return none, none
    return _tie_order(None, tie, docno)


def trec_order(qidx, score, docno, compat: int = 10) -> np.ndarray:
    """The permutation that puts rows in trec_eval's order: grouped by query (queries in
    the order of their first row's `qidx` value), score descending (compared as doubles,
    as trec_eval 10 does, or as floats with compat=9), ties by docno descending. The one
    ordering of the project: evaluation, pooling and the stored runs all use it."""
    qidx = np.asarray(qidx, dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    docno = as_bytes(docno)
    n = score.size
    if n == 0:
        return np.arange(0)
    grouped = np.argsort(qidx, kind="stable")
    q = qidx[grouped]
    dense = np.zeros(n, dtype=np.int64)  # group codes 0..g-1 (any integer keys allowed)
    np.cumsum(q[1:] != q[:-1], out=dense[1:])
    order = _trec_order(dense, score[grouped], docno[grouped], compat=compat)
    return grouped if order is None else grouped[order]


def _docno_desc_within_ties(order: np.ndarray, tie: np.ndarray, docno: np.ndarray) -> None:
    """Reorder, in place, each run of tied positions of `order` by docno descending.

    tie: positions p where order[p] and order[p + 1] are tied (same query and score).
    """
    rows, src = _tie_order(order, tie, docno)
    order[rows] = src


def _tie_order(order: np.ndarray, tie: np.ndarray, docno: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows, values): _docno_desc_within_ties sets order[rows] = values (order None:
    the identity, rows already in rank order)."""
    rows = distinct(np.concatenate((tie, tie + 1)))
    # a new run of ties starts where a position is not tied to its predecessor (tie is
    # sorted: a search finds whether the position before is in it)
    before = rows[1:] - 1
    at = np.minimum(np.searchsorted(tie, before), tie.size - 1)
    tied_to_prev = np.zeros(rows.size, dtype=bool)
    tied_to_prev[1:] = (tie[at] == before) & (rows[1:] - rows[:-1] == 1)
    run_id = np.cumsum(~tied_to_prev)
    sub = rows if order is None else order[rows]
    dcode, _ = factorize(docno[sub])
    return rows, sub[np.lexsort((-dcode, run_id))]


def rank_run(
    index: QrelsIndex,
    qid,
    docno,
    score,
    *,
    ties: str = "trec_eval",
    rank=None,
    max_depth: int | None = None,
    check_duplicates: bool = True,
    compat: int = 10,
) -> Ranking:
    """Sort a run as trec_eval does and join it with the qrels.

    ties: ``trec_eval`` — score descending (compared as doubles, as trec_eval 10 does;
    as floats, as trec_eval 9 did, with compat=9), ties by docno descending; ``input`` —
    the input order within each query;
    ``rank`` — the rank column ascending (then input order). Rows of queries absent
    from the qrels are dropped. max_depth keeps the top n of each query (``-M``).
    """
    return _rank(index, index.query_index(qid), docno, score, ties=ties, rank=rank,
                 max_depth=max_depth, check_duplicates=check_duplicates, compat=compat)


def rank_for_subsets(index: QrelsIndex, qid, docno, score, *, ties: str = "trec_eval", rank=None,
                     max_depth: int | None = None, check_duplicates: bool = True,
                     qrels_rows=None, compat: int = 10) -> Ranking:
    """rank_run, but each row's `rel` is its row in the arrays the qrels index was built
    from (-1: absent), so that the one ranking can be judged against any subset of those
    qrels (``on_subset``): the order never depends on the qrels.

    qrels_rows: each run row's qrels row (-1: absent), when the caller has joined them
    already (then no document is looked up)."""
    return _rank(index, index.query_index(qid), docno, score, ties=ties, rank=rank,
                 max_depth=max_depth, check_duplicates=check_duplicates, qrels_rows=True,
                 joined=qrels_rows, compat=compat)


def on_subset(ranked: Ranking, row_grade: np.ndarray, qmap: np.ndarray, nq: int) -> Ranking:
    """A ``rank_for_subsets`` ranking judged by a subset of its qrels, as ``rank_run``
    against that subset would give it.

    row_grade: each qrels row's grade in the subset (NONPOOL for a row left out), with
    one more NONPOOL at the end for the documents absent from every row; qmap: each full
    query's index in the subset's QrelsIndex (-1: the subset has no row of it, its
    rows are dropped); nq: the subset's number of queries."""
    rel = row_grade[ranked.rel]  # -1 (absent) takes the last entry
    grp = qmap[ranked.grp]
    num_ret = np.zeros(nq, dtype=np.int64)
    present = np.zeros(nq, dtype=bool)
    kept = np.flatnonzero(qmap >= 0)
    num_ret[qmap[kept]] = ranked.num_ret[kept]
    present[qmap[kept]] = ranked.present[kept]
    if kept.size == qmap.size:
        return Ranking(nq=nq, grp=grp, rank=ranked.rank, rel=rel, num_ret=num_ret, present=present)
    rows = np.flatnonzero(grp >= 0)  # whole queries go: the others keep their ranks
    return Ranking(nq=nq, grp=grp[rows], rank=ranked.rank[rows], rel=rel[rows], num_ret=num_ret,
                   present=present)


def _rank(index: QrelsIndex, qidx: np.ndarray, docno, score, *, ties: str, rank,
          max_depth: int | None, check_duplicates: bool, qrels_rows: bool = False,
          joined=None, compat: int = 10) -> Ranking:
    """rank_run with the run's query indices (QrelsIndex.query_index) already known;
    qrels_rows, joined: see rank_for_subsets."""
    if ties not in TIES:
        raise ValueError(f"ties must be one of {', '.join(TIES)}")
    # rows already ranked need no scores; grades joined by the caller need no document ids
    if score is None and ties != "input":
        raise ValueError("a run without scores needs ties='input'")
    if docno is None and (joined is None or check_duplicates):
        raise ValueError("a run without document ids needs joined grades and no duplicate check")
    docno = None if docno is None else as_bytes(docno)
    score = None if score is None else np.asarray(score, dtype=np.float64)
    if any(a is not None and a.size != qidx.size for a in (docno, score)):
        raise ValueError("run arrays differ in length")
    if joined is not None and np.size(joined) != qidx.size:
        raise ValueError("qrels_rows and the run differ in length")
    rows = None  # positions in the caller's arrays of the rows kept
    keep = qidx >= 0
    if not keep.all():
        rows = np.flatnonzero(keep)
        qidx = qidx[rows]
        docno = None if docno is None else docno[rows]
        score = None if score is None else score[rows]
        if joined is not None:
            joined = np.asarray(joined)[rows]
        if rank is not None:
            rank = np.asarray(rank)[rows]
    n = qidx.size
    starts = _run_starts(qidx)
    grouped = starts.size == distinct(qidx[starts]).size  # each query's rows contiguous
    if joined is not None and not (check_duplicates and n > 1):
        sh = horder = None  # no key needed
    else:
        # One sort of the (query, docno) keys serves the duplicate check and the lookup.
        sh, horder = index._sorted_keys(qidx, docno, starts, grouped)
    if check_duplicates and n > 1:
        dup = _first_duplicate(sh, horder, qidx, docno)
        if dup == -2:
            from workbench.metrics.encode import duplicate_pairs

            d = duplicate_pairs(qidx, docno)
            dup = int(d.min()) if d.size else -1
        if dup >= 0:
            raise DuplicatePairError(
                "run", int(dup if rows is None else rows[dup]), index.qids[qidx[dup]], docno[dup]
            )
    if joined is not None:
        rel = np.asarray(joined, dtype=np.int64)
    else:
        rel = index._lookup_keys(qidx, docno, sh, horder, as_rows=qrels_rows)
    del sh, horder
    moved = None
    tried = ties == "trec_eval" and grouped and n > 1
    if tried:
        # rows in rank order (a run file as written): only tied rows move, and only their
        # grades (a move stays within a query), in place; no permutation of every row
        moved = _tie_moves(score, docno, starts, compat)
    if moved is not None:
        order = None
        if moved[0].size:
            rel = rel.copy() if joined is not None else rel
            rel[moved[0]] = rel[moved[1]]
    elif ties == "trec_eval":
        order = _trec_order(qidx, score, docno, starts if grouped else None, compat, sort=tried)
    elif ties == "input":  # rows of a query already together need no sort (any query order)
        order = None if grouped else np.argsort(qidx, kind="stable")
    else:
        if rank is None:
            raise ValueError("ties='rank' needs the rank column")
        order = np.lexsort((np.asarray(rank, dtype=np.float64), qidx))
    if order is not None:
        qidx, rel = qidx[order], rel[order]
        starts = _run_starts(qidx)
    # every order above leaves each query's rows contiguous
    nq = index.nq
    sizes = np.diff(np.append(starts, n))
    heads = qidx[starts]
    present = np.zeros(nq, dtype=bool)
    present[heads] = True
    rk = np.arange(1, n + 1, dtype=np.int64)
    rk -= np.repeat(starts, sizes)
    num_ret = np.zeros(nq, dtype=np.int64)
    if max_depth is not None and n and int(sizes.max()) > max_depth:
        cut = rk <= max_depth
        qidx, rel, rk = qidx[cut], rel[cut], rk[cut]
        sizes = np.minimum(sizes, max_depth)
    num_ret[heads] = sizes
    return Ranking(nq=nq, grp=qidx, rank=rk, rel=rel, num_ret=num_ret, present=present)
