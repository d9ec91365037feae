"""Comparing systems (`workbench compare`): do the rankings survive a change of assessor,
and which differences are significant?

For one measure, every stored system is scored per query under several qrels sources
(the consensus, and with `by_assessor` each assessor's own grades; scoring is
`campaign.scoring.scores`'s). From those scores:
- **rankings**: per source, the systems best first by their mean (ties by name);
- **correlations**: for each pair of sources, Kendall tau-b and tau-a of the systems' means,
  tau_AP-b (symmetric, pyircor's treatment of ties), and RBO_ext of the two ranked lists
  (persistence `rbo_p`), over the systems scored under both; means equal up to
  floating-point noise are ties in all of them and in the rankings (`corr.tie_levels`);
- **tests**: for each pair of systems, a paired test over the queries both were scored on
  under the primary source (the first: the consensus), with Holm–Bonferroni adjusted
  p-values over all pairs.
The computing part (`compare_tables`) takes plain score tables, so it is tested without a
database; `compare_systems` is the use case over the database.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Sequence

import numpy as np

from workbench.campaign.assessors.roster import unknown_assessor
from workbench.campaign.scoring.sources import QrelsSource
from workbench.formats.numbers import interval, number
from workbench.formats.output import json_number
from workbench.metrics import correlation as corr
from workbench.metrics import significance as sig

if TYPE_CHECKING:  # annotations only
    from workbench.campaign.scoring.scores import ScoreTable

__all__ = [
    "SourceScores",
    "CorrelationRow",
    "TestRow",
    "ComparisonReport",
    "compare_tables",
    "source_scores",
    "compare_systems",
    "compare_files",
]


@dataclass(frozen=True, eq=False)
class SourceScores:
    """One measure under one qrels source, as arrays: `values[i, j]` is system i's score on
    query j where `present[i, j]`; `means[i]` its mean over those queries where
    `scored[i]` (a system scored on no query cannot be ranked)."""

    source: str
    systems: tuple[str, ...]
    values: np.ndarray  # (systems x queries) float64
    present: np.ndarray  # (systems x queries) bool
    means: np.ndarray  # (systems,) float64
    scored: np.ndarray  # (systems,) bool

    def mean_of(self) -> dict[str, float]:
        """system -> mean, for the scored systems (what reports print)."""
        return {s: float(v) for s, v, ok in zip(self.systems, self.means.tolist(), self.scored) if ok}


@dataclass(frozen=True)
class CorrelationRow:
    a: str
    b: str
    n_systems: int
    kendall_tau_b: float
    kendall_tau_a: float
    tau_ap: float
    rbo: float


@dataclass(frozen=True)
class TestRow:
    __test__ = False  # not a pytest class

    a: str
    b: str
    n_queries: int
    mean_diff: float
    p_value: float
    p_holm: float
    low: float = math.nan  # the mean difference's 95% interval
    high: float = math.nan
    effect_size: float = math.nan  # Hedges-corrected d_z (metrics/effect_size.py)
    effect_low: float = math.nan
    effect_high: float = math.nan

    def sentence(self, alpha: float = 0.05) -> str:
        """Whether the difference is distinguishable from 0, in words."""
        if math.isnan(self.mean_diff) or math.isnan(self.p_holm):
            return f"{self.a} vs {self.b}: no test ({self.n_queries} common topics)"
        ci = ("" if math.isnan(self.low) else
              f", 95% CI {interval(self.low, self.high)}")
        es = ("" if math.isnan(self.effect_size) else
              f", effect size g_z {self.effect_size:.2f}"
              + ("" if math.isnan(self.effect_low) else
                 f" [{self.effect_low:.2f}, {self.effect_high:.2f}]"))
        if self.p_holm < alpha:
            verdict = (f"{self.a} scores higher than {self.b}" if self.mean_diff > 0 else
                       f"{self.a} scores lower than {self.b}")
            return (f"{verdict} by {number(abs(self.mean_diff))}{ci}{es}: distinguishable from 0 "
                    f"(Holm p {self.p_holm:.3g} < {alpha:g}, {self.n_queries} topics)")
        return (f"{self.a} vs {self.b}: {number(self.mean_diff, signed=True)}{ci}{es}: not distinguishable "
                f"from 0 (Holm p {self.p_holm:.3g} >= {alpha:g}, {self.n_queries} topics)")


@dataclass(frozen=True)
class ComparisonReport:
    measure: str
    sources: tuple[str, ...]
    means: dict[str, dict[str, float]]  # source -> system -> mean
    rankings: dict[str, list[str]]
    correlations: list[CorrelationRow]
    tests: list[TestRow]
    test: str
    tests_source: str
    alpha: float = 0.05
    # source -> {"queries": n, "judged_at_10": x} (stored campaigns only)
    coverage: dict = field(default_factory=dict)
    common_queries: int | None = None  # compared on the queries every source judged
    warnings: tuple[str, ...] = ()
    # sources with no judged query (an assessor who judged nothing yet): named, left out
    left_out: tuple[str, ...] = ()

    def to_json(self) -> dict:
        """docs/architecture.md#command-line-contract `compare --format json` (NaN -> null), plus `test`, `tests_source`
        and `means` after the contract's keys."""
        return {
            "measure": self.measure,
            "rankings": {s: list(r) for s, r in self.rankings.items()},
            "correlations": [
                {
                    "a": c.a,
                    "b": c.b,
                    "kendall_tau_b": _num(c.kendall_tau_b),
                    "kendall_tau_a": _num(c.kendall_tau_a),
                    "tau_ap": _num(c.tau_ap),
                    "rbo": _num(c.rbo),
                }
                for c in self.correlations
            ],
            "tests": [
                {
                    "a": t.a,
                    "b": t.b,
                    "mean_diff": _num(t.mean_diff),
                    "mean_diff_ci": _pair(t.low, t.high),
                    "effect_size": _num(t.effect_size),
                    "effect_size_ci": _pair(t.effect_low, t.effect_high),
                    "p_value": _num(t.p_value),
                    "p_holm": _num(t.p_holm),
                    "n_queries": t.n_queries,
                    "sentence": t.sentence(self.alpha),
                }
                for t in self.tests
            ],
            "test": self.test,
            "tests_source": self.tests_source,
            "means": {s: {k: _num(v) for k, v in m.items()} for s, m in self.means.items()},
            "coverage": {s: {"queries": c["queries"], "judged_at_10": _num(c["judged_at_10"])}
                         for s, c in self.coverage.items()},
            "queries": ("all" if self.common_queries is None
                        else {"common": self.common_queries}),
            **({"warnings": list(self.warnings)} if self.warnings else {}),
            "left_out": list(self.left_out),
        }


