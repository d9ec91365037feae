"""`list queries` / `list docs` count people's judgments only: with a
machine's labels on every pooled item they said "judged 42, done 280%"."""

from __future__ import annotations

import math
from collections import Counter

from tests.campaign.machine_campaign import build_machine_campaign
from workbench.campaign.catalog.listing import listing
from workbench.campaign.pooling.assign import build_pool


def test_machine_labels_are_not_counted_as_judged(db, tmp_path):
    c = build_machine_campaign(db, tmp_path / "f", n_queries=4, people=("alice", "bob"),
                               judged_share=0.3)
    build_pool(db, 2)  # a shallow pool: the machine labelled far more than it holds
    people = [item for grades in c.people.values() for item in grades]
    judged = {q: len({d for qq, d in people if qq == q}) for q in c.queries}
    judgments = Counter(q for q, _d in people)
    rows = {r[0]: r for r in listing(db, "queries").rows}
    for q in c.queries:
        _q, _title, pool, n_judged, n_judgments, _assessors, done = rows[q]
        assert (n_judged, n_judgments) == (judged[q], judgments[q]), q
        assert math.isclose(done, judged[q] / pool) if pool else math.isnan(done)
    per_doc = Counter(d for _q, d in people)
    docs = {r[0]: r[3] for r in listing(db, "docs").rows}
    assert {d: n for d, n in docs.items() if n} == dict(per_doc)
