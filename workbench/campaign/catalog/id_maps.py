"""External ids of an imported file mapped to the campaign's database ids, as arrays.

A 100-run import looks up 5 M document ids: a dict lookup per distinct id of every file
cost 1.5 s, np.unique's string sort of a 1 M-line run 1.5 s, decoding every id for its
check 1.7 s. Here ids stay UTF-8 `S` arrays: distinct ids come from metrics.encode.factorize
(integer sorts of 8-byte words), ids already met in this import are found by their sorted
64-bit hashes (metrics.encode.hash_bytes) confirmed byte for byte, and only the others are
decoded and looked up in the database (store.ext_ids.known_ids: the ids a file names, not
every id of the campaign, which cost a one-run `import run` process 0.3 s at 500 000
documents), the unknown ones becoming stub rows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.metrics.encode import as_bytes, factorize, hash_bytes, same_bytes, take_bytes
from workbench.names import MAX_LENGTH
from workbench.store.ext_ids import create_stubs, known_ids


@dataclass(frozen=True)
class Column:
    """A file's id column as its distinct ids (an `S` array, UTF-8, in byte order) and,
    per row, the index of its id among them."""

    distinct: np.ndarray
    codes: np.ndarray  # int64, one per row


def column(values) -> Column:
    values = as_bytes(values)
    codes, n = factorize(values)
    one_of_each = np.empty(n, dtype=np.int64)
    one_of_each[codes] = np.arange(codes.size)
    return Column(take_bytes(values, one_of_each), codes)


def plainly_valid(values) -> bool:
    """True when every id is plainly valid (workbench.names): printable ASCII, not empty,
    no leading '#', not longer than the column; one pass over the bytes. An id that is
    not gets the exact check (workbench.names.first_invalid_id), which names the reason."""
    arr = np.asarray(values)
    if arr.dtype.kind != "S" or arr.dtype.itemsize > MAX_LENGTH:
        return False
    if arr.size == 0:
        return True
    raw = np.ascontiguousarray(arr).view(np.uint8).reshape(arr.size, arr.dtype.itemsize)
    first = raw[:, 0]
    if ((first == 0) | (first == ord("#"))).any():
        return False
    pad = raw == 0  # the padding after each id (a NUL inside one is refused)
    outside = (raw < 0x21) | (raw > 0x7E)
    return not (outside & ~pad).any() and not (pad[:, :-1] & ~pad[:, 1:]).any()


class IdMaps:
    """Query and document ids of one import transaction: per kind, the ids met so far as
    their hashes sorted, the names and their database ids aligned. Ids not met yet are
    looked up in the database; unknown ones get stub rows; both join the arrays."""

    def __init__(self, session) -> None:
        self.session = session
        empty = (np.empty(0, dtype="S1"), np.empty(0, dtype=np.int64))
        self.maps = {kind: _by_hash(*empty) for kind in ("query", "document")}

    def ids(self, kind: str, values: np.ndarray) -> tuple[np.ndarray, int]:
        """The database id of each row's external id (an `S` array), and how many stubs
        were created for them. Rows are looked up as they are (a run's documents are
        nearly all distinct: finding the distinct ones first cost more than it saved)."""
        hashes, names, ids = self.maps[kind]
        out = _lookup(hashes, names, ids, values)
        unseen = np.flatnonzero(out < 0)
        if unseen.size == 0:
            return out, 0
        new = column(take_bytes(values, unseen))  # distinct, in byte order = key order
        new_ids = known_ids(self.session, kind, new.distinct)
        missing = np.flatnonzero(new_ids < 0)
        if missing.size:
            new_ids[missing] = create_stubs(self.session, kind, take_bytes(new.distinct, missing))
        out[unseen] = new_ids[new.codes]
        self.maps[kind] = _merged(self.maps[kind], _by_hash(new.distinct, new_ids))
        return out, int(missing.size)


def _by_hash(names: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    hashes = hash_bytes(names)
    order = np.argsort(hashes)
    return hashes[order], take_bytes(names, order), ids[order]


def _merged(a, b):
    """Two (hashes, names, ids) sorted by hash, merged (no sort of the whole again)."""
    at = np.searchsorted(a[0], b[0])
    width = max(a[1].dtype.itemsize, b[1].dtype.itemsize)
    return (np.insert(a[0], at, b[0]), np.insert(a[1].astype(f"S{width}", copy=False), at, b[1]),
            np.insert(a[2], at, b[2]))


def _lookup(hashes: np.ndarray, names: np.ndarray, ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The database id of each wanted name, -1 when unknown: by hash, confirmed byte for
    byte (two names with one hash, never seen in practice, are resolved exactly)."""
    out = np.full(wanted.size, -1, dtype=np.int64)
    if hashes.size == 0 or wanted.size == 0:
        return out
    h = hash_bytes(wanted)
    by_hash = np.argsort(h)  # sorted needles: searchsorted walks the table in order
    pos = np.empty(h.size, dtype=np.int64)
    pos[by_hash] = np.minimum(np.searchsorted(hashes, h[by_hash]), hashes.size - 1)
    same_hash = hashes[pos] == h
    found = same_hash & same_bytes(take_bytes(names, pos), wanted)
    out[found] = ids[pos[found]]
    for i in np.flatnonzero(same_hash & ~found).tolist():  # a collision: every name of that hash
        lo, hi = np.searchsorted(hashes, h[i], "left"), np.searchsorted(hashes, h[i], "right")
        for j in range(lo, hi):
            if names[j] == wanted[i]:
                out[i] = ids[j]
    return out


__all__ = ["Column", "IdMaps", "column", "plainly_valid"]
