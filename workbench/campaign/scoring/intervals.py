"""Confidence intervals of each stored system's mean score (`score --ci`, the scoreboard's
CI column): Student's t or the seeded percentile bootstrap over topics (metrics/mean_ci.py),
with the warnings a reader needs.

An interval is None (null in JSON), with a warning, where it carries no information: a
measure whose `all` value is not a mean of per-topic values (counts are summed, gm_map is a
geometric mean), a system scored on fewer than 2 topics, or one whose topics all give the same
value (an interval of zero width by construction). An interval from fewer than
SMALL_TOPICS topics is kept and warned about.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from workbench.campaign.scoring.scores import ScoreTable
from workbench.errors import UsageError
from workbench.formats.numbers import number
from workbench.metrics.mean_ci import DEFAULT_RESAMPLES, bootstrap_intervals, t_intervals
from workbench.metrics.measures import Measure

__all__ = ["CI_METHODS", "SMALL_TOPICS", "ScoreIntervals", "score_intervals"]

CI_METHODS = ("t", "bootstrap", "ppi")
SMALL_TOPICS = 5
CONFIDENCE = 0.95


@dataclass(frozen=True)
class ScoreIntervals:
    """`bounds[m][i]`: system i's (low, high) for measure m, or None; `method` names it."""

    method: str
    confidence: float
    bounds: dict[Measure, list[tuple[float, float] | None]]
    warnings: list[str] = field(default_factory=list)
    # the estimates the intervals are around where they are not the table's means (ppi)
    estimates: dict[Measure, object] | None = None

    def of(self, m: Measure, i: int) -> tuple[float, float] | None:
        return self.bounds[m][i]


def is_mean_measure(m: Measure) -> bool:
    return m.aggregation == "mean" and not m.is_count


def score_intervals(table: ScoreTable, method: str = "t", *, resamples: int = DEFAULT_RESAMPLES,
                    seed: int = 0, confidence: float = CONFIDENCE) -> ScoreIntervals:
    """Each system's interval for each measure of `table` (method "t" or "bootstrap")."""
    if method not in ("t", "bootstrap"):
        raise UsageError(f"unknown interval {method!r}; choose from t, bootstrap")
    warnings: list[str] = []
    bounds: dict[Measure, list] = {}
    n = table.n_queries
    for m, label in zip(table.measures, table.labels):
        if not is_mean_measure(m):
            bounds[m] = [None] * len(table.systems)
            warnings.append(f"{label}: no interval (its value over topics is a "
                            f"{'sum' if m.is_count else m.aggregation}, not a mean)")
            continue
        x = table.values[m]
        if method == "t":
            low, high = t_intervals(x, table.present, confidence)
        else:
            low, high = bootstrap_intervals(x, table.present, confidence, resamples, seed)
        row = []
        for i, system in enumerate(table.systems):
            lo, hi = float(low[i]), float(high[i])
            if n[i] < 2:
                row.append(None)
                if n[i] == 1:
                    warnings.append(f"{system}: no interval for {label} (scored on 1 topic)")
                continue
            values = x[i, table.present[i]]
            if float(values.max() - values.min()) <= 1e-12 * max(1.0, abs(float(values.max()))):
                row.append(None)
                warnings.append(f"{system}: no interval for {label} (every one of its "
                                f"{int(n[i])} topics gives {number(values[0])}: zero width "
                                f"by construction)")
                continue
            row.append((lo, hi) if not (math.isnan(lo) or math.isnan(hi)) else None)
        bounds[m] = row
    small = [s for s, k in zip(table.systems, n.tolist()) if 2 <= k < SMALL_TOPICS]
    if small:
        warnings.append(f"intervals from fewer than {SMALL_TOPICS} topics are unreliable: "
                        + ", ".join(f"{s} ({int(n[table.row(s)])} topics)" for s in small))
    return ScoreIntervals(method, confidence, bounds, warnings)


def interval_matrix(intervals: ScoreIntervals, table: ScoreTable, systems: list[str]):
    """Per system in `systems` order, one (low, high) or None per measure (grid rows)."""
    return tuple(tuple(intervals.of(m, table.row(s)) for m in table.measures) for s in systems)
