"""The qrels encoded once for fast lookups, shared by every run evaluated against them.

``QrelsIndex`` keeps each query's rows where the file put them and keys each row by the
query's position plus a 40-bit docno hash, so sorting within each query sorts the whole
index; a lookup confirms every hash match byte for byte. Also here: the grouped-array
primitives the ranking shares (group starts, in-group ranks, in-group key sorts).

Grades follow trec_eval (form_res_rels.c): the qrels grade, NONPOOL (-1) for a document
absent from the qrels, UNJUDGED (-2) for a qrels entry with a negative grade ("in the
pool but unjudged").
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.encode import (
    as_bytes,
    factorize,
    hash_bytes,
    hash_pairs,
    same_bytes,
    take_bytes,
)

__all__ = ["NONPOOL", "UNJUDGED", "DuplicatePairError", "QrelsIndex"]

NONPOOL = -1
UNJUDGED = -2


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
    -2 if only hash collisions (different pairs with equal hashes) were seen.

    qcodes: the rows' queries, or None when equal keys imply equal queries."""
    cand = np.flatnonzero(h_sorted[1:] == h_sorted[:-1])
    if cand.size == 0:
        return -1
    a, b = order[cand], order[cand + 1]
    same = docno[a] == docno[b]
    if qcodes is not None:  # None: equal keys imply equal queries
        same &= qcodes[a] == qcodes[b]
    if same.any():
        return int(np.maximum(a, b)[same].min())
    return -2


def _run_starts(ids: np.ndarray) -> np.ndarray:
    """Start of each run of equal neighbouring ids (int64; empty for no rows)."""
    if ids.size == 0:
        return np.empty(0, dtype=np.int64)
    change = np.flatnonzero(ids[1:] != ids[:-1])
    starts = np.empty(change.size + 1, dtype=np.int64)
    starts[0] = 0
    np.add(change, 1, out=starts[1:])
    return starts


_LOOKUP_BLOCK = 1 << 14  # run rows looked up together: their index range stays in cache
_HBITS = 40  # docno hash bits of a key; the query's key prefix goes above them
_PREFIX_MAX = 1 << (64 - _HBITS)


def _doc_hash(docno: np.ndarray) -> np.ndarray:
    """The 40-bit docno hash part of a (query, docno) key."""
    h = hash_bytes(docno)
    h >>= np.uint64(64 - _HBITS)
    return h


