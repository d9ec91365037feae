"""Precision–recall points of a ranking, for plotting (and the interpolated curve).

``precision_recall(qrels..., run..., rel_level=1)`` gives, per query, the (recall,
precision) point at every relevant retrieved document — the raw curve — and
``interpolated_curve`` the 11-point interpolated precision averaged over queries, which is
trec_eval's iprec_at_recall summary (same rounding of recall levels, same `compat`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.metrics.measures import parse_measures
from workbench.metrics.ranking import QrelsIndex, rank_run

__all__ = ["PRPoints", "precision_recall", "interpolated_curve"]


@dataclass(frozen=True)
class PRPoints:
    """Points of one query: recall and precision at each relevant retrieved document
    (rank order), and R, the number of relevant documents of the query."""

    qid: str
    rank: np.ndarray
    recall: np.ndarray
    precision: np.ndarray
    num_rel: int


def precision_recall(qrels_qid, qrels_docno, qrels_rel, run_qid, run_docno, run_score, *,
                     rel_level: int = 1, ties: str = "trec_eval",
                     max_depth: int | None = None) -> list[PRPoints]:
    """The (recall, precision) points of every query the run and the qrels share."""
    index = QrelsIndex(qrels_qid, qrels_docno, qrels_rel)
    rk = rank_run(index, run_qid, run_docno, run_score, ties=ties, max_depth=max_depth)
    R, _ = index.counts(rel_level)
    rel = rk.rel >= rel_level
    rows = np.flatnonzero(rel)
    g = rk.grp[rows]
    # relevant so far at each relevant row = its position among the query's relevant rows
    starts = np.flatnonzero(np.concatenate(([True], g[1:] != g[:-1]))) if g.size else g
    first = np.zeros(index.nq, dtype=np.int64)
    first[g[starts]] = starts
    crel = np.arange(g.size) - first[g] + 1
    out = []
    bounds = np.append(starts, g.size)
    by_query = {int(g[bounds[i]]): (bounds[i], bounds[i + 1]) for i in range(starts.size)}
    for q in np.flatnonzero(rk.present):
        lo, hi = by_query.get(int(q), (0, 0))
        ranks = rk.rank[rows[lo:hi]]
        c = crel[lo:hi].astype(np.float64)
        n_rel = int(R[q])
        out.append(PRPoints(
            qid=index.qids[q].decode("utf-8", "replace"),
            rank=ranks,
            recall=c / n_rel if n_rel else np.zeros(c.size),
            precision=c / ranks,
            num_rel=n_rel,
        ))
    return out


def interpolated_curve(qrels_qid, qrels_docno, qrels_rel, run_qid, run_docno, run_score, *,
                       rel_level: int = 1, compat: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """(levels 0.0…1.0, mean interpolated precision) — trec_eval's iprec_at_recall 'all'."""
    from workbench.metrics.evaluate import evaluate

    ms = parse_measures(["iprec_at_recall"])
    ev = evaluate(qrels_qid, qrels_docno, qrels_rel, run_qid, run_docno, run_score, ms,
                  rel_level=rel_level, compat=compat)
    return np.array([m.level for m in ms]), np.array([ev.summary[m] for m in ms])