_num = json_number


def _pair(low: float, high: float):
    return None if math.isnan(low) or math.isnan(high) else [float(low), float(high)]


def _correlation(a: SourceScores, b: SourceScores, rbo_p: float) -> CorrelationRow:
    b_row = {s: i for i, s in enumerate(b.systems)}
    rows = [(i, b_row[s]) for i, s in enumerate(a.systems)
            if a.scored[i] and s in b_row and b.scored[b_row[s]]]
    common = [a.systems[i] for i, _ in rows]
    x = a.means[[i for i, _ in rows]].astype(np.float64)
    y = b.means[[j for _, j in rows]].astype(np.float64)
    nan = math.nan
    if len(common) < 2:
        return CorrelationRow(a.source, b.source, len(common), nan, nan, nan, nan)
    return CorrelationRow(
        a.source,
        b.source,
        len(common),
        corr.kendall_tau(x, y, "b", tie_tol=corr.MEAN_TIE_TOL),
        corr.kendall_tau(x, y, "a", tie_tol=corr.MEAN_TIE_TOL),
        corr.tau_ap_b(x, y),
        corr.rbo(corr.rank_order(common, x), corr.rank_order(common, y), rbo_p),
    )


def _pair_tests(primary: SourceScores, order: list[str], test: str, seed: int,
                n_resamples: int | None) -> list[TestRow]:
    """The paired test of every pair of systems (a ranked above b) over the queries both
    were scored on, Holm-adjusted. t-tests of pairs scored on the same queries run as one
    array operation (sig.paired_t_tests); the others one by one."""
    row = {s: i for i, s in enumerate(primary.systems)}
    ok = primary.present & ~np.isnan(primary.values)
    pairs = list(itertools.combinations(order, 2))
    ia = np.array([row[a] for a, _ in pairs], dtype=np.int64)
    ib = np.array([row[b] for _, b in pairs], dtype=np.int64)
    both = ok[ia] & ok[ib] if pairs else np.zeros((0, ok.shape[1]), dtype=bool)
    n = both.sum(axis=1)
    nan = math.nan
    raw = [(a, b, int(k), nan, nan, nan, nan) for (a, b), k in zip(pairs, n.tolist())]
    todo = np.flatnonzero(n > 0)
    if test == "t":  # pairs with one common query set: one array operation per set
        full = todo[both[todo].all(axis=1)] if ok.size else todo[:0]
        if full.size:
            mean, _, p = sig.paired_t_tests(primary.values[ia[full]], primary.values[ib[full]])
            for k, m_, p_ in zip(full.tolist(), mean.tolist(), p.tolist()):
                a, b = pairs[k]
                raw[k] = (a, b, int(n[k]), m_, p_, nan, nan)
            todo = np.setdiff1d(todo, full)
    for k in todo.tolist():
        a, b = pairs[k]
        x, y = primary.values[ia[k], both[k]], primary.values[ib[k], both[k]]
        r = sig.run_test(test, x, y, seed=seed, n=n_resamples)
        raw[k] = (a, b, x.size, r.mean_diff, r.p_value, r.low, r.high)
    adjusted = sig.holm([r[4] for r in raw])
    effects = _effects(primary.values, ia, ib, both, n, test)
    return [
        TestRow(a, b, k, diff, p, float(ph), *effects[i][:2] if test != "bootstrap" else (low, high),
                *effects[i][2:])
        for i, ((a, b, k, diff, p, low, high), ph) in enumerate(zip(raw, adjusted))
    ]


