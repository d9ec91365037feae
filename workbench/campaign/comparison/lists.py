"""Two systems' result lists compared query by query (`workbench compare --lists A B`):
how much do the rankings themselves overlap, regardless of relevance?

Per query: the lengths, the number of shared documents, Kendall's tau-b over the shared
documents (their order in A against their order in B) and RBO_ext of the two lists. Lists
are in trec_eval's order (score descending, ties by docno descending), cut at `depth` if
given. Means are over the queries where a value is defined.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from workbench.formats.output import json_number
from workbench.metrics import correlation as corr
from workbench.metrics.ranking import trec_order

if TYPE_CHECKING:  # annotations only
    from workbench.campaign.database import Database

__all__ = ["ListRow", "ListComparison", "compare_lists", "ordered", "lists_from_db", "lists_from_run"]


@dataclass(frozen=True)
class ListRow:
    query: str
    n_a: int
    n_b: int
    shared: int
    kendall_tau_b: float
    rbo: float


@dataclass(frozen=True)
class ListComparison:
    a: str
    b: str
    p: float
    depth: int | None
    rows: list[ListRow]

    @property
    def mean_rbo(self) -> float:
        return _nanmean([r.rbo for r in self.rows])

    @property
    def mean_kendall_tau_b(self) -> float:
        return _nanmean([r.kendall_tau_b for r in self.rows])

    def to_json(self) -> dict:
        num = json_number
        return {
            "a": self.a,
            "b": self.b,
            "rbo_p": self.p,
            "depth": self.depth,
            "queries": [
                {"query": r.query, "n_a": r.n_a, "n_b": r.n_b, "shared": r.shared,
                 "kendall_tau_b": num(r.kendall_tau_b), "rbo": num(r.rbo)}
                for r in self.rows
            ],
            "mean_kendall_tau_b": num(self.mean_kendall_tau_b),
            "mean_rbo": num(self.mean_rbo),
        }


def _nanmean(values: list[float]) -> float:
    arr = np.array(values, dtype=np.float64)
    arr = arr[~np.isnan(arr)]
    return float(arr.mean()) if arr.size else math.nan


def ordered(docnos, scores) -> list[str]:
    """Documents in trec_eval's order (metrics.ranking.trec_order: score descending as
    float32, ties by docno descending), as eval and the stored runs order them."""
    docnos = np.asarray(docnos).astype(str)
    if docnos.size == 0:
        return []
    order = trec_order(np.zeros(docnos.size, dtype=np.int64), scores, np.char.encode(docnos, "utf-8"))
    return docnos[order].tolist()


def compare_lists(
    a: str,
    b: str,
    lists_a: Mapping[str, Sequence[str]],
    lists_b: Mapping[str, Sequence[str]],
    *,
    p: float = 0.9,
    depth: int | None = None,
) -> ListComparison:
    """Compare two systems' ordered lists per query (queries either system answered)."""
    rows = []
    for query in sorted(set(lists_a) | set(lists_b)):
        la = list(lists_a.get(query, []))[:depth]
        lb = list(lists_b.get(query, []))[:depth]
        in_b = set(lb)
        shared = sum(1 for d in la if d in in_b)
        rows.append(ListRow(
            query, len(la), len(lb), shared,
            corr.kendall_tau_lists(la, lb, "b") if shared >= 2 else math.nan,
            corr.rbo(la, lb, p),
        ))
    return ListComparison(a, b, p, depth, rows)


def lists_from_run(run) -> dict[str, list[str]]:
    """Per-query ordered lists of a `formats.trec.Run`."""
    qids = np.char.decode(run.qid, "utf-8") if run.qid.dtype.kind == "S" else np.asarray(run.qid).astype(str)
    docs = np.char.decode(run.docno, "utf-8") if run.docno.dtype.kind == "S" else np.asarray(run.docno).astype(str)
    if qids.size == 0:
        return {}
    q_keys, q_code = np.unique(qids, return_inverse=True)
    order = trec_order(q_code.ravel(), run.score, np.char.encode(docs, "utf-8"))
    sorted_docs = docs[order]
    bounds = np.concatenate([[0], np.cumsum(np.bincount(q_code.ravel(), minlength=len(q_keys)))])
    return {
        str(q): sorted_docs[bounds[i] : bounds[i + 1]].tolist() for i, q in enumerate(q_keys)
    }


def lists_from_db(db: Database, system: str) -> dict[str, list[str]]:
    """Per-query ordered lists of a stored system (by tag), as stored: trec_eval's order."""
    from workbench.errors import NotFoundError
    from workbench.store.runs import ranked_lists

    with db.read() as s:
        lists = ranked_lists(s, system)
    if lists is None:
        raise NotFoundError(f"unknown system {system!r}")
    queries = np.char.decode(lists.queries, "utf-8").tolist()
    docnos = np.char.decode(lists.docnos, "utf-8")
    bounds = lists.offsets.tolist()
    return {q: docnos[bounds[i]:bounds[i + 1]].tolist() for i, q in enumerate(queries)}
