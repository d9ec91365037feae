"""The stored-score engine: every stored run evaluated against qrels given as database ids.

Beside the file engine (engine.py): arrays in, per-query values out, no SQL (campaign/
reads the runs and the qrels through store/ and hands them here). The runs are the
store's `run_arrays` (already in trec_eval's order, grouped by system then query), so no
sort is needed; the qrels are (query id, document id, grade) arrays. Documents are matched
by id: a dense `GradeTable` of grades while it stays small, else byte keys of the ids
(`id_keys`) through the metrics' `QrelsIndex`. The values are the metrics package's
`per_query_values`, so they are trec_eval's.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from workbench.cores import default_jobs
from workbench.metrics.evaluate import QrelsIndex, RunArrays, per_query_values
from workbench.metrics.qrels_index import NONPOOL, UNJUDGED

__all__ = ["GradeTable", "LoadedRuns", "evaluate_stored", "id_keys"]


class GradeTable:
    """The qrels as a dense (query, document id) table of grades, so that run rows find
    their grade by two integer ids (one gather) instead of a sort and search of byte keys.
    Used only while the table stays small (MAX_CELLS bytes); otherwise build gives None
    and the metrics look documents up by key as before."""

    MAX_CELLS = 64 << 20

    def __init__(self, row_of_query: np.ndarray, grades: np.ndarray) -> None:
        # query id -> table row; ids past the end (clipped to the last entry) and ids
        # without qrels go to the last row, and documents past the last judged one to
        # the last column: both NONPOOL, so a lookup is two clipped gathers
        self._row_of_query = row_of_query
        # grades: (queries with qrels + 1) x (largest judged document id + 2), row-major
        self._flat = grades.ravel()
        self._width = grades.shape[1]

    @classmethod
    def build(cls, qi: np.ndarray, di: np.ndarray, g: np.ndarray) -> "GradeTable | None":
        if qi.size == 0 or int(g.max()) > 127:
            return None
        queries = np.unique(qi)
        width = int(di.max()) + 2
        if (queries.size + 1) * width > cls.MAX_CELLS or int(queries.max()) > cls.MAX_CELLS:
            return None
        row_of_query = np.full(int(queries.max()) + 2, queries.size, dtype=np.int64)
        row_of_query[queries] = np.arange(queries.size)
        grades = np.full((queries.size + 1, width), NONPOOL, dtype=np.int8)
        grades[row_of_query[qi], di] = np.where(g < 0, UNJUDGED, g)  # as QrelsIndex grades
        return cls(row_of_query, grades)

    def lookup(self, query_id: np.ndarray, document_id: np.ndarray) -> np.ndarray:
        """Each (query id, document id) pair's grade; NONPOOL where the qrels lack it.
        Ids are database ids (positive)."""
        row = self._row_of_query.take(query_id, mode="clip")
        col = np.asarray(document_id).clip(0, self._width - 1)
        return self._flat.take(row * self._width + col).astype(np.int64)


class LoadedRuns:
    """The stored runs of a campaign, read once (store.run_arrays) and shared by trackers:
    query and document ids as the `S` arrays the metrics read, and where each (system,
    query) group of rows starts. Scores only if loaded with them (load_runs)."""

    def __init__(self, stored, queries) -> None:
        self.stored = stored
        self.queries = queries
        q = stored.query_id
        n = q.size
        # (system, query) groups: rows are sorted by system, then query id
        new = np.ones(n, dtype=bool)
        new[1:] = q[1:] != q[:-1]
        starts = stored.offsets[:-1]
        new[starts[starts < n]] = True
        heads = np.flatnonzero(new)
        self._group_start = heads
        self._group_end = np.append(heads[1:], n)
        self._group_query = q[heads].astype(np.int64)
        self._system_groups = np.searchsorted(heads, stored.offsets)  # groups of system i
        self._group_name = queries.of(self._group_query)
        self._col_of_name = {name: j for j, name in enumerate(queries.names.tolist())}

    @cached_property
    def qid_bytes(self) -> np.ndarray:
        """Every row's external query id (`S`), built on first use."""
        return np.repeat(self._group_name, self._group_end - self._group_start)

    def qid_bytes_of(self, system: int, rows) -> np.ndarray:
        """qid_bytes[rows] for rows of `system` (LoadedRuns.rows), without building the
        array of every row: scoring takes one system at a time, in small arrays that the
        allocator reuses."""
        if isinstance(rows, slice):
            a, b = int(self._system_groups[system]), int(self._system_groups[system + 1])
            return np.repeat(self._group_name[a:b], self._group_end[a:b] - self._group_start[a:b])
        return self.queries.of(self.stored.query_id[rows])

    @cached_property
    def docno_bytes(self) -> np.ndarray:
        """Documents by database id (id_keys): the rows are in trec_eval's order already, so
        docnos are needed only to match qrels rows, and ids do that without reading the
        document table. Built on first use: scoring joins grades by ids (GradeTable)."""
        return id_keys(self.stored.document_id)

    def columns_of(self, queries: list[str]) -> np.ndarray:
        """Columns (positions in `queries.ids`) of external query ids; unknown ones skipped."""
        return self.columns_of_names([q.encode("utf-8") for q in queries])

    def columns_of_names(self, names) -> np.ndarray:
        cols = [self._col_of_name.get(n) for n in (names.tolist() if hasattr(names, "tolist") else names)]
        return np.array([c for c in cols if c is not None], dtype=np.int64)

    def rows(self, system: int, cols: np.ndarray | None):
        """The rows of `system` (a slice), or of its queries at `cols` (an index array)."""
        if cols is None:
            return slice(int(self.stored.offsets[system]), int(self.stored.offsets[system + 1]))
        a, b = int(self._system_groups[system]), int(self._system_groups[system + 1])
        queries = self._group_query[a:b]
        wanted = self.queries.ids[cols]
        at = np.minimum(np.searchsorted(queries, wanted), max(b - a - 1, 0))
        groups = a + at[(b > a) & (queries[at] == wanted)] if b > a else at[:0]
        lo, hi = self._group_start[groups], self._group_end[groups]
        sizes = hi - lo
        if not sizes.any():
            return np.empty(0, dtype=np.int64)
        return np.repeat(lo - np.cumsum(np.r_[0, sizes[:-1]]), sizes) + np.arange(sizes.sum())


