"""The committed sample database: at the migration head, the promised shape, and exactly
what sample_db/build_sample.py builds. Tests open a COPY: opening a SQLite file with the
workbench engine switches it to WAL, and the committed file must stay untouched."""

from __future__ import annotations

import importlib.util
import shutil
import sqlite3
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import func, select

from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.database import Database
from workbench.campaign.pooling.assign import build_pool
from workbench.campaign.scoring.qrels import derive_qrels
from workbench.store.engine import make_engine
from workbench.store.models import (
    Assessor,
    Assignment,
    Campaign,
    Document,
    Judgment,
    JudgmentEvent,
    PoolEntry,
    Query,
    RunArrays,
    System,
)
from workbench.store.schema import check_database, current_revision, head_revision

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_db" / "sample.sqlite"


@pytest.fixture(scope="module")
def sample_copy(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("sample") / "sample.sqlite"
    shutil.copyfile(SAMPLE, copy)
    return copy


@pytest.fixture(scope="module")
def sample(sample_copy):
    database = Database.open(str(sample_copy), create=False)
    yield database
    database.close()


def test_committed_file_is_small_self_contained_and_not_wal():
    assert SAMPLE.stat().st_size < 5 * 1024 * 1024
    header = SAMPLE.read_bytes()[:100]
    assert header[:16] == b"SQLite format 3\x00"
    assert header[18:20] == b"\x01\x01"  # rollback journal, not WAL: no -wal file needed
    assert not SAMPLE.with_name("sample.sqlite-wal").exists()


def test_sample_opens_at_the_migration_head(sample_copy):
    engine = make_engine(str(sample_copy))
    try:
        assert check_database(engine) == "current"
        assert current_revision(engine) == head_revision()
    finally:
        engine.dispose()


def test_queries_documents_systems(sample):
    with sample.read() as s:
        queries = s.execute(select(Query.ext_id, Query.title, Query.description, Query.narrative)).all()
        assert len(queries) == 10
        assert all(title and desc and narr for _, title, desc, narr in queries)
        n_docs = s.scalar(select(func.count()).select_from(Document))
        assert 280 <= n_docs <= 320
        assert s.scalar(select(func.count()).select_from(Document).where(Document.text == "")) == 0
        assert set(s.scalars(select(System.tag))) == {"bm25", "tfidf", "qld", "doclen"}
        per_run = dict(
            s.execute(select(System.tag, RunArrays.n_rows).join(RunArrays)).all()
        )
        assert per_run == {tag: 10 * 100 for tag in ("bm25", "tfidf", "qld", "doclen")}
        assert s.scalar(select(Campaign.pool_depth)) == 15


def test_pool_is_the_depth_15_union(sample_copy, tmp_path):
    # Re-pooling a second copy at depth 15 must add nothing: the stored pool is complete.
    again = tmp_path / "again.sqlite"
    shutil.copyfile(sample_copy, again)
    database = Database.open(str(again), create=False)
    try:
        with database.read() as s:
            before = s.scalar(select(func.count()).select_from(PoolEntry))
        summary = build_pool(database, 15)
        assert (summary.n_added, summary.n_improved, summary.n_entries) == (0, 0, before)
        assert summary.n_queries == 10 and 150 <= before <= 600
    finally:
        database.close()


def _judged_share(s, name: str) -> float:
    aid = s.scalar(select(Assessor.id).where(Assessor.name == name))
    assigned = s.scalar(
        select(func.count()).select_from(Assignment)
        .where(Assignment.assessor_id == aid, Assignment.repeat.is_(False))
    )
    judged = s.scalar(select(func.count()).select_from(Judgment).where(Judgment.assessor_id == aid))
    return judged / assigned


def test_three_assessors_overlapping_carol_unfinished(sample):
    with sample.read() as s:
        assert set(s.scalars(select(Assessor.name))) == {"alice", "bob", "carol"}
        assert _judged_share(s, "alice") == 1.0
        assert _judged_share(s, "bob") == 1.0
        assert 0.5 <= _judged_share(s, "carol") <= 0.7
        # Every pooled item is assigned to someone; most to more than one assessor.
        n_pool = s.scalar(select(func.count()).select_from(PoolEntry))
        holders = Counter(
            s.execute(
                select(Assignment.query_id, Assignment.document_id)
                .where(Assignment.repeat.is_(False))
            ).all()
        )
        assert len(holders) == n_pool
        assert sum(1 for n in holders.values() if n >= 2) >= 0.7 * n_pool
        # Hidden repeats exist and were graded as repeat events; history has changes/undo.
        kinds = dict(s.execute(select(JudgmentEvent.kind, func.count()).group_by(JudgmentEvent.kind)).all())
        assert kinds.get("repeat", 0) > 0 and kinds.get("change", 0) > 0 and kinds.get("undo") == 1
        assert s.scalar(select(func.count()).select_from(Judgment).where(Judgment.note != "")) > 0


def test_realistic_disagreement_between_alice_and_bob(sample):
    a = dict(((q, d), g) for q, d, g in derive_qrels(sample, QrelsSource.assessor("alice")).rows())
    b = dict(((q, d), g) for q, d, g in derive_qrels(sample, QrelsSource.assessor("bob")).rows())
    common = sorted(set(a) & set(b))
    assert len(common) >= 200
    agree = np.mean([a[k] == b[k] for k in common])
    assert 0.5 <= agree <= 0.9  # they mostly agree, but not always
    # bob is the lenient one
    assert np.mean([b[k] for k in common]) > np.mean([a[k] for k in common])


def _ndcg10(runs: dict[str, list[tuple[str, str, float]]], qrels_rows) -> dict[str, float]:
    """trec_eval's ndcg_cut.10 (linear gain, log2(rank+1), ideal over all judged docs),
    averaged over the judged queries; ties by docno descending."""
    rel: dict[str, dict[str, int]] = {}
    for q, d, g in qrels_rows:
        rel.setdefault(q, {})[d] = g
    disc = 1.0 / np.log2(np.arange(2, 12))
    out = {}
    for tag, rows in runs.items():
        per_query = {}
        for q, d, score in rows:
            per_query.setdefault(q, []).append((score, d))
        values = []
        for q, judged in rel.items():
            ranked = [d for _, d in sorted(per_query.get(q, []), reverse=True)][:10]
            gains = np.array([max(judged.get(d, 0), 0) for d in ranked], dtype=float)
            ideal = np.array(sorted(judged.values(), reverse=True)[:10], dtype=float)
            idcg = float(ideal @ disc[: len(ideal)])
            values.append(float(gains @ disc[: len(gains)]) / idcg if idcg else 0.0)
        out[tag] = float(np.mean(values))
    return out


def test_system_quality_order_is_plausible(sample):
    from tests.tui.factory import stored_runs

    runs = {tag: [(q, d, score) for q, docs in per_query.items() for d, score in docs.items()]
            for tag, per_query in stored_runs(sample).items()}
    ndcg = _ndcg10(runs, derive_qrels(sample, QrelsSource.consensus("majority")).rows())
    assert ndcg["bm25"] > ndcg["qld"] > ndcg["tfidf"] > ndcg["doclen"]
    assert ndcg["bm25"] - ndcg["doclen"] > 0.5
    assert ndcg["bm25"] == pytest.approx(0.851, abs=0.001)  # the value at commit time (repeats 10 apart)
    # `workbench export scores` (campaign.scoring.scores over the metrics package) agrees.
    from click.testing import CliRunner

    from workbench.cli import cli

    result = CliRunner().invoke(
        cli, ["--db", str(sample.engine.url.database), "export", "scores", "-m", "nDCG@10",
              "--consensus", "majority"],
    )
    assert result.exit_code == 0, result.output
    # source,system,queries,nDCG@10,Judged@10,unjudged@10 (the column keeps the name asked for)
    assert result.stdout.splitlines()[0].startswith("source,system,queries,nDCG@10,")
    exported = {
        row.split(",")[1]: float(row.split(",")[3]) for row in result.stdout.splitlines()[1:]
    }
    assert exported == pytest.approx(ndcg, abs=1e-6)


def _contents(path: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: sorted(conn.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr) for t in tables}
    finally:
        conn.close()


@pytest.mark.slow
def test_build_script_reproduces_the_committed_file(tmp_path):
    spec = importlib.util.spec_from_file_location("build_sample", ROOT / "sample_db" / "build_sample.py")
    module = importlib.util.module_from_spec(spec)
    saved_path = list(sys.path)
    sys.modules["build_sample"] = module
    try:
        spec.loader.exec_module(module)
        out = tmp_path / "rebuilt.sqlite"
        module.build(out, verbose=False)
    finally:  # the script puts sample_db/ on sys.path for its `retrieval` module
        sys.modules.pop("build_sample", None)
        sys.modules.pop("retrieval", None)
        sys.path[:] = saved_path
    assert _contents(out) == _contents(SAMPLE)


def test_every_repeat_is_ten_positions_or_half_the_queue_from_its_first_showing(sample):
    """The sample had carol's d222 at positions 27 and 28 of query 108."""
    from collections import defaultdict

    from workbench.campaign.pooling.assign import repeat_gap

    queues: dict[tuple[int, int], list[tuple[int, bool]]] = defaultdict(list)
    with sample.read() as s:
        for aid, qid, did, rep in s.execute(
            select(Assignment.assessor_id, Assignment.query_id, Assignment.document_id,
                   Assignment.repeat).order_by(Assignment.position)
        ):
            queues[(aid, qid)].append((did, bool(rep)))
    checked = 0
    for items in queues.values():
        gap = repeat_gap(sum(1 for _, rep in items if not rep))
        for i, (did, rep) in enumerate(items):
            if rep:
                first = items.index((did, False))
                assert i - first >= gap
                checked += 1
    assert checked == 42  # 14 repeats for each of alice, bob and carol
