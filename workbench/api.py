"""The public Python API: trec_eval's numbers from Python objects (docs/python-api.md).

`evaluate` takes qrels and runs as file paths, ``{qid: {docid: grade}}`` dicts, pandas
DataFrames with ir_measures' column names (``query_id``, ``doc_id``, ``relevance`` /
``score``) or any iterable of records with those attributes (ir_datasets' ``qrels_iter()``,
ir_measures' ``Qrel`` / ``ScoredDoc``); `workbench.formats.python_objects` turns them into
arrays for the evaluation engine (`workbench.evaluation.evaluate_arrays`), with no text
file in between.
Measures are named as `workbench eval -m` names them, and the results are keyed by the
names `eval` prints (`metrics.requested`): this module is the one boundary where measures
travel as strings. `compare`, `agreement`, `kendall_tau`, `tau_ap` and `rbo` are thin
wrappers over `metrics/` (and `campaign.comparison.systems.compare_tables`, which is pure).

Nothing here touches a database or imports Textual, SQLAlchemy, Click or Rich; pandas is
imported only when a DataFrame is asked for (``to_frame()``) or given.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from workbench.defaults import EVAL_MEASURES, FILES_MEASURE

__all__ = ["Results", "PerQueryResults", "agreement", "compare", "evaluate", "kendall_tau",
           "rbo", "tau_ap"]


# ---------------------------------------------------------------- results


class Results(Mapping):
    """measure name -> value (the ``all`` line of `eval`), in the order asked.

    Counts (num_ret, num_rel, ...) are ints, runid is the run's name, the rest floats."""

    def __init__(self, values: dict) -> None:
        self._values = values

    def __getitem__(self, key):
        return self._values[key]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Results({self._values!r})"

    def to_frame(self):
        """A one-row pandas DataFrame, one column per measure."""
        import pandas as pd

        return pd.DataFrame([self._values], index=["all"])


class PerQueryResults(Mapping):
    """qid -> {measure name -> value} (the per-query lines of `eval -q`), queries in
    trec_eval's order; measures that trec_eval prints in the summary only (gm_map, num_q,
    runid) are in `.all` only. `.all` is the `Results` of the whole run."""

    def __init__(self, values: dict, all_: Results) -> None:
        self._values = values
        self.all = all_

    def __getitem__(self, key):
        return self._values[key]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"PerQueryResults({len(self)} queries, all={dict(self.all)!r})"

    def to_frame(self):
        """A pandas DataFrame: one row per query (index ``query_id``), one column per measure."""
        import pandas as pd

        frame = pd.DataFrame.from_dict(self._values, orient="index")
        frame.index.name = "query_id"
        return frame


def _arrays(qrels, runs: list, names: list[str], ties: str = "trec_eval"):
    """(qrels arrays, a RunArrays per run) of the inputs in any accepted form: dict runs
    against dict qrels joined by dict operations (`formats.python_objects.joined`, all of
    them or none, as the joined qrels stand in codes for the ids), else each read apart."""
    from workbench.formats import python_objects as objects
    from workbench.metrics.evaluate import RunArrays

    dicts = ties == "trec_eval" and isinstance(qrels, Mapping) and runs and all(
        isinstance(r, Mapping) for r in runs)
    dq = objects.dict_qrels(qrels) if dicts else None  # read once for every run
    if dq is not None:
        both = []
        for r in runs:
            j = objects.joined(r, dq)
            if j is None:
                break
            both.append(j)
        else:
            return dq.arrays, [RunArrays(j.qid, j.docno, j.score, n, grades=j.grades)
                               for j, n in zip(both, names)]
    return (objects.qrels_arrays(qrels),
            [objects.run_arrays(r, n) for r, n in zip(runs, names)])


def _measure_names(measures) -> list[str]:
    """Names from strings (several in one, split on whitespace) or objects such as
    ir_measures' (str() gives their name)."""
    if measures is None:
        return list(EVAL_MEASURES)
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    return [str(m) for m in measures]


def _value(m, v, tag: str, n: int):
    if m.aggregation == "runid":
        return tag
    if m.aggregation == "count":
        return n
    if m.is_text:
        return str(v)
    return int(round(float(v))) if m.is_count else float(v)


# ---------------------------------------------------------------- evaluate


