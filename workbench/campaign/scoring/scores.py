"""Scores of every stored system against qrels derived from the stored judgments.

One code path for `workbench score` and the TUI's live panel: a `ScoreTracker` loads every
system's results once (cached as per-system, per-query arrays), derives the qrels from one
source (an assessor or a consensus, see qrels.py) and evaluates through the metrics
package's `evaluate` (trec_eval semantics). After a grade the panel calls
`update_query(q)`: only query q's qrels are re-read and only q's values are recomputed for
each system; the means are then re-averaged from the cached per-query values.

Averages follow trec_eval: a system's mean is over the queries present both in its results
and in the qrels (queries judged so far, for an assessor), aggregated by the metrics
package's `aggregate` (so gm_map is a geometric mean and counts are summed, as in
trec_eval's `all` line).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from workbench.campaign.database import Database
from workbench.campaign.scoring.qrels import qrels_ids
from workbench.campaign.scoring.sources import MAJORITY, QrelsSource
from workbench.campaign.settings import campaign_measures, campaign_threshold
from workbench.metrics.evaluate import RunArrays
from workbench.evaluation.strategy import default_jobs
from workbench.metrics.measures import Measure
from workbench.store.run_arrays import load_stored_runs, query_names, runs_token

DEFAULT_MEASURES = ("nDCG@10", "AP", "bpref", "P@10")


@dataclass(frozen=True, eq=False)
class ScoreTable:
    """Every system's scores under one qrels source, as arrays keyed by `Measure`.

    Row i is `systems[i]` (import order); column j is `queries[j]`, the queries evaluated
    for at least one system (database order). `values[m][i, j]` holds where
    `present[i, j]`; `means[m][i]` is system i's trec_eval `all` value over its
    `n_queries[i]` evaluated queries (a sum for counts)."""

    measures: tuple[Measure, ...]
    systems: tuple[str, ...]
    queries: tuple[str, ...]
    values: dict[Measure, np.ndarray]  # (systems x queries) float64
    present: np.ndarray  # (systems x queries) bool
    means: dict[Measure, np.ndarray]  # (systems,) float64
    n_queries: np.ndarray  # (systems,) int64
    source: str = ""
    # the names shown in tables, as the user spelled them (metrics.requested); empty:
    # the measures' printed labels
    names: tuple[str, ...] = ()

    @property
    def labels(self) -> tuple[str, ...]:
        """The measures' names in tables: the user's spelling (nDCG@10), or trec_eval's
        label (P_5) for a name that stood for several measures."""
        return self.names or tuple(label_of(m) for m in self.measures)

    def name_of(self, m: Measure) -> str:
        return self.labels[self.measures.index(m)]

    def measure(self, name: str) -> Measure:
        """The measure shown or printed as `name`, or parsed from it (nDCG@10 ->
        ndcg_cut_10)."""
        for m, shown in zip(self.measures, self.labels):
            if name in (shown, label_of(m)):
                return m
        from workbench.metrics.measures import parse_measures

        parsed = parse_measures([name])
        if len(parsed) == 1 and parsed[0] in self.values:
            return parsed[0]
        raise KeyError(name)

    def row(self, system: str) -> int:
        return self.systems.index(system)

    def value(self, system: str, query: str, measure: "Measure | str") -> float | None:
        """One system's value on one query (None where it was not evaluated)."""
        m = measure if isinstance(measure, Measure) else self.measure(measure)
        i, j = self.row(system), self.queries.index(query)
        return float(self.values[m][i, j]) if self.present[i, j] else None

    def mean(self, system: str, measure: "Measure | str") -> float:
        m = measure if isinstance(measure, Measure) else self.measure(measure)
        return float(self.means[m][self.row(system)])

    def scored(self) -> np.ndarray:
        """Which systems were evaluated on at least one query (can be ranked)."""
        return self.n_queries > 0


def label_of(m: Measure) -> str:
    """The name a measure is printed under (trec_eval's where there is one)."""
    return m.label or str(m)


def empty_table(measures: tuple[Measure, ...], source: str,
                names: tuple[str, ...] = ()) -> ScoreTable:
    return ScoreTable(measures, (), (), {m: np.zeros((0, 0)) for m in measures},
                      np.zeros((0, 0), dtype=bool), {m: np.zeros(0) for m in measures},
                      np.zeros(0, dtype=np.int64), source, names)


