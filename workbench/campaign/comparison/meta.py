"""`workbench meta`: judge the judges. Each judge's system leaderboard (a qrels source
scored on the stored runs, or an imported leaderboard) against a truth leaderboard, with
bootstrap intervals over topics, paired differences between judges and Bland–Altman
(the numbers: metrics/meta_evaluation.py; docs/meta-evaluation.md).

Sources: anything `--source` takes (majority, mean, adjudicated, assessor:NAME,
hybrid:MACHINE), and `leaderboard:NAME`. Topics are those every source has a value on;
systems are those of the truth and every judge, unless `on_missing` says what to do with a
system that one side lacks (`zero`: score it 0 there; `drop`: leave it out), which is
otherwise refused, as AutoJudge's evaluator does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from workbench.campaign.database import Database
from workbench.errors import UsageError
from workbench.formats.output import json_number
from workbench.metrics.meta_evaluation import MetaResult, meta_evaluate, parse_correlations

ON_MISSING = ("zero", "drop")


@dataclass(frozen=True)
class Scores:
    """One source's values of the measure: systems x topics, present where it has one."""

    source: str
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    values: np.ndarray
    present: np.ndarray
    means: np.ndarray


def _board_measure(db: Database, name: str, measure: str) -> Scores:
    from workbench.campaign.scoring.leaderboards import leaderboard_scores
    from workbench.metrics.measures import parse_measures
    from workbench.store.leaderboards import load_leaderboard

    with db.read() as s:
        board = load_leaderboard(s, name)
    spelled = measure
    if board is not None and measure not in set(board.measures.tolist()):
        # nDCG@10 given, the file says ndcg_cut_10: the same measure under another spelling
        try:
            want = {str(m) for m in parse_measures([measure])}
        except Exception:
            want = set()
        for candidate in dict.fromkeys(board.measures.tolist()):
            try:
                if want and {str(m) for m in parse_measures([candidate])} == want:
                    spelled = candidate
                    break
            except Exception:
                continue
    b = leaderboard_scores(db, name, spelled)
    return Scores(b.source, b.systems, b.topics, b.values, b.present, b.means)


def source_scores_of(db: Database, spec: str, measure: str, runs=None) -> Scores:
    """The scores of one source spelling (`leaderboard:NAME` or a qrels source)."""
    from workbench.campaign.comparison.systems import source_scores
    from workbench.campaign.scoring.scores import score_campaign
    from workbench.campaign.scoring.sources import QrelsSource

    if spec.startswith("leaderboard:"):
        return _board_measure(db, spec[len("leaderboard:"):], measure)
    source = QrelsSource.parse(spec)
    table = score_campaign(db, [measure], source, runs=runs)
    sc = source_scores(table, measure)
    return Scores(source.label, sc.systems, tuple(table.queries), sc.values, sc.present, sc.means)


@dataclass
class MetaReport:
    truth: str
    measure: str
    result: MetaResult
    warnings: list[str]

    def to_json(self) -> dict:
        """docs/json-outputs.md `meta --format json`."""
        num = json_number

        def ci(v):
            return None if v is None or any(math.isnan(x) for x in v) else [num(v[0]), num(v[1])]

        judges = []
        for j in self.result.judges:
            cor: dict = {}
            for c in self.result.correlations:
                cor[c] = num(j.correlations[c])
                cor[f"{c}_ci"] = ci(j.intervals[c])
            ba = j.bland_altman
            one = {"judge": j.judge, "systems": j.systems, "topics": j.topics, "correlations": cor,
                   "bland_altman": {"bias": num(ba["bias"]), "limits": ci(ba["limits"]), "slope": num(ba["slope"])}}
            if j.bland_altman_per_topic is not None:
                bt = j.bland_altman_per_topic
                one["bland_altman_per_topic"] = {"bias": num(bt["bias"]), "limits": ci(bt["limits"]),
                                                 "slope": num(bt["slope"]), "pairs": bt["n"]}
            if j.per_topic is not None:
                one["per_topic"] = {t: {c: num(v) for c, v in row.items()} for t, row in j.per_topic.items()}
            judges.append(one)
        pairs = [{"a": p.a, "b": p.b, "correlation": p.correlation, "difference": num(p.difference),
                  "difference_ci": ci(p.difference_ci), "p": num(p.p_value), "p_holm": num(p.p_holm),
                  "sentence": p.sentence}
                 for p in self.result.pairs]
        return {"truth": self.truth, "measure": self.measure, "judges": judges, "pairs": pairs,
                "resamples": self.result.resamples, "seed": self.result.seed, "warnings": list(self.warnings)}


