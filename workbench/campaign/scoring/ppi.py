"""`score --source hybrid:MACHINE --ci ppi`: prediction-powered intervals of each system's
P@k under people's labels, from the machine's labels on every item and people's labels on
the machine's stratified validation sample (docs/uncertainty.md).

For system s, P@k is the mean over its Q topics of the share of relevant documents in its
top k: the mean of y over the Q x k slots of its top-k lists (a slot beyond the end of a
short list holds 0, as trec_eval divides by k). With yhat the machine's relevance (grade >=
the threshold; 0 where it gave no label) and y the people's (their majority on the sampled
items), P@k = mean(yhat) + mean(y - yhat). The first term is exact; the rectifier is 0
outside the sampling frame (the items the machine labelled: no label either way) and is
estimated inside it by Hajek's weighted mean over the sampled items in s's top k that people
judged, with the stored inclusion probabilities (metrics/ppi.py, metrics/weighting.py).

PPI needs a measure that is a mean of item labels within a query; P@k is, with weights
that do not depend on the labels. nDCG, AP, bpref and R-precision divide by quantities the
labels themselves set (the ideal DCG, the number of relevant documents): refused.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.campaign.scoring.intervals import CONFIDENCE, ScoreIntervals
from workbench.campaign.scoring.scores import ScoreTable
from workbench.campaign.scoring.sources import MAJORITY, QrelsSource
from workbench.errors import UsageError
from workbench.metrics.measures import Measure
from workbench.metrics.noncentral_t import normal_isf
from workbench.metrics.ppi import ppi_population_mean

__all__ = ["ppi_intervals", "ppi_pair_differences", "refuse_reason"]

_NOT_A_MEAN = {
    "ndcg": "it divides by the ideal DCG, which the labels themselves set",
    "ndcg_cut": "it divides by the ideal DCG, which the labels themselves set",
    "map": "it divides by the number of relevant documents, which the labels set",
    "bpref": "it counts judged non-relevant documents above each relevant one and divides by R",
    "Rprec": "its cutoff R is the number of relevant documents, which the labels set",
}


def refuse_reason(m: Measure) -> str | None:
    """Why `--ci ppi` cannot give `m` an interval (None: it can)."""
    if m.family == "P" and m.cutoff and not m.judged_only:
        return None
    why = _NOT_A_MEAN.get(m.family)
    if why:
        return f"{m}: --ci ppi needs a mean of item labels within a query; {why}"
    return (f"{m}: --ci ppi covers P@k (a mean of item labels within a query with fixed "
            f"weights); choose -m P@k")


class _Labels:
    """The arrays PPI reads, once: the machine's and the people's relevance by item key, the
    validation sample (sorted keys, probabilities, judged by people), the runs' top-k rows."""

    def __init__(self, db, source: QrelsSource, threshold: int | None) -> None:
        from workbench.campaign.assessors.roster import known_assessor
        from workbench.campaign.scoring.qrels import qrels_ids
        from workbench.campaign.scoring.scores import load_runs
        from workbench.campaign.settings import campaign_threshold
        from workbench.store.machine import MACHINE, assessor_kind
        from workbench.store.validation import validation_items

        if source is None or source.kind != "hybrid":
            raise UsageError("--ci ppi needs --source hybrid:MACHINE: the machine's labels with "
                             "people's on its validation sample")
        machine = source.name
        level = campaign_threshold(db) if threshold is None else threshold
        with db.read() as s:
            mid = known_assessor(s, machine)
            if assessor_kind(s, mid) != MACHINE:
                raise UsageError(f"{machine!r} is not a machine assessor")
            sample = validation_items(s, mid)
            if not len(sample):
                raise UsageError(f"{machine} has no validation sample: draw one with "
                                 f"`workbench pool --validate` and have people judge it")
            if not np.isfinite(sample.probability).all():
                raise UsageError(f"{machine}'s validation sample is a disagreement sample: it has "
                                 "no inclusion probabilities, so it cannot stand for the "
                                 "machine's labels; draw a stratified sample for --ci ppi")
            runs = load_runs(s, scores=False)
            mq, md, mg = qrels_ids(s, QrelsSource.assessor(machine))
            hq, hd, hg = qrels_ids(s, MAJORITY)
        width = int(max(md.max(initial=0), hd.max(initial=0), sample.document_id.max(initial=0),
                        runs.stored.document_id.max(initial=0))) + 1
        self.m_keys, self.m_rel = mq * width + md, (mg >= level).astype(np.float64)
        self.h_keys, self.h_rel = hq * width + hd, (hg >= level).astype(np.float64)
        s_keys = sample.query_id * width + sample.document_id
        order = np.argsort(s_keys)
        self.s_keys, self.s_prob = s_keys[order], sample.probability[order]
        self.judged = np.isin(self.s_keys, self.h_keys)
        stored = runs.stored
        q = stored.query_id.astype(np.int64)
        n = q.size
        new = np.ones(n, dtype=bool)
        new[1:] = q[1:] != q[:-1]
        new[stored.offsets[:-1][stored.offsets[:-1] < n]] = True
        heads = np.flatnonzero(new)
        self.rank = np.arange(n) - np.repeat(heads, np.diff(np.append(heads, n)))  # 0-based
        self.q = q
        self.keys = q * width + stored.document_id.astype(np.int64)
        self.offsets = stored.offsets
        self.qid_of = {name.decode("utf-8"): int(i) for i, name in
                       zip(runs.queries.ids.tolist(), runs.queries.names.tolist())}

    def warnings(self) -> list[str]:
        missing = int((~self.judged).sum())
        if not missing:
            return []
        return [f"{missing} of the {self.s_keys.size} validation items are not judged by people "
                "yet: the interval uses the judged ones as if the others had not been drawn"]

    def top(self, i: int, k: int, queries: list[int]) -> np.ndarray:
        """Item keys of system i's top k on `queries`."""
        rows = np.arange(int(self.offsets[i]), int(self.offsets[i + 1]))
        rows = rows[(self.rank[rows] < k) & np.isin(self.q[rows], queries)]
        return self.keys[rows]

    def estimate(self, items: np.ndarray, coef: np.ndarray, slots: int, confidence: float):
        """(estimate, low, high, used) of sum(coef * y) / slots over `items` (y the people's
        relevance), PPI with the machine's relevance and the judged validation items."""
        mk = self.m_keys
        pos = np.minimum(np.searchsorted(mk, items), max(mk.size - 1, 0))
        labelled = (mk.size > 0) & (mk[pos] == items) if mk.size else np.zeros(items.size, bool)
        yhat = np.where(labelled, self.m_rel[pos] if mk.size else 0.0, 0.0) * coef
        sk = self.s_keys
        sp = np.minimum(np.searchsorted(sk, items), sk.size - 1)
        use = (sk[sp] == items) & self.judged[sp]
        if not use.any():
            return math.nan, math.nan, math.nan, 0
        hp = np.searchsorted(self.h_keys, items[use])
        y = self.h_rel[np.minimum(hp, self.h_keys.size - 1)] * coef[use]
        est, lo, hi = ppi_population_mean(yhat, y, yhat[use], self.s_prob[sp[use]],
                                          alpha=1 - confidence, in_frame=int(labelled.sum()),
                                          population=slots)
        return est, lo, hi, int(use.sum())