def id_keys(ids: np.ndarray) -> np.ndarray:
    """Database ids as fixed-width byte keys: the id's 8 little-endian bytes with the top bit
    set, so that the last byte is never NUL (numpy drops trailing NULs from `S` values).
    Equal ids, equal keys; a view of one integer array, no characters built."""
    keys = np.asarray(ids).astype("<u8")  # ids are positive: no sign to extend
    keys |= np.uint64(1 << 63)  # in place: one array of 5 M rows, not three
    return keys.view("S8")




def evaluate_stored(runs: LoadedRuns, qrels, parsed, level: int, cols: np.ndarray | None,
                    values: dict, present: np.ndarray) -> None:
    """Evaluate every system of `runs` on the query columns `cols` (None: all) against
    `qrels` = (query id, document id, grade) arrays, writing those columns of `values`
    (one systems x queries float64 matrix per measure) and `present` in place. One shared
    qrels index, then one metrics call per system on its rows of those queries."""
    qi, di, g = qrels
    if cols is not None:
        for m in values:
            values[m][:, cols] = 0.0
        present[:, cols] = False
    if qi.size == 0:
        return
    order = np.lexsort((di, qi))  # each query's rows together
    qi, di, g = qi[order], di[order], g[order]
    index = QrelsIndex(runs.queries.of(qi), id_keys(di), g)
    index_cols = runs.columns_of_names(index.qids)
    table = GradeTable.build(qi, di, g)

    def one(i: int):
        rows = runs.rows(i, cols)
        if isinstance(rows, np.ndarray) and rows.size == 0:
            return None
        if table is None:  # documents found by key
            grades, docno = None, runs.docno_bytes[rows]
        else:
            grades = table.lookup(runs.stored.query_id[rows], runs.stored.document_id[rows])
            docno = None
        # no scores: the stored order is the ranking
        run = RunArrays(runs.qid_bytes_of(i, rows), docno, None)
        # rows are stored in trec_eval's order already: keep it ("input")
        return per_query_values(
            index, run, parsed, rel_level=level, ties="input", check_duplicates=False,
            grades=grades,
        )

    systems = range(len(runs.stored.tags))
    # WORKBENCH_THREADS or the usable cores, as eval; one query's update is too small to share
    jobs = default_jobs() if cols is None else 1
    if jobs > 1 and len(systems) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(jobs) as pool:  # numpy's sorts and searches release the GIL
            results = list(pool.map(one, systems))
    else:
        results = map(one, systems)
    for i, result in zip(systems, results):
        if result is None:
            continue
        got, seen = result
        for m in parsed:
            values[m][i, index_cols] = got[m]
        present[i, index_cols] = seen
