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

import numpy as np
from sqlalchemy import select

from workbench.campaign.database import Database
from workbench.campaign.qrels import qrels_rows, source_label
from workbench.store.models import Campaign, Document, Query, Result, System

DEFAULT_MEASURES = ("nDCG@10", "AP", "bpref", "P@10")
_SEP = "\x1f"  # joins (system index, query) into one evaluation key
_MAX_QRELS_ROWS = 2_000_000  # qrels rows (repeated per system) in one metrics call


@dataclass(frozen=True)
class ScoreTable:
    """Per-query and mean values. `systems` are run tags in stable (import) order."""

    measures: tuple[str, ...]
    systems: tuple[str, ...]
    # query -> system -> measure -> value
    per_query: dict[str, dict[str, dict[str, float]]]
    # system -> measure -> mean (or sum for counts) over that system's evaluated queries
    means: dict[str, dict[str, float]]
    # system -> number of queries averaged
    n_queries: dict[str, int]
    source: str = ""
    queries: tuple[str, ...] = field(default_factory=tuple)
    # labels of count measures (num_ret, num_rel, ...): printed as integers
    counts: frozenset[str] = frozenset()


def campaign_measures(db: Database) -> list[str]:
    """The campaign's default measures (Campaign.default_measures), else nDCG@10 AP bpref P@10."""
    with db.read() as s:
        value = s.scalar(select(Campaign.default_measures).where(Campaign.id == 1))
    names = (value or "").split()
    return names or list(DEFAULT_MEASURES)


def campaign_threshold(db: Database) -> int:
    with db.read() as s:
        value = s.scalar(select(Campaign.relevance_threshold).where(Campaign.id == 1))
    return int(value) if value is not None else 1


