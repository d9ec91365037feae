"""A system's ranked list for one query with every assessor's grade: the lead's drill-down.

NOT blind (system names, ranks, every assessor's grade): lead screens only. The order is the
stored run's (trec_eval's: score descending, ties by docno descending), the grade under a
qrels source is qrels.qrels_ids', so the list and `workbench score` count the same documents.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.campaign.database import Database
from workbench.campaign.scoring.qrels import qrels_ids
from workbench.campaign.scoring.sources import QrelsSource
from workbench.store.rankings import query_grades, query_id_of, system_ranking


@dataclass(frozen=True)
class RankedDoc:
    rank: int  # 1-based, trec_eval order (score descending, ties by docno descending)
    document: str
    title: str
    score: float
    grade: int | None  # under the chosen qrels source; None = unjudged there
    grades: tuple[tuple[str, int], ...]  # every assessor's current grade, by name
    final: int | None  # adjudicated grade, if any


def ranked_list(
    db: Database,
    system: str,
    query: str,
    source: QrelsSource | None = None,
) -> list[RankedDoc]:
    """`system`'s results for `query` in evaluation order, with the source's grade."""
    with db.read() as s:
        ranking = system_ranking(s, system, query)
        given = query_grades(s, ranking.query_id)
        _, source_doc, source_grade = qrels_ids(s, source, query_ids=[ranking.query_id])
    source = _lookup(source_doc, source_grade, ranking.document_id)
    final = _lookup(given.adjudicated_document_id, given.adjudicated_grade, ranking.document_id)
    grades: dict[int, list[tuple[str, int]]] = {}
    for did, name, g in zip(given.document_id.tolist(), given.assessor.tolist(), given.grade.tolist()):
        grades.setdefault(did, []).append((name, g))
    return [
        RankedDoc(i + 1, docno, title, score, source[i], tuple(sorted(grades.get(did, []))), final[i])
        for i, (did, docno, title, score) in enumerate(zip(
            ranking.document_id.tolist(), ranking.docno.tolist(), ranking.title.tolist(),
            ranking.score.tolist()))
    ]


def _lookup(keys: np.ndarray, values: np.ndarray, wanted: np.ndarray) -> list[int | None]:
    """The value of each `wanted` key (keys unique), None where it has none."""
    if keys.size == 0:
        return [None] * wanted.size
    order = np.argsort(keys)
    at = order[np.minimum(np.searchsorted(keys, wanted, sorter=order), keys.size - 1)]
    hit = keys[at] == wanted
    return [v if h else None for v, h in zip(values[at].tolist(), hit.tolist())]


def grades_of_ranked_list(items: list[RankedDoc]) -> list[int]:
    """A ranked list's grades for the calculator (unjudged -> 0, as trec_eval counts them)."""
    return [0 if d.grade is None or d.grade < 0 else d.grade for d in items]


def judged_grades(db: Database, query: str, source: QrelsSource | None = None) -> tuple[int, ...]:
    """The source's grade of every judged document of `query`, retrieved or not: what the
    calculator needs to count R and build the ideal ordering as `workbench score` does."""
    with db.read() as s:
        _, _, grade = qrels_ids(s, source, query_ids=[query_id_of(s, query)])
    return tuple(grade.tolist())
