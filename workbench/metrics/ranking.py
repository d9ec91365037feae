"""From qrels and run arrays to the flat, query-grouped ranking every kernel reads.

``QrelsIndex`` encodes the qrels once (shared by every run evaluated against them);
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

from workbench.metrics.encode import _BLOCK, as_bytes, factorize, pair_keys

__all__ = ["NONPOOL", "UNJUDGED", "TIES", "DuplicatePairError", "QrelsIndex", "Ranking", "rank_run"]

NONPOOL = -1
UNJUDGED = -2
TIES = ("trec_eval", "input", "rank")


class DuplicatePairError(ValueError):
    """The same (query, docno) pair twice in the qrels or in a run.

    row: index of the second occurrence in the arrays given (callers map it to a file line);
    which: "qrels" or "run".
    """

    def __init__(self, which: str, row: int, qid: bytes, docno: bytes) -> None:
        self.which, self.row = which, row
        q = qid.decode("utf-8", "replace")
        d = docno.decode("utf-8", "replace")
        super().__init__(f"duplicate document {d!r} for query {q!r}" + (" in the run" if which == "run" else " in the qrels"))


def _first_duplicate(h_sorted, order, qcodes, docno):
    """Row of the earliest-found second occurrence of an exact duplicate, -1 if none,
    -2 if only hash collisions (different pairs with equal hashes) were seen."""
    cand = np.flatnonzero(h_sorted[1:] == h_sorted[:-1])
    if cand.size == 0:
        return -1
    a, b = order[cand], order[cand + 1]
    same = (qcodes[a] == qcodes[b]) & (docno[a] == docno[b])
    if same.any():
        return int(np.maximum(a, b)[same].min())
    return -2


class QrelsIndex:
    """Qrels encoded for fast lookups: sorted query ids, per-query grades, a hash index.

    qids: the qrels query ids in trec_eval's order (byte-string order), as an ``S``
    array; every ranking and result is indexed by position in it.
    """

    def __init__(self, qid, docno, rel) -> None:
        qid = as_bytes(qid)
        docno = as_bytes(docno)
        rel = np.asarray(rel, dtype=np.int64)
        if not (qid.size == docno.size == rel.size):
            raise ValueError("qrels arrays differ in length")
        qcode, nq = factorize(qid)
        self.nq = nq
        self.qids = np.empty(nq, dtype=qid.dtype)
        self.qids[qcode] = qid
        self.docno = docno
        self.qcode = qcode
        # trec_eval: every negative grade means "in the pool, unjudged"
        self.rel = np.where(rel < 0, UNJUDGED, rel)
        h = pair_keys(qcode, docno)
        order = _key_order(qcode, h)
        self._hash = h[order]
        self._order = order
        # the rows in key order, so that lookups of sorted keys read memory in order
        self._q_sorted = qcode[order]
        self._doc_sorted = docno[order]
        self._rel_sorted = self.rel[order]
        dup = _first_duplicate(self._hash, order, qcode, docno)
        if dup >= 0:
            raise DuplicatePairError("qrels", dup, qid[dup], docno[dup])
        # distinct pairs with equal keys (rare): exact lookups instead
        self._collision = dup == -2
        self._levels: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._ideal: tuple[np.ndarray, np.ndarray] | None = None
        self.cache: dict = {}  # per-qrels results kernels reuse across runs (ideal DCG)

    def counts(self, level: int) -> tuple[np.ndarray, np.ndarray]:
        """(R, N) per query: grades >= level, and judged grades 0 <= g < level."""
        if level not in self._levels:
            judged = self.rel >= 0
            rel = self.rel >= level
            R = np.bincount(self.qcode, weights=rel, minlength=self.nq).astype(np.int64)
            J = np.bincount(self.qcode, weights=judged, minlength=self.nq).astype(np.int64)
            self._levels[level] = (R, J - R if level >= 0 else J * 0)
        return self._levels[level]

    def ideal(self) -> tuple[np.ndarray, np.ndarray]:
        """(grp, grade): positive grades of each query sorted descending, flat by query."""
        if self._ideal is None:
            pos = self.rel > 0
            g = self.qcode[pos]
            v = self.rel[pos]
            order = np.lexsort((-v, g))
            self._ideal = (g[order], v[order])
        return self._ideal

    def lookup(self, qidx: np.ndarray, docno: np.ndarray, h: np.ndarray | None = None,
               order: np.ndarray | None = None) -> np.ndarray:
        """Grade of each (query index, docno) pair: qrels grade, NONPOOL or UNJUDGED.

        h, order: the pairs' hash_pairs() and its argsort, when the caller has them
        (looking up sorted hashes walks the index in order, which is much faster).
        """
        out = np.full(qidx.size, NONPOOL, dtype=np.int64)
        if qidx.size == 0 or self._hash.size == 0:
            return out
        if self._collision:
            return self._lookup_exact(qidx, docno)
        if h is None:
            h = pair_keys(qidx, docno)
        if order is None:
            order = np.argsort(h)
        # in blocks of rows: small temporaries are recycled (see encode.hash_bytes)
        for lo in range(0, order.size, _BLOCK):
            rows_all = order[lo:lo + _BLOCK]
            sh = h[rows_all]
            # search only the index range these keys can fall in: with query-major keys
            # and a block of whole queries it is small, so the search stays in cache
            a = int(np.searchsorted(self._hash, sh.min()))
            b = int(np.searchsorted(self._hash, sh.max(), side="right"))
            pos = np.searchsorted(self._hash[a:b], sh) + a
            pos[pos >= b] = max(a, 0) if b > a else 0
            hit = np.flatnonzero(self._hash[pos] == sh)
            p = pos[hit]
            rows = rows_all[hit]
            exact = (self._q_sorted[p] == qidx[rows]) & (self._doc_sorted[p] == docno[rows])
            out[rows[exact]] = self._rel_sorted[p[exact]]
        return out

    def _lookup_exact(self, qidx, docno) -> np.ndarray:
        from workbench.metrics.encode import factorize_many

        (dq, dr), nd = factorize_many(self.docno, docno)
        kq = self.qcode * max(nd, 1) + dq
        kr = qidx * max(nd, 1) + dr
        order = np.argsort(kq)
        sk = kq[order]
        pos = np.searchsorted(sk, kr)
        pos[pos == sk.size] = 0
        hit = sk[pos] == kr
        out = np.full(qidx.size, NONPOOL, dtype=np.int64)
        out[hit] = self.rel[order[pos[hit]]]
        return out

    def query_index(self, run_qid) -> np.ndarray:
        """Position of each run query id in ``qids``, or -1 when the qrels lack it."""
        run_qid = as_bytes(run_qid)
        if run_qid.size == 0 or self.nq == 0:
            return np.full(run_qid.size, -1, dtype=np.int64)
        change = np.flatnonzero(run_qid[1:] != run_qid[:-1]) + 1
        heads = np.concatenate(([0], change))
        hq = run_qid[heads]
        pos = np.searchsorted(self.qids, hq)
        pos[pos == self.nq] = 0
        found = self.qids[pos] == hq
        idx = np.where(found, pos, -1)
        return np.repeat(idx, np.diff(np.append(heads, run_qid.size)))


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


def _group_argsort(qidx: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """An order that sorts `keys` (query-major) within each contiguous query group.

    Groups are sorted as the rows of a matrix padded to the longest group — many small
    cache-resident sorts instead of one big one — when the padding stays small (a run
    cut at a fixed depth, a qrels file grouped by query); otherwise one global argsort.
    The result sorts each group's keys; groups keep their places (or, when one global
    argsort was used, come in key order).
    """
    n = keys.size
    if n < 2:
        return np.arange(n)
    change = np.flatnonzero(qidx[1:] != qidx[:-1]) + 1
    groups = change.size + 1
    if groups == 1:
        return np.argsort(keys)
    starts = np.concatenate(([0], change))
    if groups != np.unique(qidx[starts]).size:  # a query in two places: sort globally
        return np.argsort(keys)
    sizes = np.diff(np.append(starts, n))
    width = int(sizes.max())
    if width < 2 or groups * width > 2 * n:
        return np.argsort(keys)
    if groups * width == n:
        local = np.argsort(keys.reshape(groups, width), axis=1)
        local += starts[:, None]
        return local.reshape(n)
    # pad each group with the largest key so that padding sorts last
    col = np.arange(n, dtype=np.int64) - np.repeat(starts, sizes)
    mat = np.full((groups, width), np.iinfo(np.uint64).max, dtype=np.uint64)
    mat[np.repeat(np.arange(groups), sizes), col] = keys
    local = np.argsort(mat, axis=1)
    local += starts[:, None]
    valid = np.arange(width)[None, :] < sizes[:, None]
    return local[valid]


def _key_order(qidx: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """A permutation that sorts query-major `keys` globally, from per-group sorts when
    each query's rows are contiguous (the groups are then put in query order)."""
    order = _group_argsort(qidx, keys)
    n = keys.size
    if n < 2:
        return order
    sk = keys[order]
    if np.all(sk[1:] >= sk[:-1]):
        return order
    change = np.flatnonzero(qidx[1:] != qidx[:-1]) + 1
    starts = np.concatenate(([0], change))
    if starts.size != np.unique(qidx[starts]).size:  # a query in two places
        return np.argsort(keys)
    sizes = np.diff(np.append(starts, n))
    gorder = np.argsort(qidx[starts])
    new_sizes = sizes[gorder]
    new_starts = np.concatenate(([0], np.cumsum(new_sizes)[:-1]))
    offset = np.arange(n, dtype=np.int64) - np.repeat(new_starts, new_sizes)
    return order[np.repeat(starts[gorder], new_sizes) + offset]