def _aligned(sc: Scores, systems: list[str], topics: list[str], zero: bool):
    row = {s: i for i, s in enumerate(sc.systems)}
    col = {t: j for j, t in enumerate(sc.topics)}
    values = np.zeros((len(systems), len(topics)))
    present = np.zeros((len(systems), len(topics)), dtype=bool)
    means = np.zeros(len(systems))
    cols = [col[t] for t in topics]
    for k, s in enumerate(systems):
        if s in row:
            i = row[s]
            values[k] = sc.values[i, cols] if cols else values[k]
            present[k] = sc.present[i, cols] if cols else present[k]
            means[k] = sc.means[i]
        elif zero:
            present[k] = True  # scored 0 on every topic
    return values, present, means


def meta_sources(db: Database, truth: Scores, judges: Sequence[Scores], measure: str, *,
                 correlations: Sequence[str] | str | None = None, resamples: int = 1000, seed: int = 0,
                 on_missing: str | None = None, per_topic: bool = False) -> MetaReport:
    """The meta-evaluation of already loaded scores (see the module's docstring)."""
    try:
        names = parse_correlations(correlations)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if on_missing is not None and on_missing not in ON_MISSING:
        raise UsageError(f"--on-missing must be zero or drop, not {on_missing!r}")
    warnings: list[str] = []
    labels = [j.source for j in judges]
    if len(set(labels)) != len(labels):
        raise UsageError("a judge is given twice")

    def scored(sc: Scores) -> set[str]:
        return {s for s, m in zip(sc.systems, sc.means) if not math.isnan(m)}

    truth_systems = scored(truth)
    every = set(truth_systems)
    for j in judges:
        every |= scored(j)
    if on_missing == "drop":
        systems = set(truth_systems)
        for j in judges:
            systems &= scored(j)
    else:
        systems = every
    for sc in (truth, *judges):
        missing = sorted(every - scored(sc))
        if not missing:
            continue
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        if on_missing is None:
            raise UsageError(f"{len(missing)} systems missing from {sc.source}: {shown} "
                             "(--on-missing zero scores them 0 there, --on-missing drop leaves them out)")
        warnings.append(f"{len(missing)} systems missing from {sc.source} "
                        f"({'scored 0' if on_missing == 'zero' else 'left out'}): {shown}")
    systems_list = sorted(systems)
    # topics every source has (leaderboards with summary lines only have none)
    topic_sets = [set(sc.topics) for sc in (truth, *judges)]
    common = set.intersection(*topic_sets) if topic_sets else set()
    topics = sorted(common)
    if len(systems_list) < 3:
        warnings.append(f"only {len(systems_list)} systems: rank correlations say little below 3")
    zero = on_missing == "zero"
    t_values, t_present, t_means = _aligned(truth, systems_list, topics, zero)
    use_topics = len(topics) >= 1 and all(len(sc.topics) for sc in (truth, *judges))
    if use_topics and len(topics) < 2:
        warnings.append("one topic in common: no interval (null)")
    aligned = [(j.source, _aligned(j, systems_list, topics, zero)) for j in judges]

    def constant(v) -> bool:
        v = v[~np.isnan(v)]
        return v.size > 0 and np.unique(np.round(v, 12)).size == 1

    t_point = np.where(t_present, t_values, 0.0).sum(axis=1) / np.maximum(t_present.sum(axis=1), 1) if use_topics else t_means
    if constant(t_point):
        warnings.append(f"every system ties under {truth.source}: rank correlations are undefined")
    for label, (v, p, m) in aligned:
        point = np.where(p, v, 0.0).sum(axis=1) / np.maximum(p.sum(axis=1), 1) if use_topics else m
        if constant(point):
            warnings.append(f"every system ties under {label}: rank correlations are undefined")
    if use_topics:
        result = meta_evaluate(systems_list, (t_values, t_present),
                               [(label, (v, p)) for label, (v, p, _) in aligned],
                               correlations=names, resamples=resamples, seed=seed,
                               per_topic=per_topic, topics=topics)
    else:
        warnings.append("per-system values only (no per-topic rows): no intervals")
        result = meta_evaluate(systems_list, t_means, [(label, m) for label, (_, _, m) in aligned],
                               correlations=names, resamples=resamples, seed=seed)
    return MetaReport(truth.source, measure, result, warnings)


def meta(db: Database, truth: str, judges: Sequence[str], measure: str, **options) -> MetaReport:
    """`workbench meta`: load every source once (the stored runs shared), then meta_sources."""
    from workbench.campaign.scoring.scores import load_runs

    if not judges:
        raise UsageError("give at least one --judge SOURCE")
    runs = None
    if not all(s.startswith("leaderboard:") for s in (truth, *judges)):
        with db.read() as s:
            runs = load_runs(s, scores=False)
    t = source_scores_of(db, truth, measure, runs)
    js = [source_scores_of(db, j, measure, runs) for j in judges]
    return meta_sources(db, t, js, measure, **options)
