"""`agree --nugget`: agreement between assessors on nugget assignments, through the
agreement report of grades (campaign/agreement/report.py over metrics/agreement.py).

An item is one (topic, run, nugget); its labels are 2 support, 1 partial_support,
0 not_support. Three views: the three labels (Cohen's, weighted kappa, Fleiss, alpha
with CIs, confusion matrices), the non-strict binary view (support or partial vs not:
labels >= 1) and the strict one (support vs the rest: labels >= 2)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workbench.campaign.agreement.report import compute_agreement, labels_from_rows
from workbench.campaign.assessors.roster import unknown_assessor
from workbench.campaign.database import Database
from workbench.errors import UsageError
from workbench.store.nuggets import assessor_kinds, labelled_rows, query_names, system_tags


def nugget_labels(db: Database, assessors: Sequence[str] | None = None):
    """Labels (items x assessors) of the people's nugget assignments, or of the named
    assessors (machines included when named)."""
    with db.reader() as reader:
        kinds = assessor_kinds(reader)
        by_name = {name: aid for aid, (name, _) in kinds.items()}
        if assessors:
            missing = [a for a in assessors if a not in by_name]
            if missing:
                raise unknown_assessor(missing[0])
            names = list(dict.fromkeys(assessors))
        else:
            names = [n for aid, (n, k) in sorted(kinds.items()) if k != "machine"]
        ids = [by_name[n] for n in names]
        rows = labelled_rows(reader, ids)
        queries = query_names(reader)
        tags = system_tags(reader)
    if not assessors:  # only people with a label take part
        have = set(np.unique(rows["assessor"]).tolist())
        names = [n for n, i in zip(names, ids) if i in have]
        ids = [i for i in ids if i in have]
    column = {aid: k for k, aid in enumerate(ids)}
    raters = np.array([column[int(a)] for a in rows["assessor"]], dtype=np.int64)
    topic = np.array([queries[int(q)][0] for q in rows["query"]], dtype=object).astype(str)
    item = np.array([f"{tags[int(s)]}\t{int(n)}" for s, n in zip(rows["system"], rows["nugget"])],
                    dtype=object).astype(str)
    return labels_from_rows(names, topic, item, raters, rows["label"])


VIEWS = ("", "non_strict", "strict")  # the three labels, support-or-partial vs not, support vs the rest


def nugget_reports(db: Database, assessors: Sequence[str] | None = None, *,
                   per_query: bool = False) -> dict:
    """The agreement reports of the three views: "" (the three labels), "non_strict"
    (labels >= 1) and "strict" (labels >= 2)."""
    if assessors is not None and len(set(assessors)) < 2:
        raise UsageError(f"agreement needs at least two assessors; {len(set(assessors))} named")
    labels = nugget_labels(db, assessors)
    return {
        "": compute_agreement(labels, per_query=per_query),
        "non_strict": compute_agreement(labels, binary=True, threshold=1, per_query=per_query),
        "strict": compute_agreement(labels, binary=True, threshold=2, per_query=per_query),
    }


def nugget_agreement(db: Database, assessors: Sequence[str] | None = None, *,
                     per_query: bool = False) -> dict:
    """The JSON of `agree --nuggets --format json`: `agree --format json`'s shape over the
    three labels, with `non_strict` and `strict` holding the same over the binary views."""
    return reports_json(nugget_reports(db, assessors, per_query=per_query))


def reports_json(reports: dict) -> dict:
    full = reports[""].to_json(confusion=True)
    full["labels"] = {"2": "support", "1": "partial_support", "0": "not_support"}
    full["non_strict"] = reports["non_strict"].to_json(confusion=True)
    full["strict"] = reports["strict"].to_json(confusion=True)
    return full