class QrelsIndex:
    """Qrels encoded for fast lookups: sorted query ids, per-query grades, a hash index.

    qids: the qrels query ids in trec_eval's order (byte-string order), as an ``S``
    array; every ranking and result is indexed by position in it.

    The index is the sorted array of (query prefix << 40 | docno hash) keys. When each
    query's rows are contiguous (any qrels file), a query's prefix is the position of its
    group in the file: sorting each group by its hashes then sorts all keys, with no
    global permutation. Lookups confirm every hash match byte for byte.
    """

    def __init__(self, qid, docno, rel) -> None:
        qid = as_bytes(qid)
        docno = as_bytes(docno)
        rel = np.asarray(rel)
        if rel.dtype.kind != "i":
            rel = np.asarray(rel, dtype=np.int64)
        if not (qid.size == docno.size == rel.size):
            raise ValueError("qrels arrays differ in length")
        n = qid.size
        starts = _run_starts(qid)
        gq, nq = factorize(qid[starts])  # query code of each group of rows
        self.nq = nq
        self.qids = np.empty(nq, dtype=qid.dtype)
        self.qids[gq] = qid[starts]
        self.docno = docno
        sizes = np.diff(np.append(starts, n))
        self._gq, self._sizes = gq, sizes
        self._qcode: np.ndarray | None = None
        self._rel: np.ndarray | None = None
        lo = int(rel.min()) if n else 0
        hi = int(rel.max()) if n else 0
        # grades (negative ones all UNJUDGED) in the narrowest type that holds them
        self._rel_dtype = np.dtype(np.int8 if hi <= 127 else np.int64)
        self._grade_lo, self._grade_hi = (UNJUDGED if lo < 0 else 0), max(hi, 0)
        if self._rel_dtype == np.int8 and lo >= -128:
            g = rel.astype(np.int8)
            np.copyto(g, np.int8(UNJUDGED), where=g < 0)
        else:
            g = np.where(rel < 0, UNJUDGED, rel).astype(self._rel_dtype, copy=False)
        self._g = g  # grades in the rows' order
        h = _doc_hash(docno)
        if starts.size == nq and nq <= _PREFIX_MAX:
            # each query's rows contiguous: its prefix is its group's position in the file
            gprefix = np.arange(nq, dtype=np.uint64) << np.uint64(_HBITS)
            self._qprefix = np.empty(nq, dtype=np.uint64)
            self._qprefix[gq] = gprefix
            self._hash, order = _sort_groups(h, starts, sizes, gprefix)
        elif nq <= _PREFIX_MAX:
            self._qprefix = np.arange(nq, dtype=np.uint64) << np.uint64(_HBITS)
            h |= self._qprefix[self.qcode]
            order = np.argsort(h)
            self._hash = h[order]
        else:  # more queries than prefixes: a 64-bit hash of the whole pair
            self._qprefix = None
            h = hash_pairs(self.qcode, docno)
            order = np.argsort(h)
            self._hash = h[order]
        del h
        self._order = order
        self._rel_sorted = g[order]
        dup = _first_duplicate(self._hash, order, None if self._qprefix is not None else self.qcode, docno)
        if dup >= 0:
            raise DuplicatePairError("qrels", dup, qid[dup], docno[dup])
        # distinct pairs with equal keys (rare): exact lookups instead
        self._collision = dup == -2
        self._levels: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._hist: tuple[np.ndarray, np.ndarray] | None | bool = False
        self._ideal: tuple[np.ndarray, np.ndarray] | None = None
        self.cache: dict = {}  # per-qrels results kernels reuse across runs (ideal DCG)

    @property
    def qcode(self) -> np.ndarray:
        """Query index of each qrels row (in the rows' order)."""
        if self._qcode is None:
            self._qcode = np.repeat(self._gq, self._sizes)
        return self._qcode

    @property
    def rel(self) -> np.ndarray:
        """Grade of each qrels row (int64; negative grades as UNJUDGED)."""
        if self._rel is None:
            self._rel = self._g.astype(np.int64)
        return self._rel

    def keys(self, qidx: np.ndarray, docno: np.ndarray) -> np.ndarray:
        """uint64 keys of (query index, docno) pairs, comparable with the index's."""
        docno = as_bytes(docno)
        if self._qprefix is None:
            return hash_pairs(qidx, docno)
        h = _doc_hash(docno)
        h |= self._qprefix[qidx]
        return h

    def _sorted_keys(self, qidx, docno, starts, grouped) -> tuple[np.ndarray, np.ndarray]:
        """(sorted keys, order) of a run's pairs, sorted within its query groups
        (starts; grouped: each query's rows are contiguous) or globally."""
        if grouped and self._qprefix is not None:
            sizes = np.diff(np.append(starts, qidx.size))
            return _sort_groups(_doc_hash(docno), starts, sizes, self._qprefix[qidx[starts]])
        h = self.keys(qidx, docno)
        order = np.argsort(h)
        return h[order], order

    def _histogram(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(grades, counts): counts[q, j] rows of query q with grade grades[j], or None
        when the grades are too spread out for a small table."""
        if self._hist is False:
            lo, hi = self._grade_lo, self._grade_hi
            width = hi - lo + 1
            n = self._g.size
            if width > 4096 or self.nq * width > 4 * n + 65536:
                self._hist = None
            else:
                counts = np.zeros((self.nq, width), dtype=np.int64)
                starts = np.append(0, np.cumsum(self._sizes))
                # in batches of groups: (group, grade) keys stay small
                step = max(1, (1 << 20) // max(1, int(self._sizes.max(initial=0))))
                for a in range(0, self._sizes.size, step):
                    b = min(a + step, self._sizes.size)
                    k = np.repeat(np.arange(b - a, dtype=np.int64) * width - lo, self._sizes[a:b])
                    k += self._g[starts[a]:starts[b]]
                    part = np.bincount(k, minlength=(b - a) * width).reshape(b - a, width)
                    if self._gq.size == self.nq:  # one group per query
                        counts[self._gq[a:b]] = part
                    else:
                        np.add.at(counts, self._gq[a:b], part)
                self._hist = (np.arange(lo, hi + 1, dtype=np.int64), counts)
        return self._hist

    def counts(self, level: int) -> tuple[np.ndarray, np.ndarray]:
        """(R, N) per query: grades >= level, and judged grades 0 <= g < level."""
        if level not in self._levels:
            hist = self._histogram()
            if hist is not None:
                grades, counts = hist
                R = counts[:, grades >= level].sum(axis=1, dtype=np.int64)
                J = counts[:, grades >= 0].sum(axis=1, dtype=np.int64)
            else:
                rel = self.rel
                R = np.bincount(self.qcode, weights=rel >= level, minlength=self.nq).astype(np.int64)
                J = np.bincount(self.qcode, weights=rel >= 0, minlength=self.nq).astype(np.int64)
            self._levels[level] = (R, J - R if level >= 0 else J * 0)
        return self._levels[level]

    def ideal(self, cutoff: int | None = None, lo: int = 0, hi: int | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
        """(grp, grade): positive grades of each query sorted descending, flat by query;
        with a cutoff, only each query's first `cutoff`; only queries lo..hi-1."""
        hi = self.nq if hi is None else hi
        hist = self._histogram()
        if hist is None or (cutoff is None and self._ideal is not None):
            if self._ideal is None:
                rel = self.rel
                pos = rel > 0
                g = self.qcode[pos]
                v = rel[pos]
                order = np.lexsort((-v, g))
                self._ideal = (g[order], v[order])
            grp, grade = self._ideal
            if (lo, hi) != (0, self.nq):
                a, b = np.searchsorted(grp, [lo, hi])
                grp, grade = grp[a:b], grade[a:b]
            if cutoff is not None:
                keep = _ranks(grp, self.nq) <= cutoff
                grp, grade = grp[keep], grade[keep]
            return grp, grade
        grades, counts = hist
        pos = np.flatnonzero(grades > 0)[::-1]  # positive grades, best first
        take = counts[lo:hi, pos]
        if cutoff is not None:
            before = np.cumsum(take, axis=1)
            before -= take
            np.minimum(np.maximum(cutoff - before, 0), take, out=take)
        grade = np.repeat(np.broadcast_to(grades[pos], take.shape).reshape(-1), take.reshape(-1))
        grp = np.repeat(np.arange(lo, hi, dtype=np.int64), take.sum(axis=1))
        if cutoff is None and (lo, hi) == (0, self.nq):
            self._ideal = (grp, grade)
        return grp, grade

    def lookup(self, qidx: np.ndarray, docno: np.ndarray, h: np.ndarray | None = None,
               order: np.ndarray | None = None) -> np.ndarray:
        """Grade of each (query index, docno) pair: qrels grade, NONPOOL or UNJUDGED.

        h, order: the pairs' keys() and an order that sorts them, when the caller has
        them (looking up sorted keys walks the index in order, which is much faster).
        """
        qidx = np.asarray(qidx)
        docno = as_bytes(docno)
        sh = None
        if qidx.size and self._hash.size and not self._collision:
            if h is None:
                h = self.keys(qidx, docno)
            if order is None:
                order = np.argsort(h)
            sh = h[order]
        return self._lookup_keys(qidx, docno, sh, order)

    def _lookup_keys(self, qidx, docno, sh, order, *, as_rows: bool = False) -> np.ndarray:
        """lookup() of pairs whose keys, in `order`, are sh (sorted within groups).
        as_rows: give each pair's qrels row instead of its grade (-1 where absent)."""
        out = np.full(qidx.size, -1 if as_rows else NONPOOL,
                      dtype=np.int64 if as_rows else self._rel_dtype)
        if qidx.size == 0 or self._hash.size == 0:
            return out
        if self._collision:
            return self._lookup_exact(qidx, docno, as_rows=as_rows)
        hs = self._hash
        # in blocks of rows whose keys' index range stays small enough for the cache
        for lo in range(0, order.size, _LOOKUP_BLOCK):
            rows_all = order[lo:lo + _LOOKUP_BLOCK]
            skeys = sh[lo:lo + _LOOKUP_BLOCK]
            a = int(np.searchsorted(hs, skeys.min()))
            b = int(np.searchsorted(hs, skeys.max(), side="right"))
            if b <= a:
                continue
            pos = _search_sorted(hs[a:b], skeys)
            pos += a
            np.minimum(pos, b - 1, out=pos)  # past the end: a key that is not there
            hit = np.flatnonzero(hs[pos] == skeys)
            p = pos[hit]
            rows = rows_all[hit]
            src = self._order[p]
            exact = same_bytes(take_bytes(self.docno, src), take_bytes(docno, rows))
            if self._qprefix is None:
                exact &= self.qcode[src] == qidx[rows]
            found = src if as_rows else self._rel_sorted[p]
            if exact.all():
                out[rows] = found
            else:
                out[rows[exact]] = found[exact]
        return out

    def _lookup_exact(self, qidx, docno, *, as_rows: bool = False) -> np.ndarray:
        from workbench.metrics.encode import factorize_many

        (dq, dr), nd = factorize_many(self.docno, docno)
        kq = self.qcode * max(nd, 1) + dq
        kr = qidx * max(nd, 1) + dr
        order = np.argsort(kq)
        sk = kq[order]
        pos = np.searchsorted(sk, kr)
        pos[pos == sk.size] = 0
        hit = sk[pos] == kr
        if as_rows:
            out = np.full(qidx.size, -1, dtype=np.int64)
            out[hit] = order[pos[hit]]
            return out
        out = np.full(qidx.size, NONPOOL, dtype=self._rel_dtype)
        out[hit] = self._g[order[pos[hit]]]
        return out

    def query_index(self, run_qid) -> np.ndarray:
        """Position of each run query id in ``qids``, or -1 when the qrels lack it."""
        run_qid = as_bytes(run_qid)
        heads, idx = self._query_groups(run_qid)
        return np.repeat(idx, np.diff(np.append(heads, run_qid.size)))

    def _query_groups(self, run_qid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(heads, idx): the first row of each run of equal ids in run_qid (an ``S``
        array), and the query_index of each run."""
        heads = _run_starts(run_qid)
        if heads.size == 0 or self.nq == 0:
            return heads, np.full(heads.size, -1, dtype=np.int64)
        hq = run_qid[heads]
        pos = np.searchsorted(self.qids, hq)
        pos[pos == self.nq] = 0
        found = self.qids[pos] == hq
        return heads, np.where(found, pos, -1)


def _search_sorted(hs: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """np.searchsorted(hs, keys) (side left) for sorted hs. Keys sorted too (a block of a
    run whose queries come in the qrels' order, the usual case) are merged with hs in one
    stable sort of both, which finds two sorted runs and merges them in linear time: a
    third less than the binary searches (34 -> 23 ms for a million keys)."""
    k = keys.size
    if k < 2 or not (keys[1:] >= keys[:-1]).all():
        return np.searchsorted(hs, keys)
    # keys first: a key sorts before the hs equal to it (stable), so the hs before a key in
    # the merge are those < key, its left insertion point
    merged = np.argsort(np.concatenate((keys, hs)), kind="stable")
    pos = np.flatnonzero(merged < k)
    pos -= np.arange(k)
    return pos


def _ranks(grp: np.ndarray, nq: int) -> np.ndarray:
    """1-based position of each row within its (contiguous) group."""
    n = grp.size
    if n == 0:
        return np.empty(0, dtype=np.int64)
    starts = _run_starts(grp)
    first = np.zeros(nq, dtype=np.int64)
    first[grp[starts]] = starts
    rank = np.arange(1, n + 1, dtype=np.int64)
    rank -= first[grp]
    return rank


_POS_BITS = 24  # a row's position within its group, packed below the docno hash
_POS_MASK = np.uint64((1 << _POS_BITS) - 1)
_HASH_MASK = np.uint64((1 << _HBITS) - 1)


def _sort_groups(h: np.ndarray, starts: np.ndarray, sizes: np.ndarray,
                 gprefix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted keys, order) of keys gprefix[group] | h (h: 40-bit docno hashes, one
    prefix per contiguous group), sorted within each group, groups in place.
    Overwrites h.

    Each group is a row of a matrix padded to the longest group, its row position
    packed below the hash bits: a plain in-row sort of integers (many small
    cache-resident sorts, and no argsort) gives both the keys and the order. Groups
    too uneven for a matrix get one global argsort (groups then come in key order)."""
    n = h.size
    groups = starts.size
    width = int(sizes.max()) if groups else 0
    if n < 4096 or groups * width > 2 * n or width >= (1 << _POS_BITS) - 1:
        h |= np.repeat(gprefix, sizes)
        order = np.argsort(h)
        return h[order], order
    shift = np.uint64(_POS_BITS)
    itype = np.int32 if n < (1 << 31) else np.int64  # the order: half the memory
    if groups * width == n:
        mat = h.reshape(groups, width)
        mat <<= shift
        mat |= np.arange(width, dtype=np.uint64)
        mat.sort(axis=1)
        local = np.empty((groups, width), dtype=itype)
        np.bitwise_and(mat, _POS_MASK, out=local, casting="unsafe")
        local += starts[:, None].astype(itype)
        mat >>= shift
        mat |= gprefix[:, None]
        return mat.reshape(n), local.reshape(n)
    col = np.arange(n, dtype=np.int64)
    col -= np.repeat(starts, sizes)
    h <<= shift
    h |= col.view(np.uint64)
    # padding (all ones) sorts after every packed key: positions < width < 2**24 - 1
    mat = np.full((groups, width), np.iinfo(np.uint64).max, dtype=np.uint64)
    mat[np.repeat(np.arange(groups), sizes), col] = h
    mat.sort(axis=1)
    local = np.empty((groups, width), dtype=itype)
    np.bitwise_and(mat, _POS_MASK, out=local, casting="unsafe")
    valid = local < sizes[:, None]
    local += starts[:, None].astype(itype)
    mat >>= shift
    mat |= gprefix[:, None]
    return mat[valid], local[valid]
