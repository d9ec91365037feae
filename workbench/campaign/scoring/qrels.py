"""Qrels derived from the stored judgments, as plain arrays (qid, docno, rel).

Sources (a `QrelsSource`: the names `workbench score`, `export qrels` and the lead screens use):
- an assessor's own current grades (a person's or a machine's);
- a consensus over the people's current grades (machine assessors never count in it):
  - ``majority``: the most frequent grade of the item; a tie goes to the LOWER of the tied
    grades (a cautious choice: two judges saying 1 and 3 give 1, never an inflated 3);
  - ``mean``: the mean grade rounded half up (1.5 -> 2, 2.5 -> 3), i.e. floor(mean + 0.5);
  - ``adjudicated``: a lead's Adjudication grade where there is one, else the majority;
- ``hybrid:MACHINE``: the people's majority where at least one person judged the item, the
  machine's label elsewhere (`machine` marks the grades that are the machine's);
- ``panel:NAME`` (and ``hybrid:panel:NAME``): a judge panel's labels, derived from its
  members' labels when read (campaign/assessors/panels.py).

Only `judgment` rows count: `repeat` events (self-consistency checks) never change qrels.
A negative grade (`import qrels` of a file with one: trec_eval's "in the pool, unjudged",
campaign/scale.py `is_unjudged`) is kept as written in every source, but it is no vote: a
consensus counts the grades of the item that are not negative, and gives a negative grade
only where every grade of the item is one (then the lowest of the most frequent); under
`hybrid:` an item only negative for the people takes the machine's label where it has one.
`qrels_ids` gives database ids (what scoring reads); `qrels_arrays` external ids, sorted by
(query ext id, document ext id), so output is deterministic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from workbench.campaign.scale import is_unjudged
from workbench.campaign.database import Database
from workbench.errors import UsageError
from workbench.metrics.consensus import combine_grades  # majority and mean, as arrays
from workbench.campaign.scoring.sources import CONSENSUS_METHODS, MAJORITY, QrelsSource
from workbench.store.judgment_arrays import adjudicated_grades, judgment_grades

if TYPE_CHECKING:  # annotations only: sessions come from the store's factories
    from workbench.store.database import Session

__all__ = ["CONSENSUS_METHODS", "QrelsArrays", "QrelsSource", "combine_grades", "derive_qrels",
           "majority_grade", "mean_grade", "qrels_arrays", "qrels_ids",
           "qrels_ids_with_origin"]


@dataclass(frozen=True)
class QrelsArrays:
    """Parallel arrays: qid[i], docno[i] (external ids, str), rel[i] (int64 grade) and
    machine[i] (True where the grade came from a machine assessor)."""

    qid: np.ndarray
    docno: np.ndarray
    rel: np.ndarray
    machine: np.ndarray | None = None  # bool: the grade is a machine's label (hybrid)

    def __len__(self) -> int:
        return len(self.rel)

    def rows(self) -> list[tuple[str, str, int]]:
        return list(zip(self.qid.tolist(), self.docno.tolist(), self.rel.tolist()))


def majority_grade(grades: Iterable[int]) -> int:
    """Most frequent grade; ties toward the lower grade."""
    counts = Counter(grades)
    best = max(counts.values())
    return min(g for g, c in counts.items() if c == best)


def mean_grade(grades: Iterable[int]) -> int:
    """Mean grade rounded half up (exact for integer grades: no float tie surprises)."""
    grades = list(grades)
    total, n = sum(grades), len(grades)
    # floor(total / n + 1/2) == floor((2 * total + n) / (2 * n)) in integers.
    return (2 * total + n) // (2 * n)


def _contains(qi: np.ndarray, di: np.ndarray, aq: np.ndarray, ad: np.ndarray) -> np.ndarray:
    """Where the item (aq, ad) is one of the items (qi, di), sorted by (qi, di)."""
    if qi.size == 0 or aq.size == 0:
        return np.zeros(aq.size, dtype=bool)
    width = int(max(di.max(), ad.max())) + 1
    keys, akeys = qi * width + di, aq * width + ad
    pos = np.minimum(np.searchsorted(keys, akeys), keys.size - 1)
    return keys[pos] == akeys


def _override(qi, di, g, aq, ad, ag):
    """The items (qi, di) with grades g, where (aq, ad) items take the grades ag instead
    (an adjudicated item without judgments is added)."""
    if aq.size == 0:
        return qi, di, g
    width = int(max(di.max(initial=0), ad.max())) + 1
    keys = qi * width + di
    akeys = aq * width + ad
    pos = np.searchsorted(keys, akeys)  # keys are sorted (combine_grades)
    pos_ok = np.minimum(pos, max(keys.size - 1, 0))
    hit = (pos < keys.size) & (keys[pos_ok] == akeys) if keys.size else np.zeros(akeys.size, bool)
    g = g.copy()
    g[pos[hit]] = ag[hit]
    if hit.all():
        return qi, di, g
    qi, di, g = np.concatenate((qi, aq[~hit])), np.concatenate((di, ad[~hit])), np.concatenate((g, ag[~hit]))
    order = np.lexsort((di, qi))
    return qi[order], di[order], g[order]


def qrels_ids(
    session: Session,
    source: QrelsSource | None = None,
    *,
    query_ids: list[int] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query id, document id, grade) int64 arrays of database ids from one source (default:
    the people's majority), sorted by (query id, document id): what scoring reads."""
    qi, di, g, _ = qrels_ids_with_origin(session, source, query_ids=query_ids)
    return qi, di, g


