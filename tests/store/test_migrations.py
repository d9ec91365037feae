"""Alembic migrations on SQLite and PostgreSQL: the initial revision creates exactly the
models' schema, upgrade/downgrade round-trips, and batch table rebuilds on SQLite never
cascade-delete child rows (docs/architecture.md#known-pitfalls)."""

from __future__ import annotations

import shutil

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import func, inspect, select, text

from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.judging.grades import record_grade
from workbench.store.engine import make_engine
from workbench.store.models import Base, Document, Judgment, PoolEntry, Query, ScaleLevel, System
from workbench.store.schema import (
    alembic_config,
    current_revision,
    downgrade,
    head_revision,
    migrations_dir,
    upgrade,
)

TABLES = {t.name for t in Base.metadata.sorted_tables}


def _tables(engine) -> set[str]:
    with engine.connect() as conn:
        return set(inspect(conn).get_table_names()) - {"alembic_version"}


def test_autogenerate_finds_no_difference_between_models_and_migrations(db_url):
    engine = make_engine(db_url)
    upgrade(engine)
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "render_as_batch": conn.dialect.name == "sqlite"}
        )
        diff = compare_metadata(context, Base.metadata)
    engine.dispose()
    assert diff == []


def test_upgrade_downgrade_upgrade(db_url):
    engine = make_engine(db_url)
    upgrade(engine)
    assert _tables(engine) == TABLES
    assert current_revision(engine) == head_revision()
    with engine.connect() as conn:
        # A new campaign is usable at once: the settings row and the 0-3 scale.
        assert conn.execute(text("SELECT id, relevance_threshold FROM campaign")).all() == [(1, 1)]
        assert conn.execute(select(ScaleLevel.grade).order_by(ScaleLevel.grade)).scalars().all() == [0, 1, 2, 3]
    downgrade(engine, "base")
    assert _tables(engine) == set()
    assert current_revision(engine) is None
    upgrade(engine)
    assert _tables(engine) == TABLES
    assert current_revision(engine) == head_revision()
    engine.dispose()


def _seed(engine) -> None:
    from workbench.campaign.database import Database

    db = Database.from_engine(engine)
    with db.write.begin() as s:
        s.add_all([Query(ext_id="q1"), Document(ext_id="d1"), System(tag="sys")])
    with db.write.begin() as s:
        s.add(PoolEntry(query_id=1, document_id=1, best_rank=1))
    record_grade(db, "ann", "q1", "d1", 2)


def _counts(engine) -> tuple[int, int, int]:
    with engine.connect() as conn:
        return tuple(conn.execute(select(func.count()).select_from(m)).scalar_one()
                     for m in (Query, PoolEntry, Judgment))


BATCH_REVISION = '''\
"""rebuild query (batch mode on SQLite)"""
from alembic import op
import sqlalchemy as sa

revision = "9002"
down_revision = "{head}"
branch_labels = None
depends_on = None


def _recreate() -> str:
    # Force SQLite's copy-drop-rename rebuild; PostgreSQL alters in place.
    return "always" if op.get_context().dialect.name == "sqlite" else "auto"


def upgrade() -> None:
    with op.batch_alter_table("query", recreate=_recreate()) as batch:
        batch.add_column(sa.Column("extra", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("query", recreate=_recreate()) as batch:
        batch.drop_column("extra")
'''


def _scripts_with_batch_revision(tmp_path, *, keep_foreign_keys_on: bool = False):
    scripts = tmp_path / "migrations"
    shutil.copytree(migrations_dir(), scripts, ignore=shutil.ignore_patterns("__pycache__"))
    (scripts / "versions" / "9002_rebuild_query.py").write_text(BATCH_REVISION.format(head=head_revision()))
    if keep_foreign_keys_on:
        env = scripts / "env.py"
        source = env.read_text()
        assert 'execute("PRAGMA foreign_keys = OFF")' in source
        env.write_text(source.replace('execute("PRAGMA foreign_keys = OFF")', 'execute("PRAGMA foreign_keys = ON")'))
    return scripts


