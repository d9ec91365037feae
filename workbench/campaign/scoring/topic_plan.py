"""Topic set size design on the stored campaign (`workbench plan topics`, the planning
screen): the number of topics a paired t-test needs to detect a difference, or the smallest
difference a number of topics detects, with sigma given or estimated from the stored runs.

Sakai ("Topic set size design", Information Retrieval Journal 19, 2016) estimates the
variance of a per-topic difference between two systems as sigma^2 = 2 V_E, V_E the residual
variance of the two-way ANOVA without replication over systems x topics; here over the
systems scored on every topic judged under the source, on the topics every such system was
scored on (a complete matrix). The arithmetic is metrics/topic_set.py's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.defaults import PLANNING_MEASURE
from workbench.errors import UsageError
from workbench.metrics.topic_set import (TopicPlan, min_detectable, residual_variance,
                                         topics_exact, topics_needed)

__all__ = ["StoredSigma", "stored_sigma", "plan_topics"]


@dataclass(frozen=True)
class StoredSigma:
    sigma: float
    systems: int
    topics: int
    source: str
    measure: str


def stored_sigma(db, measure: str, source=None) -> StoredSigma:
    """sigma = sqrt(2 V_E) of `measure` over the stored runs scored against `source`."""
    from workbench.campaign.scoring.scores import ScoreTracker

    table = ScoreTracker(db, [measure], source).load()
    if len(table.measures) != 1:
        raise UsageError(f"-m {measure}: plan one measure at a time "
                         f"({len(table.measures)} measures in that name)")
    m = table.measures[0]
    rows = table.scored()
    present = table.present[rows]
    cols = present.all(axis=0) if present.size else np.zeros(0, dtype=bool)
    matrix = table.values[m][rows][:, cols]
    n_sys, n_top = matrix.shape if matrix.ndim == 2 else (0, 0)
    if n_sys < 2 or n_top < 2:
        raise UsageError(
            f"estimating sigma needs at least 2 systems scored on at least 2 common topics "
            f"against {table.source} ({n_sys} systems, {n_top} topics); give --sigma instead")
    sigma = math.sqrt(2.0 * residual_variance(matrix))
    if sigma == 0.0:
        raise UsageError(f"every system differs by the same amount on every topic against "
                         f"{table.source}: sigma is 0; give --sigma instead")
    return StoredSigma(sigma, n_sys, n_top, table.source, table.labels[0])


def plan_topics(sigma: float, *, min_diff: float | None = None, topics: int | None = None,
                alpha: float = 0.05, power: float = 0.8) -> tuple[TopicPlan, float]:
    """(plan, exact): with `min_diff`, the topics needed (exact: the unrounded n); with
    `topics`, the smallest detectable difference (exact: that difference over sigma)."""
    if not sigma > 0 or math.isinf(sigma):
        raise UsageError(f"--sigma must be a positive number, not {sigma}")
    if (min_diff is None) == (topics is None):
        raise UsageError("give one of --min-diff D or --topics N")
    try:
        if min_diff is not None:
            if not min_diff > 0:
                raise UsageError(f"--min-diff must be a positive number, not {min_diff}")
            effect = min_diff / sigma
            n = topics_needed(effect, alpha, power)
            return TopicPlan(n, sigma, min_diff, alpha, power), topics_exact(effect, alpha, power)
        if topics < 2:
            raise UsageError("--topics must be at least 2 (a paired t-test needs 2 topics)")
        effect = min_detectable(topics, alpha, power)
        return TopicPlan(topics, sigma, effect * sigma, alpha, power), effect
    except ValueError as exc:
        raise UsageError(str(exc)) from None


@dataclass(frozen=True)
class TopicsSummary:
    """The planning screen's line: sigma from the stored runs (None: `reason` says why),
    the topics needed for `min_diff`, and the smallest difference the judged topics detect."""

    measure: str
    min_diff: float
    source: str = ""
    estimate: StoredSigma | None = None
    needed: TopicPlan | None = None
    detectable: TopicPlan | None = None
    reason: str = ""


def topics_summary(db, *, measure: str = PLANNING_MEASURE, min_diff: float = 0.05,
                   alpha: float = 0.05, power: float = 0.8) -> TopicsSummary:
    """`plan topics --from-source majority` for the planning screen, both ways."""
    from workbench.campaign.scoring.sources import MAJORITY

    try:
        est = stored_sigma(db, measure, MAJORITY)
    except UsageError as exc:
        return TopicsSummary(measure, min_diff, MAJORITY.label, reason=str(exc))
    needed, _ = plan_topics(est.sigma, min_diff=min_diff, alpha=alpha, power=power)
    detectable, _ = plan_topics(est.sigma, topics=est.topics, alpha=alpha, power=power)
    return TopicsSummary(est.measure, min_diff, est.source, est, needed, detectable)
