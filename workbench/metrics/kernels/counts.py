"""Counting families: runid, num_q, num_ret, num_rel, num_rel_ret,
num_nonrel_judged_ret, and relstring (the grades of the first n retrieved documents as
text). One signature: ``kernel(ctx, measure)`` -> one value per qrels query.

relstring (m_relstring.c): one character per document: the grade when it is 0..9, ``>``
above 9, ``-`` for a document absent from the qrels, ``.`` for one in the pool but
unjudged (a negative grade), ``<`` for anything else; printed for each query only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from workbench.metrics.kernels.context import Context
from workbench.metrics.qrels_index import NONPOOL, UNJUDGED
from workbench.metrics.ranking import Ranking
from workbench.metrics.segments import per_query_sum

if TYPE_CHECKING:  # measures imports the registry, which imports these kernels
    from workbench.metrics.measures import Measure

RELSTRING_LENGTH = 10  # trec_eval's default


def runid(ctx: Context, m: Measure) -> np.ndarray:
    """runid = the run's tag: not a number (the printers print the tag); 0 per query.

    trec_eval's first output line: Buckley & Voorhees (2005), TREC book ch. 3."""
    return np.zeros(ctx.nq)


def num_q(ctx: Context, m: Measure) -> np.ndarray:
    """num_q = 1 per evaluated query; the 'all' value counts the queries.

    trec_eval's report: Buckley & Voorhees (2005), TREC book ch. 3."""
    return np.ones(ctx.nq)


def num_ret(ctx: Context, m: Measure) -> np.ndarray:
    """num_ret = |retrieved|: the documents the run ranks for the query (after -M).

    trec_eval's report: Buckley & Voorhees (2005), TREC book ch. 3."""
    return ctx.rk.num_ret.astype(np.float64)


def num_rel(ctx: Context, m: Measure) -> np.ndarray:
    """num_rel = R = |{judged d : rel(d) >= l}|, retrieved or not.

    trec_eval's report: Buckley & Voorhees (2005), TREC book ch. 3."""
    return ctx.Rf


def num_rel_ret(ctx: Context, m: Measure) -> np.ndarray:
    """num_rel_ret = |relevant ∩ retrieved|.

    trec_eval's report: Buckley & Voorhees (2005), TREC book ch. 3."""
    return ctx.num_rel_ret()


def _num_nonrel_judged_ret(rk: Ranking, level: int) -> np.ndarray:
    """Judged non-relevant documents retrieved: 0 <= grade < level
    (m_num_nonrel_judged_ret.c; summed, not averaged, over queries)."""
    return per_query_sum(rk.grp, 1.0, rk.nq, (rk.rel >= 0) & (rk.rel < level))


def num_nonrel_judged_ret(ctx: Context, m: Measure) -> np.ndarray:
    """num_nonrel_judged_ret = |{retrieved d : 0 <= grade(d) < l}| (summed over queries).

    Buckley & Voorhees (2005), TREC book ch. 3; trec_eval m_num_nonrel_judged_ret.c."""
    return _num_nonrel_judged_ret(ctx.rk, ctx.level)


def relstring_text(rk: Ranking, length: int = RELSTRING_LENGTH) -> list[str]:
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


def relstring(ctx: Context, m: Measure) -> np.ndarray:
    """relstring = the grades of the first n (10) retrieved documents as text: digits,
    ``>`` above 9, ``-`` not in the qrels, ``.`` unjudged; a ``str`` per query.

    Buckley & Voorhees (2005), TREC book ch. 3; trec_eval m_relstring.c."""
    length = int(m.params[0]) if m.params else RELSTRING_LENGTH
    out = np.empty(ctx.nq, dtype=object)
    out[:] = relstring_text(ctx.rk, length)
    return out