class ScoreTracker:
    """Cached runs + per-query values for one qrels source; thread-safe (one lock).

    Everything is arrays: the stored runs (store.run_arrays, already in trec_eval's order),
    the qrels as database ids, and the values as one (systems x queries) float64 matrix
    per measure with a matrix of which (system, query) pairs are evaluated. A grade
    re-evaluates only its query's column, for every system."""

    def __init__(
        self,
        db: Database,
        measures: list[str] | tuple[str, ...] | None = None,
        source: QrelsSource | None = None,
        *,
        relevance_level: int | None = None,
        runs: "LoadedRuns | RunsCache | None" = None,
    ) -> None:
        self.db = db
        self.source = source or MAJORITY
        # Resolved on first load (in the caller's worker thread, not in the constructor).
        self._given_measures = tuple(measures) if measures else None
        self._given_level = relevance_level
        self.measures: tuple[str, ...] = self._given_measures or ()
        self.level = relevance_level if relevance_level is not None else 1
        self._evaluator: _Evaluator | None = None
        self._lock = threading.RLock()
        self._dirty: set[str] = set()
        self.systems: tuple[str, ...] = ()
        # runs: loaded ones to share (compare's sources), or a RunsCache (a TUI session)
        self._given_runs = runs
        self._runs: LoadedRuns | None = None
        self._values: dict = {}  # Measure -> (systems x queries) float64
        self._present = np.zeros((0, 0), dtype=bool)  # evaluated (system, query) pairs
        self.loaded = False

    # ---- loading ---------------------------------------------------------------------

    def load(self) -> ScoreTable:
        """Read every system's results and the qrels; evaluate everything."""
        with self._lock:
            if self._evaluator is None:
                self.measures = self._given_measures or tuple(campaign_measures(self.db))
                if self._given_level is None:
                    self.level = campaign_threshold(self.db)
                self._evaluator = _Evaluator(self.measures, self.level)
                self.measures = self._evaluator.names
            with self.db.read() as s:
                given = self._given_runs
                self._runs = (given(s) if isinstance(given, RunsCache)
                              else (given or load_runs(s, scores=False)))
                qrels = qrels_ids(s, self.source)
            runs = self._runs
            self.systems = runs.stored.tags
            shape = (len(runs.stored.tags), runs.queries.ids.size)
            self._values = {m: np.zeros(shape) for m in self._evaluator.parsed}
            self._present = np.zeros(shape, dtype=bool)
            self._evaluate(qrels, None)
            self.loaded = True
            return self._table()

    def update_query(self, query: str) -> ScoreTable:
        """Re-read `query`'s qrels and recompute only that query's values."""
        return self.update_queries([query])

    def update_queries(self, queries: list[str] | set[str]) -> ScoreTable:
        """Re-read these queries' qrels and recompute only their values."""
        with self._lock:
            if not self.loaded:
                return self.load()
            cols = self._runs.columns_of(sorted(queries))
            if cols.size:
                ids = self._runs.queries.ids[cols].tolist()
                with self.db.read() as s:
                    qrels = qrels_ids(s, self.source, query_ids=ids)
                self._evaluate(qrels, cols)
            return self._table()

    def mark_dirty(self, query: str) -> None:
        """Note that `query`'s judgments changed; `refresh` recomputes it."""
        with self._lock:
            self._dirty.add(query)

    def refresh(self) -> ScoreTable:
        """Load everything the first time, then recompute only the queries marked dirty."""
        with self._lock:
            dirty, self._dirty = self._dirty, set()
            if not self.loaded:
                return self.load()
            return self.update_queries(dirty)

    def table(self) -> ScoreTable:
        with self._lock:
            return self._table()

    def evaluations(self) -> list:
        """The current values as the metrics package's `Evaluation` records, one per system
        (query ids in trec_eval's byte order), so output code written for `eval` can print
        them."""
        from workbench.metrics.evaluate import Evaluation

        with self._lock:
            parsed = self._evaluator.parsed if self._evaluator else ()
            names = self._runs.queries.names if self._runs is not None else np.empty(0, "S1")
            by_bytes = np.argsort(names, kind="stable")
            out = []
            for i, tag in enumerate(self.systems):
                cols = by_bytes[self._present[i, by_bytes]]
                per_query = {m: self._values[m][i, cols].copy() for m in parsed}
                out.append(Evaluation(
                    measures=tuple(sorted(parsed, key=lambda m: m.sort_key)),  # trec_eval's order
                    qids=tuple(q.decode("utf-8") for q in names[cols].tolist()),
                    per_query=per_query,
                    summary={m: self._evaluator.aggregate(m, per_query[m]) for m in parsed},
                    tag=tag,
                    settings={"rel_level": self.level},
                ))
            return out

    # ---- internals -------------------------------------------------------------------

    def _evaluate(self, qrels, cols: np.ndarray | None) -> None:
        """Evaluate every system on the queries `cols` (None: all) against `qrels` (database
        ids), writing their columns of the value matrices. One shared qrels index, then one
        metrics call per system on its rows of those queries."""
        from workbench.metrics.evaluate import QrelsIndex, per_query_values

        runs = self._runs
        qi, di, g = qrels
        if cols is not None:
            for m in self._values:
                self._values[m][:, cols] = 0.0
            self._present[:, cols] = False
        if qi.size == 0:
            return
        order = np.lexsort((di, qi))  # each query's rows together
        qi, di, g = qi[order], di[order], g[order]
        index = QrelsIndex(runs.queries.of(qi), id_keys(di), g)
        index_cols = runs.columns_of_names(index.qids)
        parsed = self._evaluator.parsed
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
                index, run, parsed, rel_level=self.level, ties="input", check_duplicates=False,
                grades=grades,
            )

        systems = range(len(runs.stored.tags))
        # WORKBENCH_THREADS or the cores, as eval; one query's update is too small to share
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
            values, present = result
            for m in parsed:
                self._values[m][i, index_cols] = values[m]
            self._present[i, index_cols] = present

    def _table(self) -> ScoreTable:
        source = self.source.label
        parsed = self._evaluator.parsed if self._evaluator else ()
        runs = self._runs
        if runs is None:
            return empty_table(parsed, source, self._evaluator.names if self._evaluator else ())
        cols = np.flatnonzero(self._present.any(axis=0))
        present = self._present[:, cols]
        return ScoreTable(
            measures=parsed,
            systems=self.systems,
            queries=tuple(q.decode("utf-8") for q in runs.queries.names[cols].tolist()),
            values={m: self._values[m][:, cols] for m in parsed},
            present=present,
            means={m: np.array([self._evaluator.aggregate(m, self._values[m][i, self._present[i]])
                                for i in range(len(self.systems))]) for m in parsed},
            n_queries=self._present.sum(axis=1).astype(np.int64),
            source=source,
            names=self._evaluator.names,
        )


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
        from workbench.metrics.qrels_index import NONPOOL, UNJUDGED

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