class ScoreTracker:
    """Cached runs + per-query values for one qrels source; thread-safe (one lock)."""

    def __init__(
        self,
        db: Database,
        measures: list[str] | tuple[str, ...] | None = None,
        *,
        assessor: str | None = None,
        consensus: str | None = None,
        relevance_level: int | None = None,
    ) -> None:
        self.db = db
        self.assessor = assessor
        self.consensus = consensus
        # Resolved on first load (in the caller's worker thread, not in the constructor).
        self._given_measures = tuple(measures) if measures else None
        self._given_level = relevance_level
        self.measures: tuple[str, ...] = self._given_measures or ()
        self.level = relevance_level if relevance_level is not None else 1
        self._evaluator: _Evaluator | None = None
        self._lock = threading.RLock()
        self._dirty: set[str] = set()
        self.systems: tuple[str, ...] = ()
        # system index -> query -> (docnos, scores)
        self._runs: list[dict[str, tuple[np.ndarray, np.ndarray]]] = []
        self._run_queries: set[str] = set()
        # query -> system tag -> measure -> value (only queries with qrels and results)
        self._values: dict[str, dict[str, dict[str, float]]] = {}
        self._query_order: dict[str, int] = {}
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
                self.measures = self._evaluator.labels
            with self.db.read() as s:
                systems = s.execute(select(System.id, System.tag).order_by(System.id)).all()
                index = {sid: i for i, (sid, _) in enumerate(systems)}
                self._query_order = {
                    ext: i for i, ext in enumerate(s.scalars(select(Query.ext_id).order_by(Query.id)))
                }
                runs = _load_runs(s, index, len(systems))
                qrels = qrels_rows(s, assessor=self.assessor, consensus=self.consensus)
            self.systems = tuple(tag for _, tag in systems)
            self._runs = runs
            self._run_queries = {q for run in self._runs for q in run}
            by_query = _group_qrels(qrels)
            self._values = self._evaluate(by_query)
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
            queries = sorted(queries)
            if queries:
                with self.db.read() as s:
                    rows = qrels_rows(
                        s, assessor=self.assessor, consensus=self.consensus, queries=queries
                    )
                for q in queries:
                    self._values.pop(q, None)
                self._values.update(self._evaluate(_group_qrels(rows)))
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
            table = self._table()
            parsed = self._evaluator.parsed if self._evaluator else ()
        out = []
        for tag in table.systems:
            qids = sorted((q for q in table.queries if tag in table.per_query[q]),
                          key=lambda q: q.encode("utf-8"))
            out.append(Evaluation(
                measures=tuple(parsed),
                qids=tuple(qids),
                per_query={
                    m: np.array([table.per_query[q][tag][label] for q in qids], dtype=np.float64)
                    for label, m in zip(table.measures, parsed)
                },
                summary={m: table.means[tag][label] for label, m in zip(table.measures, parsed)},
                tag=tag,
                settings={"rel_level": self.level},
            ))
        return out

    def is_count(self, label: str) -> bool:
        """Whether a measure label is a count (printed as an integer, summed)."""
        return self._evaluator is not None and self._evaluator.is_count(label)

    # ---- internals -------------------------------------------------------------------

    def _evaluate(
        self, qrels_by_query: dict[str, tuple[np.ndarray, np.ndarray]]
    ) -> dict[str, dict[str, dict[str, float]]]:
        """Evaluate every system on the given queries in as few metrics calls as memory
        allows: each (system, query) becomes its own evaluation key, with that query's
        qrels, so a call repeats the qrels once per system in it. A live update (one
        query) is one call; a full load of a big campaign is split into groups of systems
        whose repeated qrels stay under _MAX_QRELS_ROWS (10 000 queries x 100 judgments x
        50 systems in one call was 50 M rows and 9.9 GB)."""
        queries = [q for q in qrels_by_query if q in self._run_queries]
        n_qrels = sum(len(qrels_by_query[q][0]) for q in queries)
        per_call = max(1, _MAX_QRELS_ROWS // max(n_qrels, 1))
        out: dict[str, dict[str, dict[str, float]]] = {}
        for start in range(0, len(self._runs), per_call):
            systems = range(start, min(start + per_call, len(self._runs)))
            self._evaluate_systems(systems, queries, qrels_by_query, out)
        return out

    def _evaluate_systems(self, systems, queries, qrels_by_query, out) -> None:
        q_qid, q_doc, q_rel, r_qid, r_doc, r_score = [], [], [], [], [], []
        for query in queries:
            docs, rels = qrels_by_query[query]
            for i in systems:
                run = self._runs[i]
                if query not in run:
                    continue
                key = f"{i}{_SEP}{query}".encode()
                q_qid.append(np.full(len(docs), key))
                q_doc.append(docs)
                q_rel.append(rels)
                rdocs, rscores = run[query]
                r_qid.append(np.full(len(rdocs), key))
                r_doc.append(rdocs)
                r_score.append(rscores)
        if not q_qid:
            return
        values = self._evaluator(
            (np.concatenate(q_qid), np.concatenate(q_doc), np.concatenate(q_rel)),
            (np.concatenate(r_qid), np.concatenate(r_doc), np.concatenate(r_score)),
        )
        for key, by_measure in values.items():
            i, query = key.split(_SEP, 1)
            out.setdefault(query, {})[self.systems[int(i)]] = by_measure

    def _table(self) -> ScoreTable:
        queries = tuple(sorted(self._values, key=lambda q: (self._query_order.get(q, 1 << 30), q)))
        means: dict[str, dict[str, float]] = {}
        counts: dict[str, int] = {}
        for tag in self.systems:
            rows = [self._values[q][tag] for q in queries if tag in self._values[q]]
            counts[tag] = len(rows)
            means[tag] = {
                m: self._evaluator.aggregate(m, [r[m] for r in rows]) for m in self.measures
            }
        # A shallow copy is enough: `_evaluate` builds new inner dicts on every update and
        # never mutates old ones, so a table handed to another thread stays as it was.
        per_query = {q: self._values[q] for q in queries}
        return ScoreTable(
            self.measures, self.systems, per_query, means, counts,
            source_label(self.assessor, self.consensus), queries,
            frozenset(m for m in self.measures if self.is_count(m)),
        )


def score_campaign(
    db: Database,
    measures: list[str] | None = None,
    *,
    assessor: str | None = None,
    consensus: str | None = None,
) -> ScoreTable:
    """Every stored system's per-query and mean scores under one qrels source."""
    return ScoreTracker(db, measures, assessor=assessor, consensus=consensus).load()


_FETCH = 100_000  # result rows per fetch while loading runs


def _load_runs(session, index: dict[int, int], n: int) -> list[dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Every system's results as {query: (docnos, scores)} per system index.

    Read as four numeric columns in chunks and grouped with numpy: no ORM row and no
    Python string per result (10 M results through ORM rows took ~100 s and GBs)."""
    conn = session.connection()
    result = conn.execute(
        select(Result.system_id, Result.query_id, Result.document_id, Result.score)
    )
    cursor = result.cursor  # the driver's cursor: plain tuples (numpy probes Row objects slowly)
    chunks = []
    while rows := cursor.fetchmany(_FETCH):
        chunks.append(np.array(rows, dtype=np.float64).reshape(-1, 4))
    result.close()
    runs: list[dict[str, tuple[np.ndarray, np.ndarray]]] = [{} for _ in range(n)]
    if not chunks:
        return runs
    data = np.concatenate(chunks)
    del chunks
    sid, qid, did = (data[:, c].astype(np.int64) for c in range(3))
    order = np.lexsort((qid, sid))
    sid, qid, did, score = sid[order], qid[order], did[order], data[order, 3]
    del data, order
    # ids -> external ids: queries through a dict, documents through a sorted id array
    query_ext = dict(conn.execute(select(Query.id, Query.ext_id)).all())
    doc_rows = conn.execute(select(Document.id, Document.ext_id)).all()
    doc_ids = np.array([r[0] for r in doc_rows], dtype=np.int64)
    doc_ext = _bytes([r[1] for r in doc_rows])
    by_id = np.argsort(doc_ids)
    docnos = doc_ext[by_id][np.searchsorted(doc_ids[by_id], did)]
    cuts = np.flatnonzero((sid[1:] != sid[:-1]) | (qid[1:] != qid[:-1])) + 1
    starts = np.r_[0, cuts]
    ends = np.r_[cuts, len(sid)]
    for a, b, s, q in zip(starts.tolist(), ends.tolist(), sid[starts].tolist(), qid[starts].tolist()):
        runs[index[s]][query_ext[q]] = (docnos[a:b], score[a:b])
    return runs


def _bytes(ids: list[str]) -> np.ndarray:
    # Ids as a numpy bytes array once, here: the metrics encode them to bytes anyway, and
    # doing it per evaluation was most of the live panel's time.
    return np.array([i.encode("utf-8") for i in ids], dtype="S") if ids else np.empty(0, "S1")


def _group_qrels(rows) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    grouped: dict[str, tuple[list, list]] = {}
    for q, d, g in rows:
        docs, rels = grouped.setdefault(q, ([], []))
        docs.append(d)
        rels.append(g)
    return {
        q: (_bytes(d), np.array(r, dtype=np.int64)) for q, (d, r) in grouped.items()
    }


class _Evaluator:
    """Adapter to the metrics package's `evaluate` (the only place that knows it).

    Measures are parsed once; a name may expand (`P` -> P_5 ... P_1000). Values are keyed
    by the measure's printed label (trec_eval's name where there is one: `ndcg_cut_10`,
    `map`, `P_10`), the names `eval --format trec` prints.
    """

    def __init__(self, names: tuple[str, ...], level: int) -> None:
        from workbench.metrics.evaluate import aggregate, evaluate
        from workbench.metrics.measures import parse_measures

        self._evaluate = evaluate
        self._aggregate = aggregate
        parsed = parse_measures(list(names))
        self.parsed = tuple(m for m in parsed if m.family != "runid")
        self.labels = tuple(m.label or str(m) for m in self.parsed)
        self.level = level

    def __call__(self, qrels, run) -> dict[str, dict[str, float]]:
        ev = self._evaluate(*qrels, *run, self.parsed, rel_level=self.level)
        return {
            q: {label: float(ev.per_query[m][i]) for label, m in zip(self.labels, self.parsed)}
            for i, q in enumerate(ev.qids)
        }

    def aggregate(self, label: str, values: list[float]) -> float:
        m = self.parsed[self.labels.index(label)]
        return self._aggregate(m, np.asarray(values, dtype=np.float64))

    def is_count(self, label: str) -> bool:
        return self.parsed[self.labels.index(label)].is_count