def qrels_ids_with_origin(
    session: Session,
    source: QrelsSource | None = None,
    *,
    query_ids: list[int] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """qrels_ids plus a bool array: True where the grade is a machine's label (a hybrid
    source's items that no person judged; an assessor source that is a machine)."""
    source = source or MAJORITY
    if source.kind != "consensus":  # a named assessor: the ORM's lookups (a consensus reads
        # SQL text only, through whatever `session` is: a Session or a plain Reader)
        from workbench.campaign.assessors.roster import known_assessor
        from workbench.store.machine import MACHINE, assessor_kind
    if source.kind == "panel":
        from workbench.campaign.assessors.panels import panel_grades

        qi, di, g = panel_grades(session, source.name, query_ids=query_ids)
        return qi, di, g, np.ones(qi.size, dtype=bool)
    if source.kind == "assessor":
        aid = known_assessor(session, source.name)
        own = judgment_grades(session, assessor_id=aid, query_ids=query_ids, unjudged=True)
        qi, di, g = _sorted(own.query_id, own.document_id, own.grade)
        machine = assessor_kind(session, aid) == MACHINE
        return qi, di, g, np.full(qi.size, machine)
    # a consensus is the people's: machine labels count only where the lead names one
    people = judgment_grades(session, query_ids=query_ids, people_only=True, unjudged=True)
    method = "mean" if source.name == "mean" else "majority"
    qi, di, g = combine_grades(people.query_id, people.document_id, people.grade, method)
    if source.kind == "consensus" and source.name == "adjudicated":
        final = adjudicated_grades(session, query_ids=query_ids)
        qi, di, g = _override(qi, di, g, final.query_id, final.document_id, final.grade)
    if source.kind != "hybrid":
        return qi, di, g, np.zeros(qi.size, dtype=bool)
    if source.name.startswith("panel:"):  # hybrid:panel:NAME
        from workbench.campaign.assessors.panels import panel_grades

        mq, md, mg = panel_grades(session, source.name[len("panel:"):], query_ids=query_ids)
    else:
        aid = known_assessor(session, source.name)
        if assessor_kind(session, aid) != MACHINE:
            raise UsageError(f"hybrid:{source.name}: {source.name!r} is not a machine assessor")
        labels = judgment_grades(session, assessor_id=aid, query_ids=query_ids, unjudged=True)
        mq, md, mg = _sorted(labels.query_id, labels.document_id, labels.grade)
    # an item the people left unjudged (negative grades only) is the machine's where it
    # has a label, and stays unjudged (the people's) elsewhere
    use = ~is_unjudged(g) | ~_contains(mq, md, qi, di)
    qi, di, g = qi[use], di[use], g[use]
    # the machine's labels, with the people's consensus wherever a person judged
    hq, hd, hg = _override(mq, md, np.zeros(mq.size, dtype=np.int64), qi, di, np.ones(qi.size, dtype=np.int64))
    _, _, grade = _override(mq, md, mg, qi, di, g)
    return hq, hd, grade, hg == 0


def _sorted(qi: np.ndarray, di: np.ndarray, g: np.ndarray):
    order = np.lexsort((di, qi))
    return qi[order], di[order], g[order]


def qrels_arrays(
    session: Session,
    source: QrelsSource | None = None,
    *,
    queries: Iterable[str] | None = None,
) -> QrelsArrays:
    """The qrels of one source (default: the people's majority) with external ids, sorted
    by (qid, docno), in `session`; `machine` says which grades are a machine's labels."""
    from workbench.store import external_ids

    query_ids = None if queries is None else external_ids.query_ids(session, queries)
    qi, di, g, machine = qrels_ids_with_origin(session, source, query_ids=query_ids)
    qid = external_ids.query_ext_ids(session, qi)
    docno = external_ids.document_ext_ids(session, di)
    # numpy compares str by code point, as Python does
    order = np.lexsort((docno.astype(str), qid.astype(str)))
    return QrelsArrays(qid[order], docno[order], g[order], machine[order])


def derive_qrels(
    db: Database,
    source: QrelsSource | None = None,
    *,
    queries: Iterable[str] | None = None,
) -> QrelsArrays:
    """Qrels arrays of one source (default: the people's majority), sorted."""
    source = source or MAJORITY
    # a consensus reads SQL text only: through the driver when no engine is open (dbapi)
    with (db.reader() if source.kind == "consensus" else db.read()) as session:
        return qrels_arrays(session, source, queries=queries)
