"""trec_eval's ``-J``: evaluate only the judged documents of a run.

form_res_rels.c, with ``judged_docs_only_flag``: after the run is sorted and cut to
``-M``, every retrieved document without a judgment (absent from the qrels, or a negative
grade) is thrown out and the others move up, keeping their order; num_ret becomes the
number kept. A query whose documents are all unjudged stays evaluated, with nothing
retrieved. The qrels (R, N, the ideal rankings) are unchanged.
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.ranking import Ranking

__all__ = ["judged_only"]


def judged_only(rk: Ranking) -> Ranking:
    """The ranking without its unjudged rows, re-ranked from 1 within each query."""
    keep = rk.rel >= 0
    if keep.all():
        return rk
    rows = np.flatnonzero(keep)
    # unjudged rows above a kept row, within its query: a running count over all rows,
    # less the count before the query's first row (rank - 1 rows up)
    c = np.cumsum(~keep)
    start = rows - (rk.rank[rows] - 1)
    above = c[rows] - (c[start] - ~keep[start])
    grp = rk.grp[rows]
    rank = (rk.rank[rows] - above).astype(rk.rank.dtype, copy=False)
    num_ret = np.bincount(grp, minlength=rk.nq).astype(rk.num_ret.dtype)
    return Ranking(nq=rk.nq, grp=grp, rank=rank, rel=rk.rel[rows], num_ret=num_ret,
                   present=rk.present)