class RunsCache:
    """Stored runs kept in memory for the life of a process (a TUI session) and read again
    only when a run was added, replaced or removed (store.run_arrays.runs_token)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._token: tuple | None = None
        self._runs: LoadedRuns | None = None

    def __call__(self, session) -> LoadedRuns:
        token = runs_token(session.connection())
        with self._lock:
            if self._runs is None or token != self._token:
                self._runs, self._token = load_runs(session, scores=False), token
            return self._runs


def load_runs(session, *, scores: bool = True) -> LoadedRuns:
    """Every stored run as arrays (see LoadedRuns), in one read transaction; scores=False:
    without their scores, enough for scoring (the stored order is the ranking)."""
    conn = session.connection()
    return LoadedRuns(load_stored_runs(conn, scores=scores), query_names(conn))


def id_keys(ids: np.ndarray) -> np.ndarray:
    """Database ids as fixed-width byte keys: the id's 8 little-endian bytes with the top bit
    set, so that the last byte is never NUL (numpy drops trailing NULs from `S` values).
    Equal ids, equal keys; a view of one integer array, no characters built."""
    keys = np.asarray(ids).astype("<u8")  # ids are positive: no sign to extend
    keys |= np.uint64(1 << 63)  # in place: one array of 5 M rows, not three
    return keys.view("S8")


def score_campaign(
    db: Database,
    measures: list[str] | None = None,
    source: QrelsSource | None = None,
    *,
    runs: LoadedRuns | None = None,
) -> ScoreTable:
    """Every stored system's per-query and mean scores under one qrels source (`runs`:
    already loaded runs to share, e.g. between sources)."""
    return ScoreTracker(db, measures, source, runs=runs).load()


def _refuse_text_only(names) -> None:
    """A name that stands only for text per query (relstring) cannot be a score column."""
    from workbench.errors import UsageError
    from workbench.metrics.measures import parse_measures

    for raw in names:
        for name in str(raw).split():
            found = parse_measures([name])
            if found and all(m.is_text for m in found):
                raise UsageError(f"{name}: text per query, not a score; scores keep numbers "
                                 f"(`workbench eval -m {name}` prints it)")


class _Evaluator:
    """The measures, parsed once (a name may expand: `P` -> P_5 ... P_1000), and the
    metrics package's trec_eval averaging."""

    def __init__(self, names: tuple[str, ...], level: int) -> None:
        from workbench.metrics.evaluate import aggregate
        from workbench.metrics.requested import requested_measures

        self._aggregate = aggregate
        _refuse_text_only(names)
        asked = requested_measures(list(names))
        # stored scores are numbers: the run's tag and relstring's text (which a set such
        # as all_trec brings) are eval's output only
        kept = [(m, n) for m, n in zip(asked.measures, asked.names)
                if m.aggregation != "runid" and not m.is_text]
        self.parsed = tuple(m for m, _ in kept)
        self.names = tuple(n for _, n in kept)
        self.level = level

    def aggregate(self, m, values: np.ndarray) -> float:
        return self._aggregate(m, values)
