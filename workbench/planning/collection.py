"""A test collection as integer arrays: what pool planning reads (runs and full qrels).

Runs are kept in trec_eval's order (metrics.ranking.trec_order, the project's one ordering)
and restricted to the queries of the qrels: a query without judgments has nothing to pool
or to score. Queries and documents are dense codes into `query_names` / `doc_names`
(byte strings, sorted), so every method works on integers and the evaluation gets the
names back by indexing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from workbench.metrics.encode import as_bytes, factorize_many
from workbench.metrics.ranking import trec_order

NOT_JUDGED = -1  # grade of a (query, document) pair absent from the qrels


@dataclass(frozen=True, eq=False)
class Collection:
    """Runs and qrels over shared query and document codes.

    Run rows are grouped by run (in `run_names` order), then by query code, in trec_eval's
    order within each (run, query); `row_grade` is each row's grade in the full qrels
    (NOT_JUDGED where the qrels say nothing)."""

    run_names: tuple[str, ...]
    query_names: np.ndarray  # S, sorted; the qrels' queries
    doc_names: np.ndarray  # S, sorted
    row_run: np.ndarray  # int64
    row_query: np.ndarray  # int64
    row_doc: np.ndarray  # int64
    row_score: np.ndarray  # float64
    qrels_query: np.ndarray  # int64, sorted by (query, doc)
    qrels_doc: np.ndarray  # int64
    qrels_grade: np.ndarray  # int64

    @property
    def n_runs(self) -> int:
        return len(self.run_names)

    @property
    def n_queries(self) -> int:
        return int(self.query_names.size)

    @cached_property
    def row_qrels(self) -> np.ndarray:
        """Each run row's position in the qrels arrays, -1 where the qrels lack it."""
        return self.qrels_rows_of(self.row_query, self.row_doc)

    @cached_property
    def row_grade(self) -> np.ndarray:
        return self._grades_at(self.row_qrels)

    @cached_property
    def row_rank(self) -> np.ndarray:
        """1-based rank of each row within its (run, query) list."""
        n = self.row_run.size
        new = np.ones(n, dtype=bool)
        if n:
            new[1:] = (self.row_run[1:] != self.row_run[:-1]) | (self.row_query[1:] != self.row_query[:-1])
        starts = np.flatnonzero(new)
        return np.arange(n) - starts[np.cumsum(new) - 1] + 1

    def pair_keys(self, query: np.ndarray, doc: np.ndarray) -> np.ndarray:
        return np.asarray(query, dtype=np.int64) * max(self.doc_names.size, 1) + np.asarray(doc, dtype=np.int64)

    def qrels_rows_of(self, query: np.ndarray, doc: np.ndarray) -> np.ndarray:
        """The qrels row of each (query, doc) pair, -1 where absent."""
        keys = self.pair_keys(self.qrels_query, self.qrels_doc)  # sorted: qrels are sorted
        want = self.pair_keys(query, doc)
        at = np.minimum(np.searchsorted(keys, want), max(keys.size - 1, 0))
        found = (keys[at] == want) if keys.size else np.zeros(want.size, dtype=bool)
        return np.where(found, at, -1)

    def grades_of(self, query: np.ndarray, doc: np.ndarray) -> np.ndarray:
        """The full qrels' grade of each (query, doc) pair, NOT_JUDGED where absent."""
        return self._grades_at(self.qrels_rows_of(query, doc))

    def _grades_at(self, at: np.ndarray) -> np.ndarray:
        grade = np.append(self.qrels_grade, NOT_JUDGED)  # at -1: the last entry
        return grade[at]

    def query_rows(self) -> list[np.ndarray]:
        """For each query code, its rows ordered by run then rank (positions in the row arrays)."""
        q = self.row_query
        # a stable sort by query; 16-bit keys get numpy's radix sort
        order = np.argsort(q.astype(np.uint16) if self.n_queries <= 1 << 16 else q, kind="stable")
        bounds = np.searchsorted(self.row_query[order], np.arange(self.n_queries + 1))
        return [order[bounds[q]:bounds[q + 1]] for q in range(self.n_queries)]


