"""Turn string ids into dense integer codes that keep C ``strcmp`` order.

Why: sorting and joining numpy byte strings is 10–20× slower than sorting integers.
A NUL-padded byte string cut into 8-byte big-endian words compares, word by word, exactly
like ``strcmp`` compares the string, so each 8-byte column becomes a uint64 sort key and
the columns are folded into one dense code with one integer sort per column.
"""

from __future__ import annotations

import numpy as np

__all__ = ["as_bytes", "distinct", "factorize", "factorize_many", "hash_pairs", "pair_keys",
           "duplicate_pairs", "same_bytes", "take_bytes"]


def distinct(values) -> np.ndarray:
    """The sorted distinct values of a 1-D array: np.unique's answer without np.unique,
    which (numpy 2.x) imports numpy.ma on its first call to ask whether the array is
    masked: ~20 ms of every `eval` process."""
    s = np.sort(np.asarray(values).ravel())
    if s.size < 2:
        return s
    keep = np.empty(s.size, dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def as_bytes(values) -> np.ndarray:
    """Any id array (bytes, str, int, object) as a numpy ``S`` array (UTF-8)."""
    arr = np.asarray(values)
    if arr.dtype.kind == "S":
        return arr
    if arr.dtype.kind == "U":
        return np.char.encode(arr, "utf-8") if arr.size else arr.astype("S1")
    if arr.dtype.kind in "iu":
        return arr.astype("S")
    out = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in arr.tolist()]
    return np.array(out, dtype="S") if out else np.empty(0, dtype="S1")


def _words(arr: np.ndarray) -> list[np.ndarray]:
    """The 8-byte big-endian words of each string, most significant first."""
    width = max(arr.dtype.itemsize, 1)
    nwords = (width + 7) // 8
    raw = np.ascontiguousarray(arr).view(np.uint8).reshape(arr.size, arr.dtype.itemsize)
    if width == nwords * 8:
        mat = raw
    else:
        # zero-pad the bytes with a plain 2-D copy (an S-to-S astype is ~20x slower)
        mat = np.zeros((arr.size, nwords * 8), dtype=np.uint8)
        mat[:, :width] = raw
    words = mat.view(">u8")
    return [words[:, i].astype(np.uint64) for i in range(nwords)]


