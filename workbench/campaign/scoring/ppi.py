"""`score --source hybrid:MACHINE --ci ppi`: prediction-powered intervals of each system's
score under people's labels, from the machine's labels on every item and people's labels on
the machine's stratified validation sample (docs/uncertainty.md).

The measures covered are, within a query, sums over ranks of a fixed weight times the gain
of the item there (metrics/linear.py: P@k, DCG@k, CG@k, RBP(rel=N)): the mean over the Q
topics is sum(w * y) / Q over the (topic, rank) slots of the system's lists. With yhat the
machine's gain (0 where it gave no label) and y the people's (their majority grade on the
sampled items), that is sum(w * yhat) / Q + sum(w * (y - yhat)) / Q. The first term is
exact; the rectifier is 0 outside the sampling frame (the items the machine labelled: no
label either way) and is estimated inside it by Hajek's weighted mean over the sampled items
in the system's lists that people judged, with the stored inclusion probabilities
(metrics/ppi.py, metrics/weighting.py).

nDCG, AP, bpref and R-precision divide by quantities the labels themselves set (the ideal
DCG, the number of relevant documents): refused, with the reason.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.campaign.scoring.intervals import CONFIDENCE, ScoreIntervals
from workbench.campaign.scoring.scores import ScoreTable
from workbench.campaign.scoring.sources import MAJORITY, QrelsSource
from workbench.errors import UsageError
from workbench.metrics.linear import LinearForm, linear_form, not_linear_reason
from workbench.metrics.measures import Measure
from workbench.metrics.noncentral_t import normal_isf
from workbench.metrics.ppi import ppi_population_mean

__all__ = ["ppi_intervals", "ppi_pair_differences", "refuse_reason"]

def refuse_reason(m: Measure) -> str | None:
    """Why `--ci ppi` cannot give `m` an interval (None: it can)."""
    why = not_linear_reason(m)
    return None if why is None else f"--ci ppi needs a sum of fixed rank weights times item labels within a query: {why}"


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
        self.level = level
        self.m_keys, self.m_grade = mq * width + md, mg
        self.h_keys, self.h_grade = hq * width + hd, hg
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

    def top(self, i: int, form: LinearForm, queries: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """(item keys, their weights) of system i's lists on `queries`, to the form's depth."""
        rows = np.arange(int(self.offsets[i]), int(self.offsets[i + 1]))
        keep = np.isin(self.q[rows], queries)
        if form.depth is not None:
            keep &= self.rank[rows] < form.depth
        rows = rows[keep]
        return self.keys[rows], form.weights(self.rank[rows] + 1)

    def estimate(self, items: np.ndarray, coef: np.ndarray, population: int, form: LinearForm,
                 confidence: float):
        """(estimate, low, high, used) of sum(coef * y) / population over `items` (y the
        people's gain), PPI with the machine's gains and the judged validation items."""
        mk = self.m_keys
        pos = np.minimum(np.searchsorted(mk, items), max(mk.size - 1, 0))
        labelled = (mk[pos] == items) if mk.size else np.zeros(items.size, bool)
        machine = form.gains(self.m_grade[pos], self.level) if mk.size else np.zeros(items.size)
        yhat = np.where(labelled, machine, 0.0) * coef
        sk = self.s_keys
        sp = np.minimum(np.searchsorted(sk, items), sk.size - 1)
        use = (sk[sp] == items) & self.judged[sp]
        if not use.any():
            return math.nan, math.nan, math.nan, 0
        hp = np.minimum(np.searchsorted(self.h_keys, items[use]), self.h_keys.size - 1)
        y = form.gains(self.h_grade[hp], self.level) * coef[use]
        est, lo, hi = ppi_population_mean(yhat, y, yhat[use], self.s_prob[sp[use]],
                                          alpha=1 - confidence, in_frame=int(labelled.sum()),
                                          population=population)
        return est, lo, hi, int(use.sum())


def _check_measures(measures) -> None:
    for m in measures:
        reason = refuse_reason(m)
        if reason:
            raise UsageError(reason)


def ppi_intervals(db, table: ScoreTable, source: QrelsSource, *, threshold: int | None = None,
                  confidence: float = CONFIDENCE) -> ScoreIntervals:
    """The PPI interval of every system's score (see the module docstring)."""
    _check_measures(table.measures)
    labels = _Labels(db, source, threshold)
    warnings = labels.warnings()
    bounds, estimates = {}, {}
    for m in table.measures:
        form = linear_form(m)
        where = f"top {m.cutoff}" if form.depth else "lists"
        row = []
        means = np.full(len(table.systems), np.nan)
        for i, system in enumerate(table.systems):
            queries = [labels.qid_of[table.queries[j]] for j in np.flatnonzero(table.present[i]).tolist()]
            if not queries:
                row.append(None)
                continue
            items, weight = labels.top(i, form, queries)
            est, lo, hi, used = labels.estimate(items, weight, len(queries), form, confidence)
            if not used:
                row.append(None)
                warnings.append(f"{system}: no judged validation item in its {where}: no "
                                f"interval for {table.name_of(m)}")
                continue
            row.append((lo, hi))
            means[i] = est
            if used < 5:
                warnings.append(f"{system}: only {used} judged validation items in its {where}: "
                                f"the interval of {table.name_of(m)} is unreliable")
        bounds[m] = row
        estimates[m] = np.where(np.isnan(means), table.means[m], means)
    return ScoreIntervals("ppi", confidence, bounds, warnings, estimates)


def ppi_pair_differences(db, table: ScoreTable, source: QrelsSource, measure: Measure,
                         pairs: list[tuple[str, str]], *, threshold: int | None = None,
                         confidence: float = CONFIDENCE):
    """For each (a, b): (estimate, low, high, p) of mean M(a) - M(b) over the topics both
    were scored on, PPI applied to each topic's difference (one estimate of the difference,
    not two separate ones): sum over items of (weight in a - weight in b) * y / Q (a weight
    is 0 where the item is not in that system's list). p is the two-sided normal test of a
    zero difference."""
    from workbench.metrics.noncentral_t import normal_cdf

    _check_measures([measure])
    labels = _Labels(db, source, threshold)
    form = linear_form(measure)
    out = {}
    for a, b in pairs:
        ia, ib = table.row(a), table.row(b)
        both = table.present[ia] & table.present[ib]
        queries = [labels.qid_of[table.queries[j]] for j in np.flatnonzero(both).tolist()]
        if not queries:
            out[(a, b)] = (math.nan,) * 4
            continue
        ka, wa = labels.top(ia, form, queries)
        kb, wb = labels.top(ib, form, queries)
        items = np.union1d(ka, kb)
        coef = np.zeros(items.size)
        np.add.at(coef, np.searchsorted(items, ka), wa)
        np.subtract.at(coef, np.searchsorted(items, kb), wb)
        keep = coef != 0
        est, lo, hi, used = labels.estimate(items[keep], coef[keep], len(queries), form, confidence)
        if not used:  # no sampled item where the lists differ: the machine's difference stands
            out[(a, b)] = (math.nan,) * 4
            continue
        se = (hi - lo) / (2 * normal_isf((1 - confidence) / 2))
        p = 1.0 if se == 0 and est == 0 else (0.0 if se == 0 else
                                             float(2 * normal_cdf(-abs(est) / se)))
        out[(a, b)] = (est, lo, hi, p)
    return out, labels.warnings()
