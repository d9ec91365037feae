"""`agree --machines`: the judges against each other. Every machine assessor, every judge
panel (`panel:NAME`, its derived labels) and the people's majority (`consensus:majority`)
become columns of one agreement report, so the pairs give the judge x judge matrix (Cohen's,
weighted kappa with intervals) and each judge against people, next to any panel: members
that agree with each other closely add little to a panel."""

from __future__ import annotations

import numpy as np

from workbench.campaign.database import Database

PEOPLE = "consensus:majority"


def machines_labels(db: Database):
    """Labels with a column per machine assessor (by name), per panel and for the people's
    majority (left out when no person graded)."""
    from workbench.campaign.agreement.report import labels_from_rows
    from workbench.campaign.assessors.panels import panel_grades
    from workbench.campaign.assessors.roster import machines
    from workbench.campaign.scoring.qrels import qrels_ids
    from workbench.campaign.scoring.sources import MAJORITY, QrelsSource
    from workbench.store import external_ids
    from workbench.store.panels import panel_definitions

    names: list[str] = []
    parts = []
    with db.read() as s:
        for m in machines(db):
            parts.append(qrels_ids(s, QrelsSource.assessor(m)))
            names.append(m)
        for p in panel_definitions(s):
            parts.append(panel_grades(s, p.name))
            names.append(f"panel:{p.name}")
        people = qrels_ids(s, MAJORITY)
        if len(people[0]):
            parts.append(people)
            names.append(PEOPLE)
        qi = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
        di = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
        g = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0, np.int64)
        col = np.concatenate([np.full(len(p[0]), k, dtype=np.int64) for k, p in enumerate(parts)]) if parts \
            else np.zeros(0, np.int64)
        q = external_ids.query_ext_ids(s, qi).astype(str)
        d = external_ids.document_ext_ids(s, di).astype(str)
    return labels_from_rows(names, q, d, col, g)


def agreement_of_machines(db: Database, *, binary: bool = False, threshold: int | None = None,
                          per_query: bool = False):
    from workbench.campaign.agreement.report import compute_agreement
    from workbench.campaign.settings import campaign_threshold

    labels = machines_labels(db)
    if threshold is None:
        threshold = campaign_threshold(db)
    return compute_agreement(labels, binary=binary, threshold=threshold, per_query=per_query)
