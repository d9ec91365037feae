"""Nugget scores of every run with answers (`score --nuggets`, `export nugget-scores`),
over metrics/nuggets.py.

Topics are those with nuggets. The run score is the mean over every such topic; a topic
the run did not answer scores 0 (as nuggetizer scores an empty answer and TREC RAG
averages); `answered_only` averages over the topics the run answered (an answer stored,
or labels for it). A nugget the source did not label counts as not_support."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.campaign.answers.labels import source_labels
from workbench.campaign.database import Database
from workbench.campaign.scoring.sources import QrelsSource
from workbench.errors import UsageError
from workbench.metrics.nuggets import MEASURES, nugget_scores, run_means
from workbench.store.answers import answered_pairs
from workbench.store.nuggets import nugget_arrays, query_names, system_tags


@dataclass(frozen=True)
class NuggetTable:
    source: str
    measures: tuple[str, ...]
    systems: list[str]
    queries: list[str]  # topics with nuggets, by query id
    values: dict[str, np.ndarray]  # measure -> (systems, queries)
    answered: np.ndarray  # bool (systems, queries)
    counted: np.ndarray  # bool (systems, queries): the cells each mean is over
    means: dict[str, np.ndarray]
    answered_only: bool

    @property
    def n_queries(self) -> np.ndarray:
        return self.counted.sum(axis=1)


def checked_measures(names) -> tuple[str, ...]:
    if not names:
        return MEASURES
    unknown = [n for n in names if n not in MEASURES]
    if unknown:
        raise UsageError(f"unknown nugget measure {unknown[0]!r}; expected one of {', '.join(MEASURES)}")
    return tuple(dict.fromkeys(names))


def nugget_table(db: Database, source: QrelsSource, measures=None, *,
                 answered_only: bool = False) -> NuggetTable:
    chosen = checked_measures(measures)
    with db.reader() as reader:
        nid, nq, vital = nugget_arrays(reader)
        ln, ls, ll = source_labels(reader, source)
        pairs = answered_pairs(reader)
        tags = system_tags(reader)
        qnames = query_names(reader)
    topic_ids = np.unique(nq)
    system_ids = np.unique(np.array([s for s, _ in pairs], dtype=np.int64))
    q_index = np.searchsorted(topic_ids, nq)
    n_index = np.searchsorted(nid, ln)
    keep = (n_index < nid.size) & np.isin(ls, system_ids)
    keep[keep] &= nid[n_index[keep]] == ln[keep]
    s_index = np.searchsorted(system_ids, ls[keep])
    values = nugget_scores(system_ids.size, q_index, vital, topic_ids.size, s_index,
                           n_index[keep], ll[keep])
    answered = np.zeros((system_ids.size, topic_ids.size), dtype=bool)
    if pairs:
        ps, pq = (np.array(x, dtype=np.int64) for x in zip(*pairs))
        ok = np.isin(pq, topic_ids)
        answered[np.searchsorted(system_ids, ps[ok]), np.searchsorted(topic_ids, pq[ok])] = True
    counted = answered if answered_only else np.ones_like(answered)
    return NuggetTable(
        source=source.label, measures=chosen,
        systems=[tags[int(s)] for s in system_ids],
        queries=[qnames[int(q)][0] for q in topic_ids],
        values={m: values[m] for m in chosen}, answered=answered, counted=counted,
        means={m: run_means(values[m], counted) for m in chosen}, answered_only=answered_only)


def table_json(table: NuggetTable, per_query: bool) -> dict:
    """`score --nuggets --format json` (docs/json-outputs.md)."""
    from workbench.formats.output import json_number

    def cell(values: dict, index) -> dict:
        return {m: json_number(float(values[m][index])) for m in table.measures}

    return {
        "source": table.source,
        "measures": list(table.measures),
        "averaged_over": "answered topics" if table.answered_only else "all topics with nuggets",
        "systems": [
            {"system": tag, "n_queries": int(table.n_queries[i]),
             "mean": cell(table.means, i),
             **({"per_query": {table.queries[j]: cell(table.values, (i, j))
                               for j in np.flatnonzero(table.counted[i]).tolist()}}
                if per_query else {})}
            for i, tag in enumerate(table.systems)
        ],
    }


def nugget_sources(db: Database) -> list[QrelsSource]:
    """The label sources a lead can pick: the people's majority, each assessor with labels,
    hybrid with each machine."""
    from workbench.store.nuggets import assessor_kinds, labelling_assessors

    with db.reader() as reader:
        kinds = assessor_kinds(reader)
        have = labelling_assessors(reader)
    named = [kinds[a] for a in sorted(have) if a in kinds]
    return ([QrelsSource.consensus("majority")] + [QrelsSource.assessor(n) for n, _ in named]
            + [QrelsSource.hybrid(n) for n, k in named if k == "machine"])


def ranked_runs(table: NuggetTable, measure: str | None = None, *, reverse: bool = False) -> list[str]:
    """The runs best first by the mean of `measure` (default: the table's first), ties by
    name; `reverse`: worst first (the scoreboard's order, campaign/scoring/export.py)."""
    if not table.measures:
        return list(table.systems)
    means = table.means[measure or table.measures[0]].tolist()
    sign = 1.0 if reverse else -1.0

    def key(i: int):
        value = means[i] if means[i] == means[i] else float("-inf")
        return (sign * value, table.systems[i])

    return [table.systems[i] for i in sorted(range(len(table.systems)), key=key)]


def nugget_grid(table: NuggetTable, systems: list[str] | None = None):
    """The runs' means as the scoreboard's grid (formats/score_tables.py), rows in `systems`
    order (default: best first by the first measure)."""
    from workbench.formats.score_tables import ScoresGrid

    row = {s: i for i, s in enumerate(table.systems)}
    order = ranked_runs(table) if systems is None else systems
    return ScoresGrid(table.source, tuple(table.measures), tuple(
        (s, int(table.n_queries[row[s]]), tuple(float(table.means[m][row[s]]) for m in table.measures))
        for s in order))


def render_nugget_table(table: NuggetTable, fmt: str, systems: list[str] | None = None) -> str:
    """The nugget scores table as text in `fmt` (csv, json, markdown, latex): the exports of
    the scoreboard's nugget view and of F10."""
    from workbench.formats.score_tables import render_scores

    return render_scores(nugget_grid(table, systems), fmt)


def run_topic_rows(table: NuggetTable, run: str) -> list[tuple[str, bool, dict[str, float]]]:
    """One run's per-topic scores, the cells its mean is over (topics in the table's order):
    (topic, answered, {measure: value}); an unanswered topic scores 0 (`score --nuggets -q`)."""
    if run not in table.systems:
        return []
    i = table.systems.index(run)
    return [(table.queries[j], bool(table.answered[i, j]),
             {m: float(table.values[m][i, j]) for m in table.measures})
            for j in np.flatnonzero(table.counted[i]).tolist()]


def run_topic_csv(table: NuggetTable, run: str) -> str:
    """`run_topic_rows` as CSV (`source,system,query,answered,MEASURE...`; the drill-down's export)."""
    import io

    from workbench.formats.csv_cells import csv_writer
    from workbench.formats.score_tables import csv_value

    out = io.StringIO()
    writer = csv_writer(out)
    writer.writerow(["source", "system", "query", "answered", *table.measures])
    for topic, answered, values in run_topic_rows(table, run):
        writer.writerow([table.source, run, topic, int(answered), *(csv_value(values[m]) for m in table.measures)])
    return out.getvalue()
