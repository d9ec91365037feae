"""`calibrate --nuggets --machine NAME`: a machine's nugget labels against the people's
(majority, or one assessor), with the grades' calibration figures
(campaign/agreement/calibration.py: its agreement and ranking computations are reused):
on the (nugget, run) items both labelled, Cohen's kappa on the non-strict view (support or
partial vs not) and on the strict view (support vs the rest) with CIs, linear-weighted
kappa on the three labels, the confusion matrix, leniency, precision and recall per label;
and the runs ranked by a nugget score under the people's, the machine's and the hybrid
labels (tau-b, tau_AP, RBO with bootstrap CIs over topics; top 3 and top 10 the same)."""

from __future__ import annotations

import numpy as np

from workbench.campaign.agreement import calibration as cal
from workbench.campaign.answers.labels import source_labels
from workbench.campaign.answers.scores import checked_measures, nugget_table
from workbench.campaign.database import Database
from workbench.campaign.scoring.sources import QrelsSource
from workbench.defaults import CALIBRATE_NUGGETS_MEASURE
from workbench.errors import UsageError
from workbench.metrics import agreement_ci as aci

SCALE = np.array([0, 1, 2])


def _reference(against: str) -> QrelsSource:
    return QrelsSource.consensus("majority") if against == "majority" else QrelsSource.assessor(against)


def calibrate_nuggets(db: Database, machine: str, against: str = "majority",
                      measure: str = CALIBRATE_NUGGETS_MEASURE,
                      *, seed: int = 0, resamples: int = cal.RESAMPLES) -> dict:
    from workbench.store.nuggets import assessor_kinds

    (measure,) = checked_measures([measure])
    reference = _reference(against)
    with db.reader() as reader:
        kinds = {name: kind for name, kind in assessor_kinds(reader).values()}
        if kinds.get(machine) != "machine":
            raise UsageError(f"{machine!r} is not a machine assessor")
        hn, hs, hl = source_labels(reader, reference)
        mn, ms, ml = source_labels(reader, QrelsSource.assessor(machine))
    span = int(max(hs.max(initial=0), ms.max(initial=0))) + 1
    h_key, m_key = hn * span + hs, mn * span + ms
    common, hi, mi = np.intersect1d(h_key, m_key, return_indices=True)
    if common.size == 0:
        raise UsageError(f"{machine!r} and {reference.label} labelled no nugget of the same answer")
    h, m = hl[hi], ml[mi]
    non_strict = cal._agreement(h, m, SCALE, 1, resamples=resamples, seed=seed)
    strict = cal._agreement(h, m, SCALE, 2, resamples=resamples, seed=seed)
    tables = [nugget_table(db, src, [measure]) for src in
              (reference, QrelsSource.assessor(machine), QrelsSource.hybrid(machine))]
    systems = tables[0].systems
    q = len(tables[0].queries)
    weights = aci.resample_counts(q, resamples, seed) if q else np.zeros((0, 0))
    means = [t.means[measure] for t in tables]
    boots = [(t.values[measure] @ weights.T) / weights.sum(axis=1) for t in tables] if q else means
    rankings = {name: cal._ranking_json(cal._ranking_pair(systems, means[0], means[j], boots[0], boots[j]))
                for name, j in (("human_vs_machine", 1), ("human_vs_hybrid", 2))}
    return {
        "machine": machine, "against": reference.label, "items": int(common.size),
        "labels": {"2": "support", "1": "partial_support", "0": "not_support"},
        "non_strict": cal._agreement_json(non_strict, SCALE),
        "strict": {k: v for k, v in cal._agreement_json(strict, SCALE).items()
                   if k in ("items", "kappa_binary", "kappa_binary_ci")},
        "rankings": {"measure": measure, "topics": q, "systems": len(systems), **rankings},
    }
