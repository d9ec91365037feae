"""Build sample_db/sample.sqlite: a small, realistic campaign for the demo and the tests.

    python sample_db/build_sample.py [--out PATH]      (`make sample`)

Deterministic (every random choice comes from SEED), built through the real code paths:
1. documents are generated from the project-written sentences in data/content.txt: for each
   of the 10 topics in data/topics.trec, 30 documents with a hidden "true" grade (4 highly
   relevant, 6 relevant, 8 marginal, 12 near misses that share words with the topic);
2. `import_queries` / `import_documents` / `import_run` read the topics, the documents
   (JSONL) and four TREC runs written by the numpy systems of retrieval.py;
3. `make_pool("depth", depth=15)` assigned to alice, bob, carol (overlap=0.8, repeat=0.05);
4. each assessor works through their queue with `record_grade` (one transaction per grade,
   as in the TUI), grading the hidden truth plus their own noise and bias: alice careful,
   bob lenient, carol strict and unfinished (she stops at 60 % of her queue). Hidden
   repeats get a second, independent grade through `record_repeat`. A few grades are
   changed, one undone, and some carry notes;
5. the campaign gets a name and the systems descriptions; event times are set to a
   plausible timeline (sessions over a few March days) so that the history and the
   seconds per document look like real work, and do not depend on when the script ran;
6. the file is VACUUMed and left in rollback-journal mode: one self-contained file (the
   demo and the tests open copies of it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import retrieval  # noqa: E402  (sample_db/retrieval.py)

SEED = 20260301
DATA = HERE / "data"
OUT = HERE / "sample.sqlite"
POOL_DEPTH = 15
RUN_LENGTH = 100
ASSESSORS = ("alice", "bob", "carol")
OVERLAP = 0.8
REPEAT = 0.05
CAROL_DONE = 0.6
# Per topic: how many documents of each hidden grade.
GRADE_MIX = {3: 4, 2: 6, 1: 8, 0: 12}
NOTES = (
    "borderline: mentions the topic only in passing",
    "good overview",
    "partly off topic",
    "answers the question directly",
    "same advice as an earlier page",
    "useful but thin",
)


# --- inputs -------------------------------------------------------------------------------


@dataclass
class Topic:
    id: str
    domain: str
    title: str
    description: str
    titles: list[str]
    side: list[str]
    on: list[str]
    rel: list[str]
    decoy: list[str]


def read_content(path: Path = DATA / "content.txt") -> tuple[dict[str, dict[str, list[str]]], list[Topic]]:
    """Domains (title/text lines) and topics (title/side/on/rel/decoy lines)."""
    domains: dict[str, dict[str, list[str]]] = {}
    topics: list[Topic] = []
    current: dict[str, list[str]] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        header = re.fullmatch(r"\[(domain|topic) ([^\]]+)\]", line)
        if header:
            kind, rest = header.groups()
            current = {"title": [], "text": [], "side": [], "on": [], "rel": [], "decoy": []}
            if kind == "domain":
                domains[rest] = current
            else:
                tid, domain = rest.split()
                topics.append(Topic(tid, domain, "", "", current["title"], current["side"],
                                    current["on"], current["rel"], current["decoy"]))
            continue
        key, _, value = line.partition(":")
        assert current is not None and key in current, f"content.txt: bad line {line!r}"
        current[key].append(value.strip())
    return domains, topics


def read_topic_texts(path: Path = DATA / "topics.trec") -> dict[str, tuple[str, str]]:
    """id -> (title, description), read with the project's own topic reader."""
    from workbench.formats.topics import read_topics

    return {t.id: (t.title, t.description) for t in read_topics(str(path))}


# --- documents ----------------------------------------------------------------------------


def _pick(rng: np.random.Generator, items: list[str], n: int) -> list[str]:
    n = max(0, min(n, len(items)))
    return [items[i] for i in rng.choice(len(items), size=n, replace=False)]