def _effects(values: np.ndarray, ia: np.ndarray, ib: np.ndarray, both: np.ndarray,
             n: np.ndarray, test: str) -> list[tuple[float, float, float, float, float]]:
    """Per pair: (t interval low, high of the mean difference, g_z, its low, high), pairs
    with the same common topics in one array operation each (metrics/effect_size.py)."""
    from workbench.metrics.effect_size import mean_diff_t_intervals, paired_effect_sizes

    nan = math.nan
    out = [(nan,) * 5 for _ in range(len(ia))]
    if not len(ia):
        return out
    patterns, group = np.unique(both, axis=0, return_inverse=True)
    group = np.asarray(group).ravel()
    for g, pattern in enumerate(patterns):
        rows = np.flatnonzero((group == g) & (n >= 2))
        if not rows.size:
            continue
        cols = np.flatnonzero(pattern)
        d = values[ia[rows]][:, cols] - values[ib[rows]][:, cols]
        lo, hi = mean_diff_t_intervals(d) if test != "bootstrap" else (
            np.full(rows.size, nan), np.full(rows.size, nan))
        es, es_lo, es_hi = paired_effect_sizes(d)
        for k, r in enumerate(rows.tolist()):
            out[r] = (float(lo[k]), float(hi[k]), float(es[k]), float(es_lo[k]), float(es_hi[k]))
    return out


def compare_tables(
    measure: str,
    sources: Sequence[SourceScores],
    *,
    test: str = "t",
    seed: int = 0,
    n_resamples: int | None = None,
    rbo_p: float = 0.9,
) -> ComparisonReport:
    """Rankings, correlations between every pair of sources, and the system-pair tests
    under `sources[0]`. `test` is one of t, randomization, bootstrap."""
    if test not in sig.TESTS:
        raise ValueError(f"unknown test {test!r}; choose from {', '.join(sig.TESTS)}")
    rankings = {
        s.source: corr.rank_order(
            [x for x, ok in zip(s.systems, s.scored) if ok], s.means[s.scored].tolist()
        )
        for s in sources
    }
    correlations = [_correlation(a, b, rbo_p) for a, b in itertools.combinations(sources, 2)]
    tests: list[TestRow] = []
    primary = sources[0] if sources else None
    if primary is not None:
        tests = _pair_tests(primary, rankings[primary.source], test, seed, n_resamples)
    return ComparisonReport(
        measure=measure,
        sources=tuple(s.source for s in sources),
        means={s.source: s.mean_of() for s in sources},
        rankings=rankings,
        correlations=correlations,
        tests=tests,
        test=test,
        tests_source=primary.source if primary is not None else "",
    )


# ---------------------------------------------------------------- database


def measure_label(measure: str) -> str:
    """The label scoring keys values by (nDCG@10 -> ndcg_cut_10); one measure only."""
    from workbench.errors import UsageError
    from workbench.metrics.measures import parse_measures

    parsed = parse_measures([measure])
    if len(parsed) != 1:
        raise UsageError(f"compare ranks by one measure at a time; {measure!r} names {len(parsed)}")
    return parsed[0].label or str(parsed[0])


