"""Scoring the runs of a Collection on a subset of its qrels (trec_eval's semantics)."""

from __future__ import annotations

import numpy as np

from workbench.planning.collection import Collection


def places(scores: np.ndarray) -> np.ndarray:
    """Each run's 1-based place by score, best first: 1 + the runs scoring strictly more
    (tied runs share a place)."""
    s = np.asarray(scores, dtype=np.float64)
    ordered = np.sort(s)
    return (s.size - np.searchsorted(ordered, s, side="right") + 1).astype(np.int64)


def place_among(score: float, others: np.ndarray) -> int:
    """The 1-based place `score` would take among `others`: 1 + those strictly above it."""
    return int(1 + np.count_nonzero(np.asarray(others) > score))


class RunScorer:
    """Each run's mean of one measure against qrels rows selected by a mask.

    The runs are already in trec_eval's order (Collection), so they are evaluated with
    ties="input"; each run is ranked once and joined with the full qrels by the
    Collection's codes (metrics.evaluate.SubsetEvaluator), a mask only regrades its rows."""

    def __init__(self, c: Collection, measure: str, *, rel_level: int = 1) -> None:
        from workbench.errors import UsageError
        from workbench.metrics.evaluate import RunArrays, SubsetEvaluator
        from workbench.metrics.measures import parse_measures

        parsed = parse_measures([measure])
        if len(parsed) != 1:
            raise UsageError(f"give one measure; {measure!r} names {len(parsed)}")
        if parsed[0].is_text or parsed[0].aggregation == "runid":
            raise UsageError(f"{measure}: not a score (text per query); give a measure with values")
        self.measure = parsed[0]
        self.label = self.measure.label or str(self.measure)
        self.c = c
        self.rel_level = rel_level
        bounds = np.searchsorted(c.row_run, np.arange(c.n_runs + 1))
        runs = [
            RunArrays(c.query_names[c.row_query[a:b]], c.doc_names[c.row_doc[a:b]], c.row_score[a:b], name)
            for name, a, b in zip(c.run_names, bounds[:-1].tolist(), bounds[1:].tolist())
        ]
        self.evaluator = SubsetEvaluator(
            c.query_names[c.qrels_query], c.doc_names[c.qrels_doc], c.qrels_grade, runs,
            [self.measure], rel_level=rel_level, ties="input", check_duplicates=False,
            qrels_rows=[c.row_qrels[a:b] for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist())],
        )

    def means(self, qrels_rows: np.ndarray, runs: list[int] | None = None) -> np.ndarray:
        """The measure's mean for each run (or for `runs` only) on the qrels rows where
        the boolean mask `qrels_rows` is true; a run scored on no query gets 0."""
        evs = self.evaluator.evaluate(qrels_rows, runs)
        return np.array([ev.summary[self.measure] for ev in evs], dtype=np.float64)