def make_document(
    rng: np.random.Generator, topic: Topic, grade: int, domain: dict[str, list[str]],
    siblings: list[Topic],
) -> tuple[str, str]:
    """(title, text) of a document whose true grade for `topic` is `grade`."""
    if grade == 3:
        title = str(rng.choice(topic.titles))
        body = _pick(rng, topic.on, int(rng.integers(3, 6))) + _pick(rng, topic.rel, int(rng.integers(0, 2)))
        body += _pick(rng, domain["text"], int(rng.integers(0, 2)))
    elif grade == 2:
        title = str(rng.choice(topic.titles if rng.random() < 0.4 else topic.side))
        body = _pick(rng, topic.on, int(rng.integers(1, 3))) + _pick(rng, topic.rel, int(rng.integers(1, 3)))
        body += _pick(rng, domain["text"], int(rng.integers(1, 3)))
        rng.shuffle(body)
    elif grade == 1:
        title = str(rng.choice(topic.side if rng.random() < 0.6 else domain["title"]))
        body = _pick(rng, topic.rel, int(rng.integers(1, 3))) + _pick(rng, domain["text"], int(rng.integers(2, 4)))
        if rng.random() < 0.3:
            body += _pick(rng, topic.on, 1)
        rng.shuffle(body)
    else:
        other = siblings[int(rng.integers(len(siblings)))] if siblings else topic
        title = str(rng.choice(domain["title"] + other.side))
        body = _pick(rng, topic.decoy, int(rng.integers(1, 3))) + _pick(rng, domain["text"], int(rng.integers(2, 4)))
        body += _pick(rng, other.rel, int(rng.integers(0, 2)))
        rng.shuffle(body)
    return title, " ".join(body)


def make_documents(rng: np.random.Generator, domains, topics: list[Topic]):
    """300 documents with ids d001..d300 in a shuffled order (ids do not reveal topics);
    returns (documents, truth) with truth[(topic id, doc id)] = grade (absent = 0)."""
    drafts = []
    for topic in topics:
        siblings = [t for t in topics if t.domain == topic.domain and t.id != topic.id]
        for grade, count in GRADE_MIX.items():
            for _ in range(count):
                title, text = make_document(rng, topic, grade, domains[topic.domain], siblings)
                drafts.append((topic.id, grade, title, text))
    order = rng.permutation(len(drafts))
    documents, truth = [], {}
    for number, i in enumerate(order.tolist(), start=1):
        tid, grade, title, text = drafts[i]
        doc_id = f"d{number:03d}"
        documents.append({"id": doc_id, "title": title, "text": text})
        if grade:
            truth[(tid, doc_id)] = grade
    return documents, truth


# --- systems ------------------------------------------------------------------------------


SYSTEMS = ("bm25", "tfidf", "qld", "doclen")
DESCRIPTIONS = {
    "bm25": "Okapi BM25 (k1 1.2, b 0.75), title + description query",
    "tfidf": "TF-IDF cosine (log tf), title query",
    "qld": "query likelihood, Dirichlet mu 250, title query",
    "doclen": "weak baseline: longest documents first, ignores the query",
}
CAMPAIGN_NAME = "Sample: hobby questions (cooking, cycling, astronomy, gardening)"


def run_systems(rng: np.random.Generator, documents, topic_texts) -> dict[str, list[tuple[str, str, float]]]:
    """tag -> [(qid, docno, score)], the top RUN_LENGTH per query."""
    index = retrieval.Index.build([f"{d['title']} {d['text']}" for d in documents])
    ids = [d["id"] for d in documents]
    runs: dict[str, list[tuple[str, str, float]]] = {tag: [] for tag in SYSTEMS}
    for qid, (title, description) in sorted(topic_texts.items()):
        scores = {
            "bm25": retrieval.bm25(index, f"{title} {description}"),
            "tfidf": retrieval.tfidf_cosine(index, title),
            "qld": retrieval.query_likelihood(index, title),
            "doclen": retrieval.doc_length(index, title, rng),
        }
        for tag, values in scores.items():
            for i in retrieval.top_n(values, RUN_LENGTH).tolist():
                runs[tag].append((qid, ids[i], round(float(values[i]), 6)))
    return runs


def write_inputs(folder: Path, documents, runs) -> dict[str, Path]:
    paths = {"documents": folder / "documents.jsonl"}
    with open(paths["documents"], "w", encoding="utf-8") as fh:
        for doc in documents:
            fh.write(json.dumps(doc, ensure_ascii=False) + "\n")
    for tag, rows in runs.items():
        paths[tag] = folder / f"{tag}.run"
        with open(paths[tag], "w", encoding="utf-8") as fh:
            rank: dict[str, int] = {}
            for qid, docno, score in rows:
                rank[qid] = rank.get(qid, 0) + 1
                fh.write(f"{qid} Q0 {docno} {rank[qid]} {score} {tag}\n")
    return paths


# --- assessors ----------------------------------------------------------------------------