def _desc_float32_key(score: np.ndarray) -> np.ndarray:
    """uint32 keys whose ascending order is the descending order of float32(score)."""
    bits = score.astype(np.float32).view(np.uint32)
    neg = (bits >> np.uint32(31)).astype(bool)
    key = np.where(neg, ~bits, bits | np.uint32(0x80000000))
    key = np.where(key == np.uint32(0x7FFFFFFF), np.uint32(0x80000000), key)  # -0.0 == +0.0
    return ~key


def _trec_order(qidx: np.ndarray, score: np.ndarray, docno: np.ndarray) -> np.ndarray | None:
    """Row order (query, score desc as float32, docno desc) or None if already in it.

    Query groups need only be contiguous, in any order. A run file written in rank order
    is detected without sorting; only its runs of tied scores are put in docno order.
    """
    skey = _desc_float32_key(score)
    n = skey.size
    if n < 2:
        return None
    same_q = qidx[1:] == qidx[:-1]
    heads = np.count_nonzero(~same_q) + 1
    if heads == np.count_nonzero(np.bincount(qidx)):
        step = skey[1:].astype(np.int64) - skey[:-1].astype(np.int64)
        if np.all(step[same_q] >= 0):
            tie = np.flatnonzero(same_q & (step == 0))
            if tie.size == 0 or np.all(docno[tie + 1] < docno[tie]):
                return None
            order = np.arange(n)
            _docno_desc_within_ties(order, tie, docno)
            return order
    key = (qidx.astype(np.uint64) << np.uint64(32)) | skey.astype(np.uint64)
    order = np.argsort(key)
    sk = key[order]
    tie = np.flatnonzero(sk[1:] == sk[:-1])
    if tie.size:
        _docno_desc_within_ties(order, tie, docno)
    return order