def _migrate(engine, scripts, target: str) -> None:
    with engine.connect() as conn:
        cfg = alembic_config(conn)
        cfg.set_main_option("script_location", str(scripts))
        (command.upgrade if target == "9002" else command.downgrade)(cfg, target)
        if conn.in_transaction():
            conn.commit()


def test_batch_rebuild_of_a_parent_table_keeps_child_rows(db_url, tmp_path):
    """Rebuilding `query` drops and recreates it: with foreign keys on, SQLite would
    cascade-delete every pool entry and judgment. env.py switches them off and checks after."""
    scripts = _scripts_with_batch_revision(tmp_path)
    engine = make_engine(db_url)
    upgrade(engine)
    _seed(engine)
    assert _counts(engine) == (1, 1, 1)
    for target in ("9002", head_revision()):
        _migrate(engine, scripts, target)
        assert _counts(engine) == (1, 1, 1)
    if engine.dialect.name == "sqlite":
        with engine.connect() as conn:  # switched back on for normal work
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()


def test_the_cascade_hazard_is_real_without_the_env_guard(tmp_path):
    """Control for the test above: the same rebuild with foreign keys left on loses the
    child rows, so the guard in env.py is what keeps them."""
    scripts = _scripts_with_batch_revision(tmp_path, keep_foreign_keys_on=True)
    engine = make_engine(str(tmp_path / "hazard.sqlite"))
    upgrade(engine)
    _seed(engine)
    _migrate(engine, scripts, "9002")
    assert _counts(engine) == (1, 0, 0)
    engine.dispose()


def test_foreign_key_violation_aborts_a_sqlite_migration(tmp_path):
    engine = make_engine(str(tmp_path / "fk.sqlite"))
    upgrade(engine)
    raw = engine.raw_connection()
    try:
        raw.driver_connection.execute("PRAGMA foreign_keys = OFF")
        raw.driver_connection.execute(
            "INSERT INTO pool_entry (query_id, document_id, best_rank) VALUES (7, 7, 1)"
        )
    finally:
        raw.close()
    engine.dispose()
    engine = make_engine(str(tmp_path / "fk.sqlite"))
    with pytest.raises(RuntimeError, match="foreign key check failed after migration"):
        upgrade(engine)
    engine.dispose()


def test_one_linear_history():
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(alembic_config())
    revisions = list(scripts.walk_revisions())
    assert revisions[0].revision == head_revision()
    assert revisions[-1].down_revision is None
    assert len(scripts.get_heads()) == 1


def test_revision_graph_read_without_alembic_matches_alembic():
    from alembic.script import ScriptDirectory

    from workbench.store.schema import alembic_config, head_revision, known_revisions

    scripts = ScriptDirectory.from_config(alembic_config())
    assert head_revision() == scripts.get_current_head()
    assert known_revisions() == {s.revision for s in scripts.walk_revisions()}


# Ties on purpose: 1.00000002 and 1.00000001 are one float32 (trec_eval 9 breaks the tie
# by docno descending: b before a) but two doubles (trec_eval 10: a before b).
RUN_A = "q1 Q0 a 1 1.00000002 A\nq1 Q0 b 2 1.00000001 A\nq1 Q0 c 3 0.5 A\nq2 Q0 c 1 2.0 A\nq2 Q0 a 2 2.0 A\n"
RUN_B = "q2 Q0 b 1 3.0 B\nq1 Q0 c 1 9.0 B\nq1 Q0 a 2 1.0 B\n"
QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 a 1\nq2 0 b 1\n"
MEASURES = ["map", "P.1", "ndcg_cut.2", "bpref", "num_ret"]


def _import_campaign(url, tmp_path) -> None:
    from workbench.campaign.database import Database
    from workbench.campaign.catalog.importing import import_qrels, import_run

    for name, text_ in (("q.txt", QRELS), ("a.txt", RUN_A), ("b.txt", RUN_B)):
        (tmp_path / name).write_text(text_)
    db = Database.open(url)
    try:
        import_qrels(db, tmp_path / "q.txt", assessor="ann")
        for name in ("a.txt", "b.txt"):
            import_run(db, tmp_path / name)
    finally:
        db.close()