def perceived_grades(rng: np.random.Generator, pool_items, truth) -> dict[tuple[str, str], int]:
    """What a careful reader takes each pooled item to be: the truth, but 1 in 10 items is
    genuinely ambiguous and reads one grade off (shared by all assessors)."""
    out = {}
    for item in pool_items:
        g = truth.get(item, 0)
        if rng.random() < 0.10:
            g = g + (1 if g == 0 else -1 if g == 3 else int(rng.choice([-1, 1])))
        out[item] = g
    return out


def assessor_grade(rng: np.random.Generator, name: str, g: int) -> int:
    """Assessor-specific bias and noise on top of the perceived grade."""
    if name == "bob" and g < 3 and rng.random() < 0.25:  # lenient
        g += 1
    if name == "carol" and g > 0 and rng.random() < 0.25:  # strict
        g -= 1
    noise = {"alice": 0.10, "bob": 0.12, "carol": 0.10}[name]
    if rng.random() < noise:
        g += 1 if g == 0 else -1 if g == 3 else int(rng.choice([-1, 1]))
    return g


def queue_items(db, assessor: str) -> list[tuple[str, str, bool]]:
    """(query, doc, repeat) in the order the assessor meets them: query by query."""
    from sqlalchemy import select

    from workbench.store.models import Assessor, Assignment, Document, Query

    with db.read() as s:
        return [
            (q, d, bool(r))
            for q, d, r in s.execute(
                select(Query.ext_id, Document.ext_id, Assignment.repeat)
                .join(Assessor, Assessor.id == Assignment.assessor_id)
                .join(Query, Query.id == Assignment.query_id)
                .join(Document, Document.id == Assignment.document_id)
                .where(Assessor.name == assessor)
                .order_by(Query.ext_id, Assignment.position)
            )
        ]


def judge(db, rng: np.random.Generator, perceived) -> dict[str, int]:
    """Every assessor grades their queue through the real use cases; returns grades done."""
    from workbench.campaign.judging.assessing import record_repeat
    from workbench.campaign.judging.grades import record_grade, undo_last

    done = {}
    for name in ASSESSORS:
        items = queue_items(db, name)
        stop = int(round(CAROL_DONE * len(items))) if name == "carol" else len(items)
        for n, (q, d, repeat) in enumerate(items[:stop]):
            grade = assessor_grade(rng, name, perceived[(q, d)])
            seconds = round(float(np.clip(rng.lognormal(np.log(14.0), 0.6), 3.0, 120.0)), 1)
            if repeat:
                record_repeat(db, name, q, d, grade, seconds=seconds)
                continue
            note = str(rng.choice(NOTES)) if rng.random() < 0.04 else None
            if rng.random() < 0.03:  # a first impression, corrected a moment later
                first = min(3, grade + 1) if grade < 3 else grade - 1
                record_grade(db, name, q, d, first, seconds=seconds)
                seconds = round(float(rng.uniform(2.0, 8.0)), 1)
            record_grade(db, name, q, d, grade, note=note, seconds=seconds)
            if name == "alice" and n == 40:  # a slip of the finger, undone at once
                record_grade(db, name, q, d, 3 - grade, seconds=1.0)
                undo_last(db, name)
        done[name] = stop
    return done


