"""Simulation before spending: replay judging with the full qrels as the oracle.

For each total budget, every query gets an equal share (the first queries in byte order
take the remainder: budget.shares, the rule the stored campaign's pool uses too), a method
picks that many documents per query (methods.py), and the runs are scored on the qrels
restricted to what was judged. A chosen document that the full qrels do not grade costs
its judgment and stays unjudged. Reported per budget: the judgments made, the relevant
documents found, and how close the ranking of the runs (by the mean of the measure) is to
the ranking under the full qrels: Kendall's tau-b of the two score vectors and the largest
change of one run's place.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.defaults import PLANNING_MEASURE
from workbench.formats.output import json_number
from workbench.planning.budget import shares
from workbench.planning.collection import Collection
from workbench.planning.methods import judging_order
from workbench.planning.scoring import RunScorer, places


@dataclass(frozen=True)
class SimulationPoint:
    budget: int
    judged: int
    relevant_found: int
    kendall_tau_b: float
    max_rank_change: int


@dataclass(frozen=True)
class Simulation:
    method: str
    measure: str
    points: tuple[SimulationPoint, ...]

    def to_json(self) -> dict:
        num = json_number
        return {
            "method": self.method,
            "measure": self.measure,
            "points": [
                {"budget": p.budget, "judged": p.judged, "relevant_found": p.relevant_found,
                 "kendall_tau_b": num(p.kendall_tau_b), "max_rank_change": p.max_rank_change}
                for p in self.points
            ],
        }


def query_lists(c: Collection, *, rel_level: int = 1, depth: int | None = None
                ) -> list[tuple[list[np.ndarray], set[int]]]:
    """What every method reads, per query: each run's list of document codes (its top
    `depth` only, if given) and the set of relevant documents among them."""
    rows_of = c.query_rows()
    grade = c.row_grade
    out = []
    for rows in rows_of:
        if depth is not None:
            rows = rows[c.row_rank[rows] <= depth]
        bounds = np.searchsorted(c.row_run[rows], np.arange(c.n_runs + 1)).tolist()
        docs = c.row_doc[rows]
        lists = [docs[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        out.append((lists, set(docs[grade[rows] >= rel_level].tolist())))
    return out


def judging_orders(c: Collection, method: str, per_query: np.ndarray, *, rel_level: int = 1,
                   depth: int | None = None, seed: int = 0,
                   lists: list[tuple[list[np.ndarray], set[int]]] | None = None) -> list[np.ndarray]:
    """Each query's judging order (document codes), up to its budget in `per_query`;
    lists: query_lists(c, rel_level=rel_level, depth=depth) when the caller has them."""
    if lists is None:
        lists = query_lists(c, rel_level=rel_level, depth=depth)
    out = []
    for q, (runs, relevant_docs) in enumerate(lists):
        order = judging_order(method, runs, relevant_docs.__contains__, int(per_query[q]),
                              seed=seed * 1_000_003 + q)
        out.append(np.asarray(order, dtype=np.int64))
    return out


def simulate(c: Collection, methods: list[str] | str, budgets: list[int], *, measure: str = PLANNING_MEASURE,
             rel_level: int = 1, depth: int | None = None, seed: int = 0) -> list[Simulation]:
    """The simulation of each method at each total budget (see the module docstring); the
    runs and their scores under the full qrels are shared by the methods."""
    from workbench.metrics.correlation import MEAN_TIE_TOL, kendall_tau

    methods = [methods] if isinstance(methods, str) else list(methods)
    budgets = sorted(set(int(b) for b in budgets))
    scorer = RunScorer(c, measure, rel_level=rel_level)
    full = scorer.means(np.ones(c.qrels_grade.size, dtype=bool))
    full_place = places(full)
    top = shares(max(budgets, default=0), c.n_queries)
    qrels_keys = c.pair_keys(c.qrels_query, c.qrels_doc)
    lists = query_lists(c, rel_level=rel_level, depth=depth)
    out = []
    for method in methods:
        orders = judging_orders(c, method, top, seed=seed, lists=lists)
        points = []
        for budget in budgets:
            take = shares(budget, c.n_queries)
            chosen = [o[:t] for t, o in zip(take, orders)]
            q = np.repeat(np.arange(c.n_queries, dtype=np.int64), [x.size for x in chosen])
            d = np.concatenate(chosen + [np.empty(0, dtype=np.int64)])
            keep = np.isin(qrels_keys, c.pair_keys(q, d))
            means = scorer.means(keep)
            points.append(SimulationPoint(
                budget=budget,
                judged=int(d.size),
                relevant_found=int((c.grades_of(q, d) >= rel_level).sum()),
                kendall_tau_b=kendall_tau(full, means, "b", tie_tol=MEAN_TIE_TOL),
                max_rank_change=int(np.abs(places(means) - full_place).max(initial=0)),
            ))
        out.append(Simulation(method, scorer.label, tuple(points)))
    return out