def _docno_desc_within_ties(order: np.ndarray, tie: np.ndarray, docno: np.ndarray) -> None:
    """Reorder, in place, each run of tied positions of `order` by docno descending.

    tie: positions p where order[p] and order[p + 1] are tied (same query and score).
    """
    rows = np.unique(np.concatenate((tie, tie + 1)))
    # a new run of ties starts where a position is not tied to its predecessor
    tied_to_prev = np.zeros(rows.size, dtype=bool)
    tied_to_prev[1:] = np.isin(rows[1:] - 1, tie, assume_unique=False) & (rows[1:] - rows[:-1] == 1)
    run_id = np.cumsum(~tied_to_prev)
    sub = order[rows]
    dcode, _ = factorize(docno[sub])
    order[rows] = sub[np.lexsort((-dcode, run_id))]


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
) -> Ranking:
    """Sort a run as trec_eval does and join it with the qrels.

    ties: ``trec_eval`` — score descending (compared as float32, as trec_eval stores
    scores), ties by docno descending; ``input`` — the input order within each query;
    ``rank`` — the rank column ascending (then input order). Rows of queries absent
    from the qrels are dropped. max_depth keeps the top n of each query (``-M``).
    """
    if ties not in TIES:
        raise ValueError(f"ties must be one of {', '.join(TIES)}")
    qidx = index.query_index(qid)
    docno = as_bytes(docno)
    score = np.asarray(score, dtype=np.float64)
    if not (qidx.size == docno.size == score.size):
        raise ValueError("run arrays differ in length")
    rows = None  # positions in the caller's arrays of the rows kept
    keep = qidx >= 0
    if not keep.all():
        rows = np.flatnonzero(keep)
        qidx, docno, score = qidx[rows], docno[rows], score[rows]
        if rank is not None:
            rank = np.asarray(rank)[rows]
    # One sort of the (query, docno) hashes serves the duplicate check and the lookup.
    h = pair_keys(qidx, docno)
    horder = _group_argsort(qidx, h)
    if check_duplicates and qidx.size > 1:
        dup = _first_duplicate(h[horder], horder, qidx, docno)
        if dup == -2:
            from workbench.metrics.encode import duplicate_pairs

            d = duplicate_pairs(qidx, docno)
            dup = int(d.min()) if d.size else -1
        if dup >= 0:
            raise DuplicatePairError(
                "run", int(dup if rows is None else rows[dup]), index.qids[qidx[dup]], docno[dup]
            )
    rel = index.lookup(qidx, docno, h, horder)
    if ties == "trec_eval":
        order = _trec_order(qidx, score, docno)
    elif ties == "input":
        order = np.argsort(qidx, kind="stable")
    else:
        if rank is None:
            raise ValueError("ties='rank' needs the rank column")
        order = np.lexsort((np.asarray(rank, dtype=np.float64), qidx))
    if order is not None:
        qidx, rel = qidx[order], rel[order]
    nq = index.nq
    n = qidx.size
    starts = np.flatnonzero(np.concatenate(([True], qidx[1:] != qidx[:-1]))) if n else np.empty(0, np.int64)
    present = np.zeros(nq, dtype=bool)
    present[qidx[starts]] = True
    first = np.zeros(nq, dtype=np.int64)
    first[qidx[starts]] = starts
    rk = np.arange(n, dtype=np.int64) - first[qidx] + 1
    if max_depth is not None:
        cut = rk <= max_depth
        if not cut.all():
            qidx, rel, rk = qidx[cut], rel[cut], rk[cut]
    num_ret = np.bincount(qidx, minlength=nq).astype(np.int64)
    return Ranking(nq=nq, grp=qidx, rank=rk, rel=rel, num_ret=num_ret, present=present)