def set_timeline(db, rng: np.random.Generator) -> None:
    """Give events a realistic timeline: each assessor works in sessions of about 45 items
    over a few days in March 2026, an event's time advancing by its seconds spent."""
    from sqlalchemy import bindparam, select, update

    from workbench.store.models import Assessor, Campaign, Judgment, JudgmentEvent, System

    start = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
    with db.write.begin() as s:
        s.execute(
            update(Campaign).where(Campaign.id == 1)
            .values(created_at=start - timedelta(days=1), name=CAMPAIGN_NAME)
        )
        for tag, text in DESCRIPTIONS.items():  # no use case sets these: plain updates
            s.execute(update(System).where(System.tag == tag).values(description=text))
        names = dict(s.execute(select(Assessor.id, Assessor.name)).all())
        events = s.execute(
            select(JudgmentEvent.id, JudgmentEvent.assessor_id, JudgmentEvent.query_id,
                   JudgmentEvent.document_id, JudgmentEvent.seconds).order_by(JudgmentEvent.id)
        ).all()
        clock: dict[int, datetime] = {}
        count: dict[int, int] = {}
        times, first_seen, last_seen = [], {}, {}
        for eid, aid, qid, did, seconds in events:
            offset = ASSESSORS.index(names[aid]) if names[aid] in ASSESSORS else 3
            t = clock.get(aid, start + timedelta(hours=offset, minutes=int(rng.integers(0, 50))))
            count[aid] = count.get(aid, 0) + 1
            if count[aid] % 45 == 0:  # end of a session: next one a few hours or a day later
                t += timedelta(hours=float(rng.choice([3.0, 5.0, 21.0])))
            t += timedelta(seconds=float(seconds or 0.0) + float(rng.uniform(0.5, 3.0)))
            clock[aid] = t
            times.append({"b_id": eid, "b_at": t})
            first_seen.setdefault((qid, did, aid), t)
            last_seen[(qid, did, aid)] = t
        s.execute(
            update(JudgmentEvent.__table__)
            .where(JudgmentEvent.__table__.c.id == bindparam("b_id"))
            .values(created_at=bindparam("b_at")),
            times,
        )
        judgments = s.execute(
            select(Judgment.id, Judgment.query_id, Judgment.document_id, Judgment.assessor_id)
        ).all()
        s.execute(
            update(Judgment.__table__)
            .where(Judgment.__table__.c.id == bindparam("b_id"))
            .values(created_at=bindparam("b_first"), updated_at=bindparam("b_last")),
            [
                {"b_id": jid, "b_first": first_seen[(q, d, a)], "b_last": last_seen[(q, d, a)]}
                for jid, q, d, a in judgments
            ],
        )
        for aid, name in names.items():
            first = min((t for (q, d, a), t in first_seen.items() if a == aid), default=start)
            s.execute(
                update(Assessor).where(Assessor.id == aid).values(created_at=first - timedelta(minutes=2))
            )


# --- build --------------------------------------------------------------------------------


def build(out: Path = OUT, *, verbose: bool = True) -> dict[str, object]:
    from workbench.campaign.database import Database
    from workbench.campaign.catalog.importing import import_documents, import_queries, import_run
    from workbench.campaign.pooling.build import make_pool
    from workbench.campaign.pooling.assign import queue_counts

    rng = np.random.default_rng(SEED)
    domains, topics = read_content()
    topic_texts = read_topic_texts()
    assert sorted(topic_texts) == sorted(t.id for t in topics), "topics.trec and content.txt disagree"
    documents, truth = make_documents(rng, domains, topics)
    runs = run_systems(rng, documents, topic_texts)

    out = Path(out)
    with tempfile.TemporaryDirectory(prefix="wb-sample-", dir=out.parent) as tmp:
        folder = Path(tmp)
        paths = write_inputs(folder, documents, runs)
        db_path = folder / "sample.sqlite"
        db = Database.open(str(db_path))
        try:
            import_queries(db, DATA / "topics.trec")
            import_documents(db, paths["documents"])
            for tag in SYSTEMS:
                import_run(db, paths[tag], name=tag)
            pool = make_pool(db, "depth", depth=POOL_DEPTH, assessors=list(ASSESSORS),
                             overlap=OVERLAP, repeat=REPEAT, seed=SEED)
            queues = queue_counts(db)
            pool_items = [(q, d) for q, d, _ in _pool_rows(db)]
            perceived = perceived_grades(rng, pool_items, truth)
            done = judge(db, rng, perceived)
            set_timeline(db, rng)
        finally:
            db.close()
        _finish_sqlite(db_path)
        os.replace(db_path, out)
    summary = {
        "queries": len(topic_texts), "documents": len(documents), "systems": list(SYSTEMS),
        "pool": pool.n_entries, "queues": queues,
        "graded": done, "size_kb": round(out.stat().st_size / 1024),
    }
    if verbose:
        print(json.dumps(summary))
    return summary


def _pool_rows(db):
    from sqlalchemy import select

    from workbench.store.models import Document, PoolEntry, Query

    with db.read() as s:
        return s.execute(
            select(Query.ext_id, Document.ext_id, PoolEntry.best_rank)
            .join(Query, Query.id == PoolEntry.query_id)
            .join(Document, Document.id == PoolEntry.document_id)
            .order_by(Query.ext_id, Document.ext_id)
        ).all()


def _finish_sqlite(path: Path) -> None:
    """Leave a single compacted file (the WAL checkpointed away) in rollback-journal mode:
    self-contained, no -wal file needed (tests/store/test_sample_db.py checks the header)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("VACUUM")
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"output file (default {OUT})")
    args = parser.parse_args(argv)
    build(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