def evaluate(qrels, run, measures=None, *, per_query: bool = False,
             judged_docs_only: bool = False, relevance_level: int = 1, compat: int = 10,
             complete: bool = False, max_depth: int | None = None, ties: str = "trec_eval",
             num_docs: int = 0, name: str = "run"):
    """trec_eval's values of one run against qrels, as `workbench eval` gives them.

    qrels, run: a path of a TREC file (qrels also ``"irds:ID"``, an ir_datasets dataset's);
    a ``{qid: {doc_id: grade}}`` (``{qid: {doc_id:
    score}}``) dict; a pandas DataFrame with columns ``query_id``, ``doc_id`` and
    ``relevance`` (``score``); or an iterable of records with those attributes.
    measures: names as `eval -m` takes them (``"map"``, ``"P.5,10"``, ``"nDCG@10"``,
    ir_measures objects), one or a list; default trec_eval's official set.
    Options: judged_docs_only (-J), relevance_level (-l), compat (9 or 10), complete (-c),
    max_depth (-M), ties (trec_eval, input, rank), num_docs (-N).

    Returns `Results` (measure -> value), or with per_query `PerQueryResults`
    (qid -> measure -> value, and `.all`). Raises ValueError (MeasureError for a bad
    measure name, InputError for a bad file line).
    """
    from workbench.evaluation import evaluate_arrays
    from workbench.metrics.requested import evaluated_measures

    asked = evaluated_measures(_measure_names(measures), compat=int(compat))
    q, (arrays,) = _arrays(qrels, [run], [name], ties)
    (result,) = evaluate_arrays(q, [arrays], asked.measures, names=[arrays.tag or name],
                                rel_level=relevance_level, ties=ties, max_depth=max_depth,
                                complete=complete, compat=int(compat),
                                judged_only=judged_docs_only, num_docs=num_docs, jobs=1)
    ev = result.evaluation
    n = len(ev.qids)
    summary = {label: _value(m, ev.summary.get(m, 0.0), ev.tag or name, n)
               for m, label in zip(asked.measures, asked.names) if not m.is_text}
    all_ = Results(summary)
    if not per_query:
        return all_
    cols = [(m, label, ev.per_query[m].tolist()) for m, label in zip(asked.measures, asked.names)
            if not m.summary_only]
    values = {}
    for i, qid in enumerate(ev.qids):
        values[qid] = {label: (str(v[i]) if m.is_text
                               else int(round(v[i])) if m.is_count else v[i])
                       for m, label, v in cols}
    return PerQueryResults(values, all_)


# ---------------------------------------------------------------- compare


def compare(runs, qrels, measure: str = FILES_MEASURE, *, test: str = "t", relevance_level: int = 1,
            seed: int = 0, n_resamples: int | None = None, rbo_p: float = 0.9):
    """Rank runs by one measure and test every pair (paired t, randomization or bootstrap
    test over the queries both were evaluated on, Holm-adjusted), as `workbench compare
    --run` does.

    runs: a mapping name -> run, or a sequence of runs (named ``run0``, ``run1``, ...);
    each run in any form `evaluate` takes. Returns a
    `workbench.campaign.comparison.systems.ComparisonReport` (`.rankings`, `.means`,
    `.tests`, `.to_json()`).
    """
    from workbench.campaign.comparison.systems import SourceScores, compare_tables
    from workbench.metrics.evaluate import evaluate_many
    from workbench.metrics.measures import parse_measures

    found = parse_measures([str(measure)])
    if len(found) != 1:
        raise ValueError(f"compare ranks by one measure at a time; {measure!r} names {len(found)}")
    (m,) = found
    if isinstance(runs, Mapping):
        names, given = [str(k) for k in runs], list(runs.values())
    else:
        given = list(runs)
        names = [f"run{k}" for k in range(len(given))]
    (qid, docno, rel), arrays = _arrays(qrels, given, names)
    evaluations = evaluate_many(qid, docno, rel, arrays, [m], rel_level=relevance_level)
    column: dict[str, int] = {}
    for ev in evaluations:
        for q in ev.qids:
            column.setdefault(q, len(column))
    values = np.zeros((len(names), len(column)))
    present = np.zeros((len(names), len(column)), dtype=bool)
    means = np.full(len(names), math.nan)
    for i, ev in enumerate(evaluations):
        cols = np.array([column[q] for q in ev.qids], dtype=np.int64)
        values[i, cols] = ev.per_query[m]
        present[i, cols] = True
        if ev.qids:
            means[i] = ev.summary[m]
    source = SourceScores("qrels", tuple(names), values, present, means, present.any(axis=1))
    return compare_tables(str(measure), [source], test=test, seed=seed,
                          n_resamples=n_resamples, rbo_p=rbo_p)


