"""Two systems query by query (`workbench compare --pair A B --per-query`, ranx's
`compare` report for one pair): on the queries both were scored on, the per-query
differences A − B sorted (largest first), wins / ties / losses of A, the queries where
they differ most, the mean difference with its percentile bootstrap interval, and the
paired test of `compare` (`metrics.significance`).

`pair_report` takes the two systems' per-query scores (mappings query -> value); the
scores come from the stored systems (`pair_from_db`, scored by `campaign.scoring`) or
from run files (`pair_from_files`, by `metrics.evaluate`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.formats.output import json_number
from workbench.metrics import significance as sig

__all__ = ["PairReport", "TIE", "pair_from_db", "pair_from_files", "pair_report"]

TIE = 1e-12  # |A − B| at most this: a tie (float noise, not a difference)
TOP = 10  # the queries that differ most, shown


@dataclass(frozen=True)
class PairReport:
    a: str
    b: str
    measure: str
    queries: tuple[str, ...]  # sorted by difference A − B, largest first (ties by query)
    values_a: np.ndarray
    values_b: np.ndarray
    wins: int
    ties: int
    losses: int
    mean_diff: float
    low: float  # percentile bootstrap interval of the mean difference
    high: float
    confidence: float
    test: str
    p_value: float
    only_a: int = 0  # queries scored for one system only (left out)
    only_b: int = 0

    @property
    def diffs(self) -> np.ndarray:
        return self.values_a - self.values_b

    def most_different(self, n: int = TOP) -> list[int]:
        """Indexes (into `queries`) of the n largest |A − B|, largest first."""
        d = np.abs(self.diffs)
        order = sorted(range(d.size), key=lambda i: (-d[i], self.queries[i]))
        return [i for i in order[:n] if d[i] > TIE]

    def to_json(self) -> dict:
        """docs/json-outputs.md `compare --pair A B --per-query --format json`."""
        d = self.diffs
        return {
            "a": self.a, "b": self.b, "measure": self.measure,
            "queries": len(self.queries), "only_a": self.only_a, "only_b": self.only_b,
            "wins": self.wins, "ties": self.ties, "losses": self.losses,
            "mean_a": json_number(float(self.values_a.mean()) if d.size else math.nan),
            "mean_b": json_number(float(self.values_b.mean()) if d.size else math.nan),
            "mean_diff": json_number(self.mean_diff),
            "ci": {"confidence": self.confidence, "low": json_number(self.low),
                   "high": json_number(self.high)},
            "test": self.test, "p_value": json_number(self.p_value),
            "per_query": [{"query": q, "a": float(va), "b": float(vb), "diff": float(x)}
                          for q, va, vb, x in zip(self.queries, self.values_a.tolist(),
                                                  self.values_b.tolist(), d.tolist())],
            "most_different": [self.queries[i] for i in self.most_different()],
        }


def pair_report(a: str, b: str, measure: str, scores_a: Mapping[str, float],
                scores_b: Mapping[str, float], *, test: str = "t", seed: int = 0,
                n_resamples: int | None = None, confidence: float = 0.95) -> PairReport:
    """The report on the queries both have. A win: A − B > TIE; a loss: < −TIE."""
    if test not in sig.TESTS:
        raise ValueError(f"unknown test {test!r}; choose from {', '.join(sig.TESTS)}")
    common = [q for q in scores_a if q in scores_b]
    va = np.array([scores_a[q] for q in common], dtype=np.float64)
    vb = np.array([scores_b[q] for q in common], dtype=np.float64)
    d = va - vb
    order = sorted(range(d.size), key=lambda i: (-d[i], common[i]))
    va, vb, d = va[order], vb[order], d[order]
    queries = tuple(common[i] for i in order)
    nan = math.nan
    mean, low, high, p = nan, nan, nan, nan
    if d.size:
        mean = float(d.mean())
        resamples = n_resamples or sig.DEFAULT_RESAMPLES
        _, low, high = sig.bootstrap_ci(va, vb, confidence, resamples, seed)
        p = sig.run_test(test, va, vb, seed=seed, n=n_resamples).p_value
    return PairReport(
        a, b, measure, queries, va, vb,
        wins=int(np.count_nonzero(d > TIE)), ties=int(np.count_nonzero(np.abs(d) <= TIE)),
        losses=int(np.count_nonzero(d < -TIE)), mean_diff=mean, low=float(low),
        high=float(high), confidence=confidence, test=test, p_value=float(p),
        only_a=sum(1 for q in scores_a if q not in scores_b),
        only_b=sum(1 for q in scores_b if q not in scores_a),
    )


def _one_measure(measure: str):
    from workbench.campaign.comparison.systems import measure_label  # one measure, or a usage error

    measure_label(measure)


def pair_from_files(qrels_path: str, run_paths: Sequence[str], a: str, b: str, measure: str,
                    *, rel_level: int = 1, **kw) -> PairReport:
    """A and B are run tags (or paths) of `run_paths`, scored against the qrels file."""
    from workbench.errors import NotFoundError
    from workbench.formats.trec import read_qrels, read_run
    from workbench.metrics.evaluate import RunArrays, evaluate_many
    from workbench.metrics.measures import parse_measure

    _one_measure(measure)
    runs = {}
    for path in run_paths:
        run = read_run(path)
        runs.setdefault(run.tag or str(path), run)
        runs.setdefault(str(path), run)
    for name in (a, b):
        if name not in runs:
            raise NotFoundError(f"no run file with tag or path {name!r}")
    m = parse_measure(measure)
    q = read_qrels(qrels_path)
    ev_a, ev_b = evaluate_many(q.qid, q.docno, q.rel,
                               [RunArrays(runs[n].qid, runs[n].docno, runs[n].score, n)
                                for n in (a, b)], [m], rel_level=rel_level)
    return pair_report(a, b, measure, dict(zip(ev_a.qids, ev_a.per_query[m].tolist())),
                       dict(zip(ev_b.qids, ev_b.per_query[m].tolist())), **kw)


def pair_from_db(db, a: str, b: str, measure: str, source=None, **kw) -> PairReport:
    """A and B are stored systems, scored under `source` (default: the people's majority)."""
    from workbench.campaign.comparison.systems import source_scores
    from workbench.campaign.scoring.scores import score_campaign
    from workbench.errors import NotFoundError

    _one_measure(measure)
    table = score_campaign(db, [measure], source)
    scores, queries = source_scores(table, measure), list(table.queries)
    per = {}
    for name in (a, b):
        if name not in scores.systems:
            raise NotFoundError(f"no stored system {name!r}")
        i = scores.systems.index(name)
        per[name] = {q: float(v) for q, v, ok in zip(queries, scores.values[i], scores.present[i])
                     if ok}
    return pair_report(a, b, measure, per[a], per[b], **kw)