def _check_measures(measures) -> None:
    for m in measures:
        reason = refuse_reason(m)
        if reason:
            raise UsageError(reason)


def ppi_intervals(db, table: ScoreTable, source: QrelsSource, *, threshold: int | None = None,
                  confidence: float = CONFIDENCE) -> ScoreIntervals:
    """The PPI interval of every system's P@k (see the module docstring)."""
    _check_measures(table.measures)
    labels = _Labels(db, source, threshold)
    warnings = labels.warnings()
    bounds, estimates = {}, {}
    for m in table.measures:
        k = int(m.cutoff)
        row = []
        means = np.full(len(table.systems), np.nan)
        for i, system in enumerate(table.systems):
            queries = [labels.qid_of[table.queries[j]] for j in np.flatnonzero(table.present[i]).tolist()]
            if not queries:
                row.append(None)
                continue
            items = labels.top(i, k, queries)
            est, lo, hi, used = labels.estimate(items, np.ones(items.size), len(queries) * k, confidence)
            if not used:
                row.append(None)
                warnings.append(f"{system}: no judged validation item in its top {k}: no "
                                f"interval for {table.name_of(m)}")
                continue
            row.append((lo, hi))
            means[i] = est
            if used < 5:
                warnings.append(f"{system}: only {used} judged validation items in its top {k}: "
                                f"the interval of {table.name_of(m)} is unreliable")
        bounds[m] = row
        estimates[m] = np.where(np.isnan(means), table.means[m], means)
    return ScoreIntervals("ppi", confidence, bounds, warnings, estimates)


def ppi_pair_differences(db, table: ScoreTable, source: QrelsSource, measure: Measure,
                         pairs: list[tuple[str, str]], *, threshold: int | None = None,
                         confidence: float = CONFIDENCE):
    """For each (a, b): (estimate, low, high, p) of mean P@k(a) - P@k(b) over the topics both
    were scored on, PPI applied to each topic's difference (one estimate of the difference,
    not two separate ones): sum over items of (in a's top k - in b's top k) * y / (Q k).
    p is the two-sided normal test of a zero difference."""
    from workbench.metrics.noncentral_t import normal_cdf

    _check_measures([measure])
    labels = _Labels(db, source, threshold)
    k = int(measure.cutoff)
    out = {}
    for a, b in pairs:
        ia, ib = table.row(a), table.row(b)
        both = table.present[ia] & table.present[ib]
        queries = [labels.qid_of[table.queries[j]] for j in np.flatnonzero(both).tolist()]
        if not queries:
            out[(a, b)] = (math.nan,) * 4
            continue
        ka, kb = labels.top(ia, k, queries), labels.top(ib, k, queries)
        items = np.union1d(ka, kb)
        coef = np.isin(items, ka).astype(np.float64) - np.isin(items, kb)
        keep = coef != 0
        est, lo, hi, used = labels.estimate(items[keep], coef[keep], len(queries) * k, confidence)
        if not used:  # no sampled item where the lists differ: the machine's difference stands
            out[(a, b)] = (math.nan,) * 4
            continue
        se = (hi - lo) / (2 * normal_isf((1 - confidence) / 2))
        p = 1.0 if se == 0 and est == 0 else (0.0 if se == 0 else
                                             float(2 * normal_cdf(-abs(est) / se)))
        out[(a, b)] = (est, lo, hi, p)
    return out, labels.warnings()