def _scores(url):
    from workbench.campaign.database import Database
    from workbench.campaign.scoring.scores import score_campaign

    db = Database.open(url)
    try:
        return score_campaign(db, MEASURES, source=QrelsSource.assessor("ann"))
    finally:
        db.close()


def test_0006_stores_the_runs_of_a_0005_database_as_a_fresh_import_does(db_url, tmp_path):
    """A database at 0005 holds its runs in `result` only (its import wrote no run_arrays
    rows then); upgrading fills run_arrays from it in trec_eval's order and drops `result`:
    the scores equal those of the fresh import."""
    _import_campaign(db_url, tmp_path)
    fresh = _scores(db_url)
    engine = make_engine(db_url)
    downgrade(engine, "0005")  # `result` rebuilt from the arrays
    with engine.begin() as conn:
        assert conn.execute(text("SELECT count(*) FROM result")).scalar_one() == 8
        # as a 0005 import wrote it: the rank in trec_eval 9's order (b before a: float32 tie)
        assert conn.execute(text(
            "SELECT document.ext_id FROM result JOIN document ON document.id = result.document_id "
            "JOIN system ON system.id = result.system_id JOIN query ON query.id = result.query_id "
            "WHERE system.tag = 'A' AND query.ext_id = 'q1' ORDER BY rank")).scalars().all() == ["b", "a", "c"]
        conn.execute(text("DELETE FROM run_arrays"))
    assert current_revision(engine) == "0005"
    upgrade(engine)
    assert current_revision(engine) == head_revision()
    assert "result" not in _tables(engine)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*), sum(n_rows) FROM run_arrays")).one() == (2, 8)
    engine.dispose()
    upgraded = _scores(db_url)
    assert upgraded.systems == fresh.systems == ("A", "B")
    assert upgraded.queries == fresh.queries
    for m in fresh.measures:
        assert upgraded.values[m].tolist() == fresh.values[m].tolist()
        assert upgraded.means[m].tolist() == fresh.means[m].tolist()
    # P.1 on q1: a (grade 1, the higher double) first for A, c for B
    assert (upgraded.value("A", "q1", "P_1"), upgraded.value("B", "q1", "P_1")) == (1.0, 1.0)


def test_0012_orders_the_stored_runs_as_doubles_and_back(db_url, tmp_path):
    """Before 0012 runs were stored with scores compared as float32 (trec_eval 9): A's q1
    started with b (1.00000001 ties 1.00000002 as a float; docno descending). 0012
    re-sorts from the stored doubles (a first, as trec_eval 10); downgrade puts b back.
    Readers see a new generation, so cached runs are not reused."""
    from workbench.store.run_arrays import runs_token

    _import_campaign(db_url, tmp_path)
    engine = make_engine(db_url)

    def first_of_a_q1():
        with engine.connect() as conn:
            return _scores_first(conn)

    assert first_of_a_q1() == "a"
    with engine.connect() as conn:
        token = runs_token(conn)
    downgrade(engine, "0011")
    assert first_of_a_q1() == "b"
    with engine.connect() as conn:
        assert runs_token(conn) != token
    upgrade(engine)
    assert first_of_a_q1() == "a"
    with engine.connect() as conn:
        assert runs_token(conn) == token  # the same bytes as a fresh import
    engine.dispose()
    assert _scores(db_url).value("A", "q1", "P_1") == 1.0


def _scores_first(conn) -> str:
    import numpy as np

    from workbench.store.run_arrays import id_names, load_stored_runs

    runs = load_stored_runs(conn)
    a = runs.tags.index("A")
    lo = int(runs.offsets[a])
    return id_names(conn, "document").of(np.array([runs.document_id[lo]]))[0].decode()
