"""`export nuggets|assignments|nugget-scores|answers`: the import shapes written back
(formats/answer_files.py), so that a file read and written again gives the same records in
the same order (topics and runs in the order they were first imported: their ids)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from workbench.campaign.answers.labels import source_labels
from workbench.campaign.answers.scores import nugget_table
from workbench.campaign.database import Database
from workbench.campaign.scoring.sources import QrelsSource
from workbench.formats.answer_files import LABEL_NAMES, answer_record
from workbench.store.answers import stored_answers
from workbench.store.nuggets import nuggets, pair_order, query_names, system_tags

# nuggetizer's metric names, then the two weighted ones
SCORE_KEYS = {"all": "all_score", "all_strict": "strict_all_score", "vital": "vital_score",
              "vital_strict": "strict_vital_score", "weighted": "weighted_score",
              "weighted_strict": "strict_weighted_score"}


def nugget_records(db: Database) -> list[dict]:
    """nuggetizer's create output, one record per topic with nuggets."""
    with db.reader() as reader:
        rows = nuggets(reader)
        names = query_names(reader)
    by_topic: dict[int, list] = defaultdict(list)
    for n in rows:
        by_topic[n.query_id].append({"text": n.text, "importance": n.importance})
    return [{"qid": names[q][0], "query": names[q][1], "nuggets": items}
            for q, items in sorted(by_topic.items())]


def assignment_records(db: Database, source: QrelsSource) -> list[dict]:
    """nuggetizer's assign output, one record per (topic, run) with labels under `source`,
    its nuggets in bank order."""
    with db.reader() as reader:
        rows = nuggets(reader)
        ln, ls, ll = source_labels(reader, source)
        names = query_names(reader)
        tags = system_tags(reader)
        first = pair_order(reader)
    info = {n.id: n for n in rows}
    order = np.lexsort((ls, np.array([info[int(n)].position if int(n) in info else 0 for n in ln]),
                        np.array([info[int(n)].query_id if int(n) in info else 0 for n in ln]))) \
        if ln.size else np.zeros(0, dtype=np.int64)
    records: dict[tuple[int, int], list] = {}
    for k in order.tolist():
        n = info.get(int(ln[k]))
        if n is None:
            continue
        records.setdefault((n.query_id, int(ls[k])), []).append(
            (n.position, n.id, {"text": n.text, "importance": n.importance,
                                "assignment": LABEL_NAMES[int(ll[k])]}))
    out = []
    for (q, s), items in sorted(records.items(), key=lambda kv: (first.get(kv[0], 0), kv[0])):
        items.sort(key=lambda t: (t[0], t[1]))
        out.append({"qid": names[q][0], "query": names[q][1], "run_id": tags[s],
                    "nuggets": [t[2] for t in items]})
    return out


def score_records(db: Database, source: QrelsSource, *, answered_only: bool = False) -> list[dict]:
    """nuggetizer's metrics JSONL: one line per (run, topic), then one per run with
    qid "all" (the run's mean)."""
    table = nugget_table(db, source, answered_only=answered_only)
    out = []
    for i, run in enumerate(table.systems):
        for j in np.flatnonzero(table.counted[i]).tolist():
            out.append({"run_id": run, "qid": table.queries[j],
                        **{SCORE_KEYS[m]: float(table.values[m][i, j]) for m in table.measures}})
        out.append({"run_id": run, "qid": "all",
                    **{SCORE_KEYS[m]: float(table.means[m][i]) for m in table.measures}})
    return out


def answer_records(db: Database) -> list[dict]:
    """The answers as imported (TREC RAG 2024 or 2025 shape), in import order."""
    with db.reader() as reader:
        answers = stored_answers(reader)
    return [answer_record(a.shape, a.cites_by_id, a.meta, a.sentences, a.references) for a in answers]
