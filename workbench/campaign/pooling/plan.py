"""The campaign's pool plan: which method builds the pool (depth, mtf, bandit), how deep
the runs are read, the judging budget and the seed; and how a budget is spread over the
queries (the simulation's rule, planning.budget.shares, so that a plan simulated with
`workbench simulate` is the plan `workbench pool` carries out)."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.errors import UsageError
from workbench.planning.budget import shares
from workbench.planning.methods import METHODS
from workbench.store.pool_plans import read_pool_plan

ADAPTIVE = ("mtf", "bandit")


@dataclass(frozen=True)
class PoolPlan:
    method: str = "depth"
    depth: int | None = None  # None: the whole runs
    budget: int | None = None  # pooled documents over all queries; None: no cap
    seed: int = 0
    overlap: float | None = None  # None: every assessor judges every document
    repeat: float = 0.0

    @property
    def adaptive(self) -> bool:
        return self.method in ADAPTIVE


def check_plan(plan: PoolPlan) -> PoolPlan:
    if plan.method not in METHODS:
        raise UsageError(f"unknown pooling method {plan.method!r}; choose from {', '.join(METHODS)}")
    if plan.depth is not None and plan.depth < 1:
        raise UsageError(f"pool depth must be at least 1, got {plan.depth}")
    if plan.budget is not None and plan.budget < 1:
        raise UsageError(f"the budget must be at least 1 judgment, got {plan.budget}")
    if plan.overlap is not None and not 0.0 <= plan.overlap <= 1.0:
        raise UsageError(f"overlap must be between 0 and 1, got {plan.overlap}")
    if not 0.0 <= plan.repeat <= 1.0:
        raise UsageError(f"repeat must be between 0 and 1, got {plan.repeat}")
    return plan


def plan_in(session) -> PoolPlan | None:
    """The stored plan (None before any `pool --method`), in `session`."""
    row = read_pool_plan(session)
    if row is None:
        return None
    return PoolPlan(str(row["method"]), row["depth"], row["budget"], int(row["seed"] or 0),
                    row["overlap"], float(row["repeat"] or 0.0))


def budget_caps(budget: int | None, queries: list[str]) -> dict[str, int | None]:
    """Each query's share of a total budget (None: no cap): equal shares, the remainder one
    each to the first queries in byte order of their ids, as the simulation spreads it."""
    ordered = sorted(queries, key=lambda q: q.encode("utf-8"))
    if budget is None:
        return dict.fromkeys(ordered)
    return dict(zip(ordered, shares(budget, len(ordered)).tolist()))
