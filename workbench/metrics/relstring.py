"""trec_eval's ``relstring``: the grades of a query's first n retrieved documents as text.

m_relstring.c: one character per document: the grade when it is 0..9, ``>`` above 9,
``-`` for a document absent from the qrels, ``.`` for one in the pool but unjudged (a
negative grade), ``<`` for anything else. Printed for each query only (no 'all' line),
between single quotes; a query the run lacks (``-c``) gets the empty string.
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.qrels_index import NONPOOL, UNJUDGED
from workbench.metrics.ranking import Ranking

__all__ = ["RELSTRING_LENGTH", "relstring"]

RELSTRING_LENGTH = 10  # trec_eval's default


def relstring(rk: Ranking, length: int = RELSTRING_LENGTH) -> list[str]:
    """One string per qrels query: the codes of its first `length` retrieved documents."""
    rel = rk.rel.astype(np.int64)
    codes = np.full(rel.size, ord("<"), dtype=np.uint8)
    digit = (rel >= 0) & (rel <= 9)
    codes[digit] = ord("0") + rel[digit]
    codes[rel > 9] = ord(">")
    codes[rel == NONPOOL] = ord("-")
    codes[rel == UNJUDGED] = ord(".")
    top = rk.rank <= max(int(length), 0)
    grp, codes = rk.grp[top], codes[top]
    out = [""] * rk.nq
    if grp.size:
        bounds = np.flatnonzero(np.diff(grp)) + 1
        for part_q, part in zip(np.split(grp, bounds), np.split(codes, bounds)):
            out[int(part_q[0])] = part.tobytes().decode("ascii")
    return out
