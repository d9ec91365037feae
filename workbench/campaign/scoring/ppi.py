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

import numpy as np

from workbench.campaign.scoring.intervals import CONFIDENCE, ScoreIntervals
from workbench.campaign.scoring.scores import ScoreTable
from workbench.campaign.scoring.sources import MAJORITY, QrelsSource
from workbench.errors import UsageError
from workbench.metrics.measures import Measure
from workbench.metrics.ppi import ppi_population_mean

__all__ = ["ppi_intervals", "refuse_reason"]

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


def ppi_intervals(db, table: ScoreTable, source: QrelsSource, *, threshold: int | None = None,
                  confidence: float = CONFIDENCE) -> ScoreIntervals:
    """The PPI interval of every system's P@k (see the module docstring)."""
    from workbench.campaign.catalog.known import known_assessor
    from workbench.campaign.scoring.qrels import qrels_ids
    from workbench.campaign.scoring.scores import load_runs
    from workbench.campaign.settings import campaign_threshold
    from workbench.store.machine import MACHINE, assessor_kind
    from workbench.store.validation import validation_items

    if source.kind != "hybrid":
        raise UsageError("--ci ppi needs --source hybrid:MACHINE: the machine's labels with "
                         "people's on its validation sample")
    for m in table.measures:
        reason = refuse_reason(m)
        if reason:
            raise UsageError(reason)
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
            raise UsageError(f"{machine}'s validation sample is a disagreement sample: it has no "
                             "inclusion probabilities, so it cannot stand for the machine's "
                             "labels; draw a stratified sample for --ci ppi")
        runs = load_runs(s, scores=False)
        mq, md, mg = qrels_ids(s, QrelsSource.assessor(machine))
        hq, hd, hg = qrels_ids(s, MAJORITY)
    width = int(max(md.max(initial=0), hd.max(initial=0), sample.document_id.max(initial=0),
                    runs.stored.document_id.max(initial=0))) + 1
    m_keys, m_rel = mq * width + md, (mg >= level).astype(np.float64)
    h_keys, h_rel = hq * width + hd, (hg >= level).astype(np.float64)
    s_keys = sample.query_id * width + sample.document_id
    order = np.argsort(s_keys)
    s_keys, s_prob = s_keys[order], sample.probability[order]
    judged = np.isin(s_keys, h_keys)
    warnings: list[str] = []
    if not judged.all():
        warnings.append(f"{int((~judged).sum())} of the {s_keys.size} validation items are not "
                        "judged by people yet: the interval uses the judged ones as if the "
                        "others had not been drawn")
    stored = runs.stored
    q = stored.query_id.astype(np.int64)
    n = q.size
    new = np.ones(n, dtype=bool)
    new[1:] = q[1:] != q[:-1]
    new[stored.offsets[:-1][stored.offsets[:-1] < n]] = True
    heads = np.flatnonzero(new)
    rank = np.arange(n) - np.repeat(heads, np.diff(np.append(heads, n)))  # 0-based
    keys = q * width + stored.document_id.astype(np.int64)
    qid_of = {name.decode("utf-8"): int(i) for i, name in zip(runs.queries.ids.tolist(),
                                                                runs.queries.names.tolist())}
    bounds, estimates = {}, {}
    for m in table.measures:
        k = int(m.cutoff)
        row = []
        means = np.full(len(table.systems), np.nan)
        for i, system in enumerate(table.systems):
            queries = [qid_of[table.queries[j]] for j in np.flatnonzero(table.present[i]).tolist()]
            a, b = int(stored.offsets[i]), int(stored.offsets[i + 1])
            mine = np.arange(a, b)
            mine = mine[(rank[mine] < k) & np.isin(q[mine], queries)]
            item = keys[mine]
            slots = len(queries) * k
            if not slots:
                row.append(None)
                continue
            pos = np.searchsorted(m_keys, item)
            labelled = (pos < m_keys.size) & (m_keys[np.minimum(pos, m_keys.size - 1)] == item)
            yhat = np.zeros(slots)
            yhat[:item.size] = np.where(labelled, m_rel[np.minimum(pos, m_keys.size - 1)], 0.0)
            sp = np.searchsorted(s_keys, item)
            in_sample = (sp < s_keys.size) & (s_keys[np.minimum(sp, s_keys.size - 1)] == item)
            sp = np.minimum(sp, s_keys.size - 1)
            use = in_sample & judged[sp]
            if not use.any():
                row.append(None)
                warnings.append(f"{system}: no judged validation item in its top {k}: no "
                                f"interval for {table.name_of(m)}")
                continue
            hp = np.searchsorted(h_keys, item[use])
            y = h_rel[np.minimum(hp, h_keys.size - 1)]
            est, lo, hi = ppi_population_mean(yhat, y, yhat[:item.size][use], s_prob[sp[use]],
                                              alpha=1 - confidence, in_frame=int(labelled.sum()))
            row.append((lo, hi))
            means[i] = est
            if int(use.sum()) < 5:
                warnings.append(f"{system}: only {int(use.sum())} judged validation items in its "
                                f"top {k}: the interval of {table.name_of(m)} is unreliable")
        bounds[m] = row
        estimates[m] = np.where(np.isnan(means), table.means[m], means)
    return ScoreIntervals("ppi", confidence, bounds, warnings, estimates)
