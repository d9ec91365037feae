"""Turn string ids into dense integer codes that keep C ``strcmp`` order.

Why: sorting and joining numpy byte strings is 10–20× slower than sorting integers.
A NUL-padded byte string cut into 8-byte big-endian words compares, word by word, exactly
like ``strcmp`` compares the string, so each 8-byte column becomes a uint64 sort key and
the columns are folded into one dense code with one integer sort per column.
"""

from __future__ import annotations

import numpy as np

__all__ = ["as_bytes", "factorize", "factorize_many"]


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
    padded = arr.astype(f"S{nwords * 8}") if width != nwords * 8 else arr
    mat = np.ascontiguousarray(padded).view(">u8").reshape(arr.size, nwords)
    return [mat[:, i].astype(np.uint64) for i in range(nwords)]


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

    Equal strings get equal codes; codes are dense in 0..n-1.
    """
    arr = as_bytes(values)
    if arr.size == 0:
        return np.empty(0, dtype=np.int64), 0
    words = _words(arr)
    codes, n = _dense(words[0])
    for w in words[1:]:
        wc, wn = _dense(w)
        codes, n = _dense(codes * wn + wc)
    return codes, n


def factorize_many(*arrays) -> tuple[list[np.ndarray], int]:
    """Factorize several id arrays into one shared code space (strcmp order)."""
    parts = [as_bytes(a) for a in arrays]
    width = max([p.dtype.itemsize for p in parts] + [1])
    joined = np.concatenate([p.astype(f"S{width}") for p in parts]) if parts else np.empty(0, "S1")
    codes, n = factorize(joined)
    out, pos = [], 0
    for p in parts:
        out.append(codes[pos:pos + p.size])
        pos += p.size
    return out, n
