"""Meta-evaluation of judges (`workbench meta`): how closely each judge's system leaderboard
follows the truth's, with bootstrap intervals over topics, paired differences between judges
and Bland–Altman agreement of the scores. Pure numpy, on aligned arrays: one truth and any
number of judges over the same systems (rows) and topics (columns).

One resample matrix serves every judge: resample r draws the topics with replacement
(`weights[r, t]` = how often topic t is drawn), every system's mean is re-averaged over the
drawn topics it has a value on, and each correlation is computed on all resamples at once
(the `*_rows` functions of metrics/correlation.py). The same resamples for every judge make
the judge-minus-judge differences paired.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from workbench.metrics import correlation as corr
from workbench.metrics.agreement_ci import percentile_interval, resample_counts
from workbench.metrics.significance import holm

__all__ = ["CORRELATIONS", "parse_correlations", "correlation_rows", "JudgeResult", "PairResult",
           "MetaResult", "meta_evaluate", "bland_altman"]

CORRELATIONS = ("kendall_tau_b", "spearman", "pearson", "tau_ap", "tau_gap", "kendall_tau_b@10", "rbo")
_SPELLINGS = {"kendall": "kendall_tau_b", "kendall_tau": "kendall_tau_b", "tau_b": "kendall_tau_b",
              "tau_ap_b": "tau_ap", "spearman_rho": "spearman", "pearson_r": "pearson"}
_TOP_K = re.compile(r"^(kendall|kendall_tau_b)@(\d+)$")


def parse_correlations(spec: str | Sequence[str] | None) -> list[str]:
    """The correlation names of `--correlation LIST` (comma-separated), in the canonical
    spelling (`kendall` -> `kendall_tau_b`, `kendall@K` -> `kendall_tau_b@K`); None or
    empty: all of CORRELATIONS. ValueError names an unknown one."""
    if spec is None:
        return list(CORRELATIONS)
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    out: list[str] = []
    for raw in items:
        name = raw.strip().lower()
        if not name:
            continue
        top = _TOP_K.match(name)
        if top:
            k = int(top.group(2))
            if k < 2:
                raise ValueError(f"{raw.strip()}: k must be at least 2")
            name = f"kendall_tau_b@{k}"
        else:
            name = _SPELLINGS.get(name, name)
            if name not in CORRELATIONS:
                raise ValueError(f"unknown correlation {raw.strip()!r}; expected "
                                 "kendall_tau_b, spearman, pearson, tau_ap, tau_gap, kendall_tau_b@K or rbo")
        if name not in out:
            out.append(name)
    return out or list(CORRELATIONS)


def correlation_rows(name: str, systems: Sequence[str], truth: np.ndarray, judge: np.ndarray,
                     *, rbo_p: float = 0.9) -> np.ndarray:
    """One correlation of every row pair of (rows x systems) truth and judge means."""
    if name == "kendall_tau_b":
        return corr.kendall_tau_b_rows(truth, judge)
    if name == "spearman":
        return corr.spearman_rows(truth, judge)
    if name == "pearson":
        return corr.pearson_rows(truth, judge)
    if name == "tau_ap":
        return corr.tau_ap_b_rows(truth, judge)
    if name == "tau_gap":
        return corr.tau_gap_rows(truth, judge)
    if name == "rbo":
        return corr.rbo_rows(systems, truth, judge, rbo_p)
    if name.startswith("kendall_tau_b@"):
        return corr.kendall_top_k_rows(systems, truth, judge, int(name.split("@")[1]))
    raise ValueError(f"unknown correlation {name!r}")


def bland_altman(truth, judge) -> dict:
    """Bland–Altman agreement of paired scores: bias = mean(judge - truth), 95% limits of
    agreement bias ± 1.96 sd (sd with n - 1), and the proportional-bias slope: the least
    squares slope of the differences on the pair means (0: the bias does not grow with
    the score). NaN where there are too few pairs (fewer than 2; the slope needs the means
    to vary)."""
    t, j = np.asarray(truth, dtype=np.float64), np.asarray(judge, dtype=np.float64)
    ok = ~(np.isnan(t) | np.isnan(j))
    t, j = t[ok], j[ok]
    d, m = j - t, (j + t) / 2.0
    nan = math.nan
    if d.size == 0:
        return {"bias": nan, "limits": (nan, nan), "slope": nan, "n": 0}
    bias = float(d.mean())
    sd = float(d.std(ddof=1)) if d.size > 1 else nan
    spread = float(((m - m.mean()) ** 2).sum())
    slope = float(((m - m.mean()) * (d - bias)).sum() / spread) if d.size > 1 and spread > 0 else nan
    return {"bias": bias, "limits": (bias - 1.96 * sd, bias + 1.96 * sd), "slope": slope, "n": int(d.size)}


@dataclass
class JudgeResult:
    judge: str
    systems: int
    topics: int
    correlations: dict[str, float]
    intervals: dict[str, tuple[float, float] | None]
    bland_altman: dict
    bland_altman_per_topic: dict | None = None
    per_topic: dict[str, dict[str, float]] | None = None
    rows: dict[str, np.ndarray] = field(default_factory=dict, repr=False)


@dataclass
class PairResult:
    a: str
    b: str
    correlation: str
    difference: float
    difference_ci: tuple[float, float] | None
    p_value: float
    p_holm: float = math.nan

    @property
    def sentence(self) -> str | None:
        """The plain reading, only when the interval excludes 0."""
        if self.difference_ci is None or any(math.isnan(v) for v in self.difference_ci):
            return None
        lo, hi = self.difference_ci
        if lo > 0:
            better, worse = self.a, self.b
        elif hi < 0:
            better, worse = self.b, self.a
        else:
            return None
        return f"{better} ranks systems closer to the truth than {worse} ({self.correlation})"


@dataclass
class MetaResult:
    correlations: list[str]
    judges: list[JudgeResult]
    pairs: list[PairResult]
    resamples: int
    seed: int
    confidence: float


def _resampled_means(values: np.ndarray, present: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(resamples x systems) means over the drawn topics each system has a value on."""
    v = np.where(present, values, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (weights @ v.T) / (weights @ present.T.astype(np.float64))


def _means(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    n = present.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, np.where(present, values, 0.0).sum(axis=1) / n, math.nan)


def _p_two_sided(diff: np.ndarray) -> float:
    """2 x the smaller share of resampled differences on either side of 0 (at most 1)."""
    diff = diff[~np.isnan(diff)]
    if diff.size == 0:
        return math.nan
    return float(min(1.0, 2.0 * min(np.mean(diff <= 0), np.mean(diff >= 0))))


def meta_evaluate(
    systems: Sequence[str],
    truth: tuple[np.ndarray, np.ndarray] | np.ndarray,
    judges: Sequence[tuple[str, tuple[np.ndarray, np.ndarray] | np.ndarray]],
    *,
    correlations: Sequence[str] = CORRELATIONS,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    per_topic: bool = False,
    topics: Sequence[str] = (),
    rbo_p: float = 0.9,
) -> MetaResult:
    """Each judge's correlations with the truth and their percentile bootstrap intervals
    over topics, the paired differences of every pair of judges (Holm over the pairs of each
    correlation), and Bland–Altman on the system means (and, `per_topic`, on the per-topic
    scores, with per-topic correlations).

    `truth` and each judge: (values, present), systems x topics, aligned; or a 1-D vector
    of system means only (then no interval: `intervals[NAME]` is None). A judge row with a
    system that no drawn topic covers is left out of that resample."""
    names = list(systems)
    n = len(names)
    per_system = not isinstance(truth, tuple)
    if per_system:
        t_means = np.asarray(truth, dtype=np.float64)
    else:
        t_values, t_present = truth
        t_means = _means(t_values, t_present)
        n_topics = t_values.shape[1]
    boot = (not per_system) and n_topics > 1 and resamples > 0
    weights = resample_counts(n_topics, resamples, seed) if boot else None
    t_boot = _resampled_means(t_values, t_present, weights) if boot else None
    results: list[JudgeResult] = []
    for label, data in judges:
        if isinstance(data, tuple):
            j_values, j_present = data
            j_means = _means(j_values, j_present)
        else:
            j_values = j_present = None
            j_means = np.asarray(data, dtype=np.float64)
        point = {c: float(correlation_rows(c, names, t_means[None, :], j_means[None, :], rbo_p=rbo_p)[0])
                 if n >= 2 else math.nan for c in correlations}
        intervals: dict[str, tuple[float, float] | None] = {c: None for c in correlations}
        rows: dict[str, np.ndarray] = {}
        if boot and j_values is not None:
            j_boot = _resampled_means(j_values, j_present, weights)
            bad = np.isnan(t_boot).any(axis=1) | np.isnan(j_boot).any(axis=1)
            for c in correlations:
                r = correlation_rows(c, names, t_boot, j_boot, rbo_p=rbo_p) if n >= 2 else np.full(resamples, math.nan)
                r[bad] = math.nan
                rows[c] = r
                intervals[c] = percentile_interval(r, confidence)
        ba = bland_altman(t_means, j_means)
        ba_topic = topic_corr = None
        if per_topic and not per_system and j_values is not None:
            both = t_present & j_present
            ba_topic = bland_altman(np.where(both, t_values, np.nan).ravel(), np.where(both, j_values, np.nan).ravel())
            topic_corr = {}
            for k, topic in enumerate(topics):
                keep = both[:, k]
                sub = [s for s, ok in zip(names, keep) if ok]
                if len(sub) < 2:
                    topic_corr[topic] = {c: math.nan for c in correlations}
                    continue
                tv, jv = t_values[keep, k][None, :], j_values[keep, k][None, :]
                topic_corr[topic] = {c: float(correlation_rows(c, sub, tv, jv, rbo_p=rbo_p)[0]) for c in correlations}
        results.append(JudgeResult(label, n, 0 if per_system else n_topics, point, intervals, ba,
                                   ba_topic, topic_corr, rows))
    pairs: list[PairResult] = []
    for c in correlations:
        group = []
        for i in range(len(results)):
            for k in range(i + 1, len(results)):
                a, b = results[i], results[k]
                diff = a.correlations[c] - b.correlations[c]
                if c in a.rows and c in b.rows:
                    d = a.rows[c] - b.rows[c]
                    ci = percentile_interval(d, confidence)
                    p = _p_two_sided(d)
                else:
                    ci, p = None, math.nan
                group.append(PairResult(a.judge, b.judge, c, diff, ci, p))
        for pr, adj in zip(group, holm([g.p_value for g in group])):
            pr.p_holm = float(adj)
        pairs.extend(group)
    return MetaResult(list(correlations), results, pairs, resamples if boot else 0, seed, confidence)