# ---------------------------------------------------------------- agreement


def _paired_labels(labels_a, labels_b):
    """Two aligned label arrays: from arrays (same length; NaN / None = no label) or from
    mappings item -> grade (the items both have)."""
    if isinstance(labels_a, Mapping) and isinstance(labels_b, Mapping):
        common = [k for k in labels_a if k in labels_b]
        a = np.array([labels_a[k] for k in common], dtype=np.float64)
        b = np.array([labels_b[k] for k in common], dtype=np.float64)
        return a, b
    if isinstance(labels_a, Mapping) or isinstance(labels_b, Mapping):
        raise TypeError("give both labels as arrays or both as mappings item -> grade")
    a = np.array([math.nan if v is None else v for v in labels_a], dtype=np.float64)
    b = np.array([math.nan if v is None else v for v in labels_b], dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"the two label arrays differ in length ({a.size} vs {b.size})")
    return a, b


def agreement(labels_a, labels_b, *, weights: str = "linear", confidence: float = 0.95,
              resamples: int | None = None, seed: int = 0) -> dict:
    """Agreement of two assessors on the same items, as `workbench agree` reports it.

    labels: two equally long arrays of grades (NaN or None: not labelled), or two mappings
    item -> grade (compared on the items both labelled). Returns a dict: ``n`` (items both
    labelled), ``observed`` (share of equal grades), ``cohen_kappa`` with ``cohen_kappa_ci``
    (its asymptotic interval), ``weighted_kappa`` (`weights`: linear or quadratic),
    ``krippendorff_alpha`` (nominal, ordinal and interval) with ``krippendorff_alpha_ci``
    (bootstrap percentile intervals over the items).
    """
    from workbench.metrics import agreement as ag
    from workbench.metrics import agreement_ci as ci

    a, b = _paired_labels(labels_a, labels_b)
    both = ~(np.isnan(a) | np.isnan(b))
    pa, pb = a[both], b[both]
    cats = np.unique(np.concatenate([pa, pb])) if pa.size else None
    matrix = np.column_stack([a, b])  # items x assessors, NaN = missing
    kw = {} if resamples is None else {"resamples": resamples}
    intervals = ci.bootstrap_intervals(matrix, confidence=confidence, seed=seed, **kw)
    return {
        "n": int(both.sum()),
        "observed": ag.observed_agreement(pa, pb) if pa.size else math.nan,
        "cohen_kappa": ag.cohen_kappa(pa, pb, categories=cats),
        "cohen_kappa_ci": tuple(ci.cohen_kappa_ci(pa, pb, confidence, categories=cats)),
        "weighted_kappa": ag.weighted_kappa(pa, pb, weights, categories=cats),
        "krippendorff_alpha": {level: ag.krippendorff_alpha(matrix, level)
                               for level in ("nominal", "ordinal", "interval")},
        "krippendorff_alpha_ci": {level: tuple(intervals[f"krippendorff_alpha_{level}"])
                                  for level in ("nominal", "ordinal", "interval")},
    }


# ---------------------------------------------------------------- rank correlation


def _scores(x, y):
    """Two aligned score arrays: from sequences, or from mappings system -> score (the
    systems both have, in x's order)."""
    if isinstance(x, Mapping) and isinstance(y, Mapping):
        common = [k for k in x if k in y]
        return [x[k] for k in common], [y[k] for k in common]
    return x, y


def kendall_tau(x, y, variant: str = "b") -> float:
    """Kendall's tau (tau-b by default, as scipy.stats.kendalltau; ``variant="a"``) of two
    score vectors (sequences, or mappings system -> score)."""
    from workbench.metrics.correlation import kendall_tau as tau

    a, b = _scores(x, y)
    return tau(a, b, variant)


def tau_ap(x, y) -> float:
    """Yilmaz et al.'s AP correlation of y's ranking against x's (the reference): two score
    vectors or mappings system -> score; higher scores rank first."""
    from workbench.metrics.correlation import tau_ap as tap

    a, b = _scores(x, y)
    return tap(a, b)


def rbo(list_a: Sequence, list_b: Sequence, p: float = 0.9) -> float:
    """Rank-biased overlap (Webber et al.'s RBO_ext) of two ranked lists, best first."""
    from workbench.metrics.correlation import rbo as rbo_ext

    return rbo_ext(list(list_a), list(list_b), p)
