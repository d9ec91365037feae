"""Reusability: would the collection be fair to a run that did not help build the pool?

Zobel's leave-one-out test ("How reliable are the results of large-scale information
retrieval experiments?", SIGIR 1998; also Voorhees 2000 and Buckley et al. 2007). The
pool is the union of every run's top `depth` (trec_eval's order). For each run, or each
group of runs (runs whose tags share the part before a separator: one site's runs), the
documents only that group contributed to the pool are taken out of the qrels; the group's
runs are scored on what is left (the removed documents count as unjudged) and placed
among the other runs' full scores.

Per run: score_full and rank_full (its place among all runs by score_full), score_loo and
rank_loo (the place score_loo takes among the other runs' score_full), unique_relevant
(the relevant documents only its group contributed). Overall: Kendall's tau-b of the
score_full and score_loo vectors, and the largest drop rank_loo - rank_full.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.defaults import PLANNING_MEASURE, REUSABILITY_FILES_DEPTH
from workbench.formats.output import json_number
from workbench.planning.collection import Collection
from workbench.planning.scoring import RunScorer, place_among, places


@dataclass(frozen=True)
class LeaveOneOut:
    run: str
    group: str
    score_full: float
    score_loo: float
    rank_full: int
    rank_loo: int
    unique_relevant: int

    @property
    def drop(self) -> int:
        return self.rank_loo - self.rank_full


@dataclass(frozen=True)
class Reusability:
    measure: str
    depth: int
    runs: tuple[LeaveOneOut, ...]
    kendall_tau_b: float
    max_drop: int

    def to_json(self) -> dict:
        num = json_number
        return {
            "measure": self.measure,
            "depth": self.depth,
            "runs": [
                {"run": r.run, "score_full": num(r.score_full), "score_loo": num(r.score_loo),
                 "rank_full": r.rank_full, "rank_loo": r.rank_loo, "unique_relevant": r.unique_relevant}
                for r in self.runs
            ],
            "kendall_tau_b": num(self.kendall_tau_b),
            "max_drop": self.max_drop,
        }


def group_of(name: str, separator: str | None) -> str:
    """A run's group: its name up to the separator (the whole name without one)."""
    if not separator or separator not in name:
        return name
    return name.split(separator, 1)[0]


def reusability(c: Collection, *, depth: int = REUSABILITY_FILES_DEPTH, measure: str = PLANNING_MEASURE, rel_level: int = 1,
                groups: str | None = None) -> Reusability:
    """Zobel's leave-one-out test on the collection (see the module docstring)."""
    from workbench.metrics.correlation import MEAN_TIE_TOL, kendall_tau

    scorer = RunScorer(c, measure, rel_level=rel_level)
    all_rows = np.ones(c.qrels_grade.size, dtype=bool)
    full = scorer.means(all_rows)
    rank_full = places(full)
    group = [group_of(name, groups) for name in c.run_names]
    names = sorted(set(group))
    group_code = np.array([names.index(g) for g in group], dtype=np.int64)
    # the depth pool: which groups contributed each (query, doc) pair
    top = c.row_rank <= depth
    key = c.pair_keys(c.row_query[top], c.row_doc[top])
    row_group = group_code[c.row_run[top]]
    order = np.lexsort((row_group, key))
    key, row_group = key[order], row_group[order]
    first = np.ones(key.size, dtype=bool)
    first[1:] = (key[1:] != key[:-1]) | (row_group[1:] != row_group[:-1])
    key, row_group = key[first], row_group[first]  # one row per (pair, group)
    counts = np.unique(key, return_counts=True)
    sole = np.isin(key, counts[0][counts[1] == 1])  # pairs one group alone contributed
    qrels_key = c.pair_keys(c.qrels_query, c.qrels_doc)
    relevant = c.qrels_grade >= rel_level
    loo = np.empty(c.n_runs)
    unique_rel = np.zeros(c.n_runs, dtype=np.int64)
    for g in range(len(names)):
        members = np.flatnonzero(group_code == g)
        removed = np.isin(qrels_key, key[sole & (row_group == g)])
        loo[members] = scorer.means(~removed, members.tolist())
        unique_rel[members] = int((removed & relevant).sum())
    rows = []
    for i, name in enumerate(c.run_names):
        others = np.delete(full, i)
        rows.append(LeaveOneOut(name, group[i], float(full[i]), float(loo[i]), int(rank_full[i]),
                                place_among(float(loo[i]), others), int(unique_rel[i])))
    return Reusability(
        measure=scorer.label, depth=depth, runs=tuple(rows),
        kendall_tau_b=kendall_tau(full, loo, "b", tie_tol=MEAN_TIE_TOL),
        max_drop=max((r.drop for r in rows), default=0),
    )