def source_scores(table: ScoreTable, measure: str, queries: Sequence[str] | None = None) -> SourceScores:
    """One measure out of a `campaign.scoring.scores.ScoreTable`, on all its queries or only on
    `queries` (then each system's mean is re-averaged over those, trec_eval's way). Systems
    scored on no query are left out of the means (they cannot be ranked). The table labels
    measures canonically (nDCG@10 -> ndcg_cut_10)."""
    from workbench.metrics.evaluate import aggregate

    m = table.measure(measure_label(measure) if measure not in table.labels else measure)
    values, present = table.values[m], table.present
    if queries is None:
        scored = table.scored()
        means = np.where(scored, table.means[m], math.nan)
    else:
        cols = np.array([table.queries.index(q) for q in queries], dtype=np.int64)
        values, present = values[:, cols], present[:, cols]
        scored = present.any(axis=1)
        means = np.array([aggregate(m, values[i, present[i]]) if scored[i] else math.nan
                          for i in range(len(table.systems))])
    return SourceScores(table.source, tuple(table.systems), values, present, means, scored)


def coverage(table: ScoreTable, judged: str = "Judged@10") -> dict:
    """How much of a source is judged: its queries with judgments, and the systems' mean
    Judged@10 (the share of each system's top 10 that is judged, averaged)."""
    m = table.measure(judged)
    scored = table.scored()
    share = float(table.means[m][scored].mean()) if scored.any() else math.nan
    return {"queries": len(table.queries), "judged_at_10": share}


def compare_systems(
    db,
    measure: str,
    *,
    by_assessor: bool = False,
    source: QrelsSource | None = None,
    assessors: Sequence[str] | None = None,
    other_measures: Sequence[str] = (),
    test: str = "t",
    seed: int = 0,
    n_resamples: int | None = None,
    rbo_p: float = 0.9,
    all_queries: bool = False,
) -> ComparisonReport:
    """Score every stored system under `source` (default: the people's majority; and, `by_assessor`, each assessor's
    qrels, or only `assessors`) and compare: the use case behind `workbench compare`.

    `other_measures` adds, for each, the ranking by that measure under the consensus as
    one more source named "<consensus source> <measure>" (rankings under two measures);
    tests always use `measure` under the consensus. With several sources they are compared
    on the queries every one has judged, unless `all_queries`; the report's `coverage`
    says how much each source judged."""
    from workbench.campaign.scoring.scores import load_runs, score_campaign
    from workbench.store.external_ids import assessor_names as stored_assessors

    for name in (measure, *other_measures):
        measure_label(name)  # one measure each, or a usage error before any work
    with db.read() as s:
        runs = load_runs(s, scores=False)  # once, shared by every source (scores read only the order)
    tables = [score_campaign(db, [measure, *other_measures, "Judged@10"], source, runs=runs)]
    if by_assessor or assessors:
        with db.read() as s:
            known = stored_assessors(s).names.tolist()
        if assessors:
            names = list(assessors)
        else:  # not a lead who only adjudicated
            from workbench.campaign.assessors.roster import people

            names = people(db)
        for name in names:
            if name not in known:
                raise unknown_assessor(name)
            tables.append(score_campaign(db, [measure, "Judged@10"], QrelsSource.assessor(name), runs=runs))
    # An unfinished assessor ranked on fewer queries than the others would differ for lack
    # of judgments, not by disagreeing: by default every source is compared on the
    # queries all of them judged.
    # A source with no judged query (an assessor who has judged nothing, or nothing the
    # runs retrieved) would empty the common queries and every ranking: it is named and
    # left out (its coverage says 0 queries).
    scored_tables = [tables[0], *(t for t in tables[1:] if t.queries)]
    left_out = tuple(t.source for t in tables[1:] if not t.queries)
    coverage_of = {t.source: coverage(t) for t in tables}
    tables = scored_tables
    common = None
    if len(tables) > 1 and all_queries is False:
        judged = set(tables[0].queries).intersection(*(t.queries for t in tables[1:]))
        common = [q for q in tables[0].queries if q in judged]
    sources = [source_scores(t, measure, common) for t in tables]
    for other in other_measures:
        extra = source_scores(tables[0], other, common)
        sources.append(SourceScores(f"{extra.source} {other}", extra.systems, extra.values,
                                    extra.present, extra.means, extra.scored))
    report = compare_tables(
        measure, sources, test=test, seed=seed, n_resamples=n_resamples, rbo_p=rbo_p
    )
    return replace(report, coverage=coverage_of, left_out=left_out,
                   common_queries=len(common) if common is not None else None)