def _dense(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense codes 0..n-1 for integer keys, preserving their order."""
    if keys.size == 0:
        return np.empty(0, dtype=np.int64), 0
    order = np.argsort(keys)
    sk = keys[order]
    step = np.empty(sk.size, dtype=np.int64)
    step[0] = 0
    np.not_equal(sk[1:], sk[:-1], out=step[1:])
    np.cumsum(step, out=step)
    codes = np.empty(keys.size, dtype=np.int64)
    codes[order] = step
    return codes, int(step[-1]) + 1


def factorize(values) -> tuple[np.ndarray, int]:
    """(codes, n): codes[i] < codes[j] iff values[i] < values[j] as byte strings.

    Equal strings get equal codes; codes are dense in 0..n-1. Runs of equal neighbours
    (query ids in a file) are collapsed first, so grouped input costs little.
    """
    arr = as_bytes(values)
    if arr.size == 0:
        return np.empty(0, dtype=np.int64), 0
    change = np.flatnonzero(arr[1:] != arr[:-1]) + 1
    if change.size < arr.size // 4:
        heads = np.concatenate(([0], change))
        codes, n = _factorize_words(arr[heads])
        lengths = np.diff(np.append(heads, arr.size))
        return np.repeat(codes, lengths), n
    return _factorize_words(arr)


def _factorize_words(arr: np.ndarray) -> tuple[np.ndarray, int]:
    words = _words(arr)
    codes, n = _dense(words[0])
    for w in words[1:]:
        wc, wn = _dense(w)
        codes, n = _dense(codes * wn + wc)
    return codes, n


_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLD = np.uint64(0x9E3779B97F4A7C15)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser (in place on a fresh uint64 array)."""
    x ^= x >> np.uint64(30)
    x *= _M1
    x ^= x >> np.uint64(27)
    x *= _M2
    x ^= x >> np.uint64(31)
    return x


def hash_pairs(qcodes: np.ndarray, docno: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each (query code, docno bytes) pair (equal pairs, equal hashes)."""
    with np.errstate(over="ignore"):
        h = _mix(qcodes.astype(np.uint64) * _GOLD + np.uint64(1))
        for i, w in enumerate(_words(as_bytes(docno))):
            # all-zero words are padding only: skipping them makes the hash independent
            # of the array's string width
            h = _mix(h ^ w) if i == 0 else np.where(w == 0, h, _mix(h ^ w))
    return h


_HASH_BLOCK = 1 << 16  # rows per block of hash_bytes: its temporaries stay in cache
# odd multipliers, one per 8-byte word (cycled): each word's contribution is a bijection
_WORD_MUL = tuple(np.uint64(k) for k in (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F,
                                         0x165667B19E3779F9, 0xD6E8FEB86659FD93))


def hash_bytes(values) -> np.ndarray:
    """A 64-bit hash of each byte string (independent of the array's width).

    The string's 8-byte little-endian words, each times its own odd constant, are summed
    and the sum mixed once (splitmix64). A NUL padding word adds 0, which makes the hash
    independent of the width. Strings that differ in one word always differ before the
    mixing. The words are read in place (strided, unaligned views); a last partial word
    reads the next row's first bytes and masks them off. Computed in blocks of rows
    that stay in cache."""
    arr = np.ascontiguousarray(as_bytes(values))
    n = arr.size
    out = np.empty(n, dtype=np.uint64)
    width = arr.dtype.itemsize
    if n == 0 or width == 0:
        out[:] = 0
        return out
    nwords = (width + 7) // 8
    partial = width % 8
    # rows whose words can all be read in place (the last partial ones over-read up to
    # 7 bytes: not past the end of the buffer)
    inplace = max(0, (n * width - 8 * nwords) // width + 1)
    buf = arr.view(np.uint8).reshape(-1)
    tail_mask = np.uint64((1 << (8 * partial)) - 1)
    # array integer arithmetic wraps silently (no errstate: it costs per call)
    for lo in range(0, inplace, _HASH_BLOCK):
        m = min(_HASH_BLOCK, inplace - lo)
        h = out[lo:lo + m]
        for i in range(nwords):
            w = np.ndarray((m,), dtype="<u8", buffer=buf, offset=lo * width + 8 * i, strides=(width,))
            if i == 0 and (partial == 0 or nwords > 1):
                np.multiply(w, _WORD_MUL[0], out=h)
                continue
            t = w & tail_mask if i == nwords - 1 and partial else w.astype(np.uint64)
            t *= _WORD_MUL[i % len(_WORD_MUL)]
            if i == 0:
                h[:] = t
            else:
                h += t
        _mix(h)
    if inplace < n:  # the last rows: their words from a zero-padded copy
        rows = np.zeros((n - inplace, nwords * 8), dtype=np.uint8)
        rows[:, :width] = buf[inplace * width:].reshape(-1, width)
        words = rows.view("<u8")
        x = np.zeros(n - inplace, dtype=np.uint64)
        for i in range(nwords):
            x += words[:, i] * _WORD_MUL[i % len(_WORD_MUL)]
        out[inplace:] = _mix(x)
    return out


_QBITS = 24  # query index in the top 24 bits, 40 bits of docno hash below


def pair_keys(qcodes: np.ndarray, docno) -> np.ndarray:
    """uint64 keys of (query code, docno): the query in the high bits, so that sorting
    the keys keeps each query's rows together (cache-friendly lookups), and a 40-bit
    docno hash below. Equal pairs have equal keys; callers confirm matches exactly.
    """
    q = np.asarray(qcodes)
    if q.size and int(q.max()) >= (1 << _QBITS):
        return hash_pairs(q, docno)
    h = hash_bytes(docno) >> np.uint64(_QBITS)
    return (q.astype(np.uint64) << np.uint64(64 - _QBITS)) | h


def _field_view(arr: np.ndarray, lo: int, hi: int) -> list[np.ndarray]:
    """Integer views of bytes lo..hi of each string of a contiguous ``S`` array, as
    fields of 8, 4, 2 and 1 bytes (a structured view: no copy)."""
    names, formats, offsets = [], [], []
    pos = lo
    for size in (8, 4, 2, 1):
        while hi - pos >= size:
            names.append(f"f{pos}")
            formats.append(f"u{size}")
            offsets.append(pos)
            pos += size
    if not names:
        return []
    dt = np.dtype({"names": names, "formats": formats, "offsets": offsets,
                   "itemsize": arr.dtype.itemsize})
    view = np.ascontiguousarray(arr).view(dt)
    return [view[name] for name in names]


def take_bytes(arr: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """arr[idx] for a contiguous ``S`` array, copied as rows of bytes (several times
    faster than numpy's string gather)."""
    w = arr.dtype.itemsize
    if w == 0 or not arr.flags.c_contiguous:
        return arr[idx]
    rows = np.take(arr.view(np.uint8).reshape(arr.size, w), idx, axis=0)
    return rows.view(arr.dtype).reshape(rows.shape[0])


def same_bytes(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a == b for two ``S`` arrays of equal length (any widths), compared as integer
    words: several times faster than numpy's string comparison."""
    if a.dtype.itemsize > b.dtype.itemsize:
        a, b = b, a
    w = a.dtype.itemsize
    out = np.ones(a.size, dtype=bool)
    for x, y in zip(_field_view(a, 0, w), _field_view(b, 0, w)):
        out &= x == y
    for y in _field_view(b, w, b.dtype.itemsize):  # the wider array's extra bytes: NUL
        out &= y == 0
    return out


def duplicate_pairs(qcodes: np.ndarray, docno: np.ndarray) -> np.ndarray:
    """Indices of rows whose (query code, docno) pair occurred on an earlier row.

    Hash, sort the hashes, then confirm equal neighbours byte for byte; a hash collision
    between different pairs (rare) falls back to an exact sort.
    """
    if qcodes.size < 2:
        return np.empty(0, dtype=np.int64)
    # the row number packed below the hash's top bits: a plain sort orders equal
    # hashes by row, as a stable argsort would, in about half the time
    bits = np.uint64((qcodes.size - 1).bit_length())
    low = (np.uint64(1) << bits) - np.uint64(1)
    sh = hash_pairs(qcodes, docno)
    sh &= ~low
    sh |= np.arange(qcodes.size, dtype=np.uint64)
    sh.sort()
    order = (sh & low).view(np.int64)  # row numbers: below 2**63
    sh >>= bits
    cand = np.flatnonzero(sh[1:] == sh[:-1])
    if cand.size == 0:
        return np.empty(0, dtype=np.int64)
    a, b = order[cand], order[cand + 1]
    same = (qcodes[a] == qcodes[b]) & (docno[a] == docno[b])
    if same.all():
        return distinct(b)
    dc, nd = factorize(docno)
    key = qcodes.astype(np.int64) * max(nd, 1) + dc
    order = np.argsort(key, kind="stable")
    sk = key[order]
    return distinct(order[np.flatnonzero(sk[1:] == sk[:-1]) + 1])


def factorize_many(*arrays, repeated: bool = False) -> tuple[list[np.ndarray], int]:
    """Factorize several id arrays into one shared code space (strcmp order).

    repeated: most values occur many times (the documents of many runs): the distinct
    values are found by hashing and only they are sorted as strings."""
    parts = [as_bytes(a) for a in arrays]
    width = max([p.dtype.itemsize for p in parts] + [1])
    joined = np.concatenate([p.astype(f"S{width}") for p in parts]) if parts else np.empty(0, "S1")
    found = _factorize_by_hash(joined) if repeated else None
    codes, n = found if found is not None else factorize(joined)
    out, pos = [], 0
    for p in parts:
        out.append(codes[pos:pos + p.size])
        pos += p.size
    return out, n


def _factorize_by_hash(arr: np.ndarray) -> tuple[np.ndarray, int] | None:
    """factorize(arr) through a 64-bit hash of each value: one integer sort finds the
    distinct values, then only those are sorted as strings. None when two different
    values share a hash (checked byte for byte): factorize then."""
    if arr.size < 2:
        return None
    # the row number packed below the hash's top bits: a plain sort (twice as fast as
    # an argsort) gives both the order and the hashes; a shortened hash can only
    # cost a fall back
    bits = np.uint64((arr.size - 1).bit_length())
    low = (np.uint64(1) << bits) - np.uint64(1)
    key = hash_bytes(arr)
    key &= ~low
    key |= np.arange(arr.size, dtype=np.uint64)
    key.sort()
    order = (key & low).view(np.int64)  # row numbers: below 2**63
    key >>= bits
    new = np.empty(arr.size, dtype=bool)
    new[0] = True
    np.not_equal(key[1:], key[:-1], out=new[1:])
    del key
    distinct = take_bytes(arr, order[new])
    which = np.empty(arr.size, dtype=np.int64)
    which[order] = np.cumsum(new) - 1  # each row's distinct value
    if not same_bytes(take_bytes(distinct, which), arr).all():
        return None
    codes, n = factorize(distinct)
    return codes[which], n