def collection_from_arrays(run_names, run_qid: list, run_docno: list, run_score: list,
                           qrels_qid, qrels_docno, qrels_grade, *, ordered: bool = False,
                           compat: int = 10
                           ) -> Collection:
    """A Collection from each run's (qid, docno, score) arrays and the qrels' (qid, docno,
    grade) arrays. Runs are put in trec_eval's order here, unless `ordered` says each
    query's rows already are (stored runs, whose documents are keyed by id, not docno).
    compat: the trec_eval version whose score order to follow (10: doubles, 9: floats)."""
    qrels_qid = np.asarray(qrels_qid)
    (qq,), nq = factorize_many(qrels_qid)
    query_names = _names(qq, nq, qrels_qid)
    all_docs = [as_bytes(d) for d in run_docno] + [as_bytes(qrels_docno)]
    codes, nd = factorize_many(*all_docs, repeated=True)
    doc_names = np.empty(nd, dtype=max([d.dtype for d in all_docs], key=lambda t: t.itemsize)
                         if nd else "S1")
    for d, code in zip(all_docs, codes):
        doc_names[code] = d
    parts = []
    for r, (qid, score, doc_code) in enumerate(zip(run_qid, run_score, codes[:-1])):
        qid = as_bytes(qid)
        score = np.asarray(score, dtype=np.float64)
        # a run's rows come in runs of one query: look up each run's id once
        heads = np.flatnonzero(np.concatenate(([True], qid[1:] != qid[:-1]))) if qid.size else \
            np.empty(0, dtype=np.int64)
        hq = qid[heads]
        at = np.minimum(np.searchsorted(query_names, hq), max(nq - 1, 0))
        found = (query_names[at] == hq) if nq else np.zeros(hq.size, dtype=bool)
        sizes = np.diff(np.append(heads, qid.size))
        q, known = np.repeat(at, sizes), np.repeat(found, sizes)
        q, d, s = q[known], doc_code[known], score[known]
        if not ordered:
            order = trec_order(q, s, doc_names[d], compat=compat)
            q, d, s = q[order], d[order], s[order]
        # queries by code (trec_order groups them in order of first appearance)
        by_query = np.argsort(q, kind="stable")
        parts.append((np.full(q.size, r, dtype=np.int64), q[by_query], d[by_query], s[by_query]))
    cat = (lambda i, dt: np.concatenate([p[i] for p in parts]).astype(dt, copy=False) if parts else np.empty(0, dt))
    gq, gd = qq.astype(np.int64), codes[-1].astype(np.int64)
    order = np.lexsort((gd, gq))
    return Collection(
        run_names=tuple(run_names), query_names=query_names, doc_names=doc_names,
        row_run=cat(0, np.int64), row_query=cat(1, np.int64), row_doc=cat(2, np.int64),
        row_score=cat(3, np.float64), qrels_query=gq[order], qrels_doc=gd[order],
        qrels_grade=np.asarray(qrels_grade, dtype=np.int64)[order],
    )


def _names(codes: np.ndarray, n: int, values: np.ndarray) -> np.ndarray:
    """The sorted distinct values from factorize codes (code i names values[codes == i])."""
    values = values.astype("S")
    out = np.empty(n, dtype=values.dtype if n else "S1")
    out[codes] = values
    return out


def collection_from_files(qrels_path: str, run_paths: list[str], compat: int = 10) -> Collection:
    """Read a qrels file and run files (each run named by its tag, or its path when tags
    repeat) into a Collection, the runs in trec_eval `compat`'s order."""
    from workbench.errors import UsageError
    from workbench.formats.trec import read_qrels, read_run

    qrels = read_qrels(qrels_path)
    runs = [read_run(p) for p in run_paths]
    names = [r.tag or str(p) for r, p in zip(runs, run_paths)]
    if len(set(names)) != len(names):
        names = [str(p) for p in run_paths]
    if len(set(names)) != len(names):
        raise UsageError("the same run file is given twice")
    return collection_from_arrays(names, [r.qid for r in runs], [r.docno for r in runs],
                                  [r.score for r in runs], qrels.qid, qrels.docno, qrels.rel,
                                  compat=compat)
