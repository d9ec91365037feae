"""Scores of every stored system against qrels derived from the stored judgments.

One code path for `workbench score` and the TUI's live panel: a `ScoreTracker` loads every
system's results once (cached as per-system, per-query arrays), derives the qrels from one
source (an assessor or a consensus, see qrels.py) and evaluates through the metrics
package's `evaluate` (trec_eval semantics). After a grade the panel marks the query
(`mark_dirty(q)`) and calls `refresh()`: only the marked queries' qrels are re-read and only
their values are recomputed for each system; the means are then re-averaged from the cached
per-query values.

Averages follow trec_eval: a system's mean is over the queries present both in its results
and in the qrels (queries judged so far, for an assessor), aggregated by the metrics
package's `aggregate` (so gm_map is a geometric mean and counts are summed, as in
trec_eval's `all` line).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from workbench.campaign.database import Database
from workbench.campaign.scoring.qrels import qrels_ids
from workbench.campaign.scoring.sources import MAJORITY, QrelsSource
from workbench.campaign.settings import campaign_measures, campaign_threshold
from workbench.evaluation.stored import LoadedRuns, evaluate_stored
from workbench.metrics.measures import Measure
from workbench.store.dbapi import as_reader
from workbench.store.run_arrays import load_stored_runs, query_names, runs_token



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
            with self._snapshot() as s:
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

    def update_queries(self, queries: list[str] | set[str]) -> ScoreTable:
        """Re-read these queries' qrels and recompute only their values."""
        with self._lock:
            if not self.loaded:
                return self.load()
            cols = self._runs.columns_of(sorted(queries))
            if cols.size:
                ids = self._runs.queries.ids[cols].tolist()
                with self._snapshot() as s:
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

    def _snapshot(self):
        """One read snapshot: a consensus reads only the store's SQL text, through the
        driver when nothing else opened an engine (store.dbapi); a named assessor's source
        looks the name up with the ORM (a read session)."""
        return self.db.reader() if self.source.kind == "consensus" else self.db.read()

    def _evaluate(self, qrels, cols: np.ndarray | None) -> None:
        """Evaluate every system on the queries `cols` (None: all) against `qrels` (database
        ids), writing their columns of the value matrices (evaluation.stored)."""
        evaluate_stored(self._runs, qrels, self._evaluator.parsed, self.level, cols,
                        self._values, self._present)

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


class RunsCache:
    """Stored runs kept in memory for the life of a process (a TUI session) and read again
    only when a run was added, replaced or removed (store.run_arrays.runs_token)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._token: tuple | None = None
        self._runs: LoadedRuns | None = None

    def __call__(self, session) -> LoadedRuns:
        token = runs_token(session)
        with self._lock:
            if self._runs is None or token != self._token:
                self._runs, self._token = load_runs(session, scores=False), token
            return self._runs


def load_runs(session, *, scores: bool = True) -> LoadedRuns:
    """Every stored run as arrays (see LoadedRuns), in one read transaction; scores=False:
    without their scores, enough for scoring (the stored order is the ranking)."""
    conn = as_reader(session)  # a Session, Connection or Reader (store.dbapi)
    return LoadedRuns(load_stored_runs(conn, scores=scores), query_names(conn))


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
        from workbench.metrics.requested import evaluated_measures

        self._aggregate = aggregate
        _refuse_text_only(names)
        # eval's rule: a family named with parameters replaces its defaults (`-m all_trec
        # -m P.3` scores P_3 of P), an explicit measure is never dropped
        asked = evaluated_measures(list(names))
        # stored scores are numbers: the run's tag and relstring's text (which a set such
        # as all_trec brings) are eval's output only
        kept = [(m, n) for m, n in zip(asked.measures, asked.names)
                if m.aggregation != "runid" and not m.is_text]
        self.parsed = tuple(m for m, _ in kept)
        self.names = tuple(n for _, n in kept)
        self.level = level

    def aggregate(self, m, values: np.ndarray) -> float:
        return self._aggregate(m, values)