# ---------------------------------------------------------------- files


def compare_files(
    qrels_paths: Sequence[str],
    run_paths: Sequence[str],
    measure: str,
    *,
    other_measures: Sequence[str] = (),
    rel_level: int = 1,
    test: str = "t",
    seed: int = 0,
    n_resamples: int | None = None,
    rbo_p: float = 0.9,
) -> ComparisonReport:
    """The same comparison from files: each qrels file is a source (the first one is the
    reference and the one tests use), each run file a system (named by its tag, or by its
    path when tags repeat); `other_measures` add rankings by those measures under the first
    qrels file ("<path> <measure>"). Scores are trec_eval's (metrics/evaluate.py, evaluate_many)."""
    from workbench.errors import UsageError
    from workbench.formats.trec import read_qrels, read_run
    from workbench.metrics.evaluate import RunArrays, evaluate_many
    from workbench.metrics.measures import parse_measure

    for name in (measure, *other_measures):
        measure_label(name)  # exactly one measure each
    if not qrels_paths or not run_paths:
        raise UsageError("give --qrels FILE [FILE ...] and --run FILE [FILE ...]")
    runs = [read_run(p) for p in run_paths]
    tags = [r.tag or str(p) for r, p in zip(runs, run_paths)]
    if len(set(tags)) != len(tags):
        tags = [str(p) for p in run_paths]
    if len(set(tags)) != len(tags):
        raise UsageError("the same run file is given twice")
    arrays = [RunArrays(r.qid, r.docno, r.score, t) for r, t in zip(runs, tags)]

    def scores(qrels, name: str, label: str) -> SourceScores:
        m = parse_measure(name)
        evaluations = evaluate_many(qrels.qid, qrels.docno, qrels.rel, arrays, [m],
                                    rel_level=rel_level)
        # columns: queries in first-seen order over the runs (the order tests pair them in)
        column: dict[str, int] = {}
        for ev in evaluations:
            for q in ev.qids:
                column.setdefault(q, len(column))
        values = np.zeros((len(tags), len(column)))
        present = np.zeros((len(tags), len(column)), dtype=bool)
        means = np.full(len(tags), math.nan)
        for i, ev in enumerate(evaluations):
            cols = np.array([column[q] for q in ev.qids], dtype=np.int64)
            values[i, cols] = ev.per_query[m]
            present[i, cols] = True
            if ev.qids:
                means[i] = ev.summary[m]
        return SourceScores(label, tuple(tags), values, present, means, present.any(axis=1))

    all_qrels = [read_qrels(p) for p in qrels_paths]  # every file checked before scoring
    sources = [scores(q, measure, str(p)) for q, p in zip(all_qrels, qrels_paths)]
    sources += [scores(all_qrels[0], other, f"{qrels_paths[0]} {other}") for other in other_measures]
    return compare_tables(
        measure, sources, test=test, seed=seed, n_resamples=n_resamples, rbo_p=rbo_p
    )


def with_ppi_tests(db, report: ComparisonReport, measure: str, source: QrelsSource,
                   confidence: float = 0.95) -> ComparisonReport:
    """`compare --source hybrid:MACHINE --test ppi`: every pair's difference, interval and
    p-value (Holm-adjusted) by prediction-powered inference on each topic's difference
    (campaign/scoring/ppi.py); the effect size is left out (it is not what PPI estimates)."""
    from dataclasses import replace

    from workbench.campaign.scoring.ppi import ppi_pair_differences
    from workbench.campaign.scoring.scores import score_campaign

    table = score_campaign(db, [measure], source)
    pairs = [(t.a, t.b) for t in report.tests]
    found, warnings = ppi_pair_differences(db, table, source, table.measures[0], pairs,
                                           confidence=confidence)
    p = sig.holm([found[pair][3] for pair in pairs])
    nan = math.nan
    tests = [replace(t, mean_diff=found[(t.a, t.b)][0], low=found[(t.a, t.b)][1],
                     high=found[(t.a, t.b)][2], p_value=found[(t.a, t.b)][3], p_holm=float(ph),
                     effect_size=nan, effect_low=nan, effect_high=nan)
             for t, ph in zip(report.tests, p)]
    return replace(report, tests=tests, test="ppi", warnings=tuple(warnings))
