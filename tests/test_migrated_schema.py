"""The suite's shortcut (tests/migrated_schema.py) makes the database the migrations make:
same tables, columns, keys, indexes, revision, settings row and scale, on every backend."""

from __future__ import annotations

from sqlalchemy import inspect, text

from tests.migrated_schema import replaying_upgrade
from workbench.store import schema
from workbench.store.engine import make_engine


def _fingerprint(engine) -> dict[str, object]:
    with engine.connect() as conn:
        insp = inspect(conn)
        tables = {}
        for name in sorted(insp.get_table_names()):
            tables[name] = {
                "columns": [
                    (c["name"], str(c["type"]), c["nullable"], str(c.get("default")))
                    for c in insp.get_columns(name)
                ],
                "pk": insp.get_pk_constraint(name),
                "fks": sorted(insp.get_foreign_keys(name), key=repr),
                "indexes": sorted(insp.get_indexes(name), key=repr),
                "unique": sorted(insp.get_unique_constraints(name), key=repr),
            }
        rows = {
            "version": conn.execute(text("SELECT version_num FROM alembic_version")).all(),
            "campaign": conn.execute(text(
                "SELECT id, name, relevance_threshold, default_measures, pool_depth, blind, "
                "guidelines, idle_cap_seconds FROM campaign")).all(),
            "scale": conn.execute(text("SELECT * FROM scale_level ORDER BY grade")).all(),
        }
        if engine.dialect.name == "sqlite":
            rows["sql"] = conn.execute(text(
                "SELECT type, name, sql FROM sqlite_master ORDER BY type, name")).all()
    return {"tables": tables, "rows": rows}


def _wiped(db_url: str, engine, n: int):
    """An empty database again: a new SQLite file, or the PostgreSQL schema dropped and made."""
    if engine.dialect.name == "sqlite":
        engine.dispose()
        return make_engine(db_url.replace(".sqlite", f"-{n}.sqlite"))
    with engine.begin() as conn:
        name = conn.execute(text("SELECT current_schema()")).scalar_one()
        conn.execute(text(f'DROP SCHEMA "{name}" CASCADE'))
        conn.execute(text(f'CREATE SCHEMA "{name}"'))
    return engine


def test_a_replayed_database_is_the_migrated_one(db_url):
    engine = make_engine(db_url)
    schema.upgrade(engine)  # the real migrations (this module is in REAL_MIGRATIONS)
    migrated = _fingerprint(engine)
    assert len(migrated["tables"]) > 10 and migrated["rows"]["version"] == [(schema.head_revision(),)]

    fast = replaying_upgrade(schema.upgrade)
    engine = _wiped(db_url, engine, 1)
    fast(engine)  # records the migrations, unless an earlier test did
    engine = _wiped(db_url, engine, 2)
    fast(engine)  # replays them
    try:
        assert _fingerprint(engine) == migrated
    finally:
        engine.dispose()


def test_replay_leaves_other_upgrades_to_alembic(db_url):
    """A revision other than head, and a database that is not empty, take the real path."""
    engine = make_engine(db_url)
    calls = []

    def real(engine, revision="head"):
        calls.append(revision)
        schema.upgrade(engine, revision)

    fast = replaying_upgrade(real)
    try:
        fast(engine, "0001")
        fast(engine)
        assert calls == ["0001", "head"]
        assert _fingerprint(engine)["rows"]["version"] == [(schema.head_revision(),)]
    finally:
        engine.dispose()
