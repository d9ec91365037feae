"""Judge panels: a virtual machine assessor (`panel:NAME`) whose label of an item is an
aggregate of its member machines' stored labels of that item, computed when read and never
stored.

Aggregates (over the members that labelled the item):
- `majority`: the most frequent grade, ties to the lower grade (as UMBRELA's ensemble did,
  and as the people's majority consensus does: `metrics/consensus.py`);
- `mean`: the mean grade rounded half up (as the mean consensus);
- `median`: the median grade, the mean of the two middle grades rounded half up for an
  even count;
- `dawid-skene`: Dawid & Skene's EM over the members' confusion matrices
  (metrics/dawid_skene.py: seeded, fixed iteration cap and tolerance).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from workbench.campaign.database import Database
from workbench.errors import NotFoundError, UsageError

if TYPE_CHECKING:
    from workbench.store.database import Session

AGGREGATES = ("majority", "median", "mean", "dawid-skene")
PREFIX = "panel:"
DAWID_SKENE_SEED = 0


def create_panel(db: Database, name: str, members: Sequence[str], aggregate: str) -> None:
    """Store the panel `name` of machine assessors `members` (at least two, distinct)."""
    from workbench.campaign.assessors.roster import unknown_assessor
    from workbench.campaign.writing import write_transaction
    from workbench.names import check_name
    from workbench.store.external_ids import assessor_id
    from workbench.store.machine import MACHINE, assessor_kind
    from workbench.store.panels import add_panel, panel_exists

    name = check_name(name)
    if aggregate not in AGGREGATES:
        raise UsageError(f"unknown aggregate {aggregate!r}; expected {', '.join(AGGREGATES)}")
    if len(members) < 2:
        raise UsageError("a panel needs at least two --member MACHINE")
    if len(set(members)) != len(members):
        raise UsageError("a panel member is given twice")
    with write_transaction(db) as s:
        if panel_exists(s, name):
            raise UsageError(f"a panel named {name!r} exists already")
        if assessor_id(s, name) is not None:
            raise UsageError(f"{name!r} is an assessor's name; a panel needs a name of its own")
        ids = []
        for m in members:
            aid = assessor_id(s, m)
            if aid is None:
                raise unknown_assessor(m)
            if assessor_kind(s, aid) != MACHINE:
                raise UsageError(f"{m!r} is not a machine assessor; a panel's members are machines")
            ids.append(aid)
        add_panel(s, name, aggregate, ids)


def list_panels(db: Database):
    from workbench.store.panels import panel_definitions

    with db.read() as s:
        return panel_definitions(s)


def panel_definition(session: Session, name: str):
    from workbench.store.panels import panel_definitions

    found = panel_definitions(session, name)
    if not found:
        raise NotFoundError(f"unknown panel {name!r} (workbench panel list)")
    return found[0]


def _median(qi: np.ndarray, di: np.ndarray, g: np.ndarray):
    """One grade per item: the median, the two middle grades' mean rounded half up."""
    order = np.lexsort((g, di, qi))
    qi, di, g = qi[order], di[order], g[order]
    new = np.ones(qi.size, dtype=bool)
    new[1:] = (qi[1:] != qi[:-1]) | (di[1:] != di[:-1])
    starts = np.flatnonzero(new)
    n = np.diff(np.append(starts, qi.size))
    low, high = g[starts + (n - 1) // 2], g[starts + n // 2]
    total = low + high  # floor(total / 2 + 1/2) = floor((total + 1) / 2)
    return qi[starts], di[starts], (total + 1) // 2


def aggregate_labels(qi: np.ndarray, di: np.ndarray, member: np.ndarray, g: np.ndarray, aggregate: str,
                     n_members: int, *, seed: int = DAWID_SKENE_SEED):
    """(query id, document id, grade) per item, sorted by item, from the members' labels
    (one row per member and item)."""
    from workbench.metrics.consensus import combine_grades

    if qi.size == 0 or aggregate in ("majority", "mean"):
        return combine_grades(qi, di, g, aggregate if aggregate in ("majority", "mean") else "majority")
    if aggregate == "median":
        return _median(qi, di, g)
    if aggregate != "dawid-skene":
        raise UsageError(f"unknown aggregate {aggregate!r}")
    from workbench.metrics.dawid_skene import dawid_skene

    keys = np.stack([qi, di], axis=1)
    items, item = np.unique(keys, axis=0, return_inverse=True)
    grades, code = np.unique(g, return_inverse=True)
    labels, _ = dawid_skene(item.ravel(), member, code.ravel(), items.shape[0], n_members, grades.size, seed=seed)
    return items[:, 0], items[:, 1], grades[labels]


def panel_grades(session: Session, name: str, *, query_ids: Sequence[int] | None = None):
    """The panel's derived labels: (query id, document id, grade) int64 arrays by item."""
    from workbench.store.judgment_arrays import current_judgments

    panel = panel_definition(session, name)
    rows = current_judgments(session, assessor_ids=list(panel.member_ids), query_ids=query_ids)  # one read
    ids = np.asarray(panel.member_ids, dtype=np.int64)
    order = np.argsort(ids)
    member = order[np.searchsorted(ids, np.asarray(rows.assessor_id, dtype=np.int64), sorter=order)]
    return aggregate_labels(np.asarray(rows.query_id, dtype=np.int64), np.asarray(rows.document_id, dtype=np.int64),
                            member, np.asarray(rows.grade, dtype=np.int64), panel.aggregate, len(ids))
