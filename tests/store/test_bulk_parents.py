"""store.bulk.parents_locked and indexes_rebuilt (the PostgreSQL import of
900 000 nugget labels): the parents are locked FOR KEY SHARE and checked, the per-row
foreign-key triggers are skipped only where the role may set session_replication_role and
only inside the block, and a role that may not gets the triggers (the import still right);
a first load's indexes come back as they were, unique still enforced, and a role that does
not own the tables keeps them. PostgreSQL only (WORKBENCH_TEST_PG_URL); on SQLite the
blocks do nothing."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.cli.helpers import cli_ok
from workbench.campaign.database import Database
from workbench.campaign.writing import write_transaction
from workbench.errors import DatabaseError
from workbench.store.bulk import parents_locked
from workbench.store.dbapi import as_reader


def _campaign(db_url, tmp_path) -> Database:
    path = tmp_path / "a.jsonl"
    path.write_text("".join(json.dumps({"qid": "t1", "run_id": run, "nuggets": [
        {"text": t, "importance": "okay", "assignment": "support"} for t in ("alpha", "beta")]}) + "\n"
        for run in ("rA", "rB")), encoding="utf-8")
    cli_ok(db_url, "import", "assignments", str(path), "-a", "ann")
    return Database.open(db_url, create=False)


def _ids(reader) -> dict[str, list[int]]:
    return {t: [int(r[0]) for r in reader.rows(f'SELECT id FROM "{t}"')]
            for t in ("query", "system", "nugget", "assessor")}


def _bad_row(reader) -> None:
    """An assignment of a nugget that does not exist: the foreign key refuses it."""
    ids = _ids(reader)
    reader.run("INSERT INTO nugget_assignment (query_id, system_id, nugget_id, assessor_id, label, note, "
               "seconds, updated_at) VALUES (:q, :s, 987654, :a, 2, '', 0, now())",
               {"q": ids["query"][0], "s": ids["system"][0], "a": ids["assessor"][0]})


def test_sqlite_does_nothing(tmp_path):
    db = _campaign(f"sqlite:///{tmp_path / 'x.sqlite'}", tmp_path)
    try:
        with write_transaction(db) as session, parents_locked(session, {"nugget": [987654]}) as skipped:
            assert skipped is False  # not even the check: SQLite has no FOR KEY SHARE
    finally:
        db.close()


@pytest.fixture
def pg(db_url, tmp_path):
    if not db_url.startswith("postgresql"):
        pytest.skip("PostgreSQL only (WORKBENCH_TEST_PG_URL)")
    db = _campaign(db_url, tmp_path)
    yield db
    db.close()


def test_triggers_skipped_inside_only_and_parents_checked(pg):
    with write_transaction(pg) as session:
        reader = as_reader(session)
        superuser = reader.scalar("SHOW is_superuser") == "on"
        with parents_locked(session, _ids(reader)) as skipped:
            assert skipped is superuser
            assert reader.scalar("SHOW session_replication_role") == ("replica" if superuser else "origin")
            # the parents are locked as the triggers lock them: FOR KEY SHARE, by this transaction
            locked = reader.scalar("SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' "
                                   "AND pid = pg_backend_pid()")
            assert locked >= 1
        assert reader.scalar("SHOW session_replication_role") == "origin"
        with pytest.raises(Exception, match="foreign key"):
            _bad_row(reader)  # after the block the triggers are back
    with pytest.raises(DatabaseError, match="1 rows of nugget were removed"):
        with write_transaction(pg) as session:
            ids = _ids(as_reader(session))
            with parents_locked(session, {**ids, "nugget": ids["nugget"] + [987654]}):
                pass


def test_a_role_that_may_not_skip_gets_the_triggers(pg, tmp_path):
    role = f"wbtest_{uuid.uuid4().hex[:10]}"
    with write_transaction(pg) as session:
        reader = as_reader(session)
        if reader.scalar("SHOW is_superuser") != "on":
            pytest.skip("needs a superuser to make the role")
        schema = reader.scalar("SELECT current_schema()")
        for sql in (f'CREATE ROLE "{role}" NOLOGIN', f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"',
                    f'GRANT ALL ON ALL TABLES IN SCHEMA "{schema}" TO "{role}"',
                    f'GRANT ALL ON ALL SEQUENCES IN SCHEMA "{schema}" TO "{role}"'):
            reader.run(sql)
    try:
        with write_transaction(pg) as session:
            reader = as_reader(session)
            reader.run(f'SET LOCAL ROLE "{role}"')
            with parents_locked(session, _ids(reader)) as skipped:
                assert skipped is False  # refused: rolled back to the savepoint, the triggers run
                assert reader.scalar("SHOW session_replication_role") == "origin"
                with pytest.raises(Exception, match="foreign key"):
                    reader.run("SAVEPOINT bad")
                    _bad_row(reader)
                reader.run("ROLLBACK TO SAVEPOINT bad")
        # and an import through a connection as that role is whole, with the triggers
        from urllib.parse import quote

        from workbench.campaign.answers.importing import import_assignments

        url = pg.url
        assert url.endswith(quote(f"-csearch_path={schema}"))
        path = tmp_path / "b.jsonl"
        path.write_text(json.dumps({"qid": "t1", "run_id": "rC", "nuggets": [
            {"text": "alpha", "importance": "okay", "assignment": "not_support"}]}) + "\n", encoding="utf-8")
        as_role = Database.open(url + quote(f" -crole={role}"), create=False)
        try:
            with as_role.reader() as r:
                assert as_reader(r).scalar("SELECT current_user") == role
            import_assignments(as_role, str(path), assessor="ann")
        finally:
            as_role.close()
        with pg.reader() as r:
            rows = sorted(as_reader(r).rows("SELECT s.tag, n.text, e.new_label FROM nugget_event e "
                                            "JOIN system s ON s.id = e.system_id JOIN nugget n ON n.id = e.nugget_id "
                                            "WHERE e.kind = 'set'"))
        assert rows == [("rA", "alpha", 2), ("rA", "beta", 2), ("rB", "alpha", 2), ("rB", "beta", 2),
                        ("rC", "alpha", 0)]
    finally:
        with write_transaction(pg) as session:
            as_reader(session).run(f'DROP OWNED BY "{role}"')
            as_reader(session).run(f'DROP ROLE "{role}"')


def _index_defs(reader) -> list[tuple]:
    return sorted(reader.rows("SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = "
                              "current_schema() AND tablename IN ('nugget_assignment', 'nugget_event')"))


def _empty_label_tables(pg) -> None:
    with write_transaction(pg) as session:
        as_reader(session).run("DELETE FROM nugget_event")
        as_reader(session).run("DELETE FROM nugget_assignment")


def test_a_first_load_rebuilds_the_indexes_as_they_were(pg, tmp_path, monkeypatch):
    """A first bulk load drops the secondary indexes and the unique constraint and builds
    them again, the same; a table that already has rows keeps them; a duplicate still fails."""
    import workbench.store.bulk as bulk
    from workbench.campaign.answers.importing import import_assignments

    with pg.reader() as r:
        before = _index_defs(as_reader(r))
    assert len(before) == 6  # two primary keys, the unique constraint, three indexes
    _empty_label_tables(pg)
    monkeypatch.setattr(bulk, "REBUILD_MIN_ROWS", 1)
    dropped = []
    real = bulk.indexes_rebuilt

    def spy(conn, tables, rows):
        with real(conn, tables, rows) as done:
            dropped.append(done)
            yield done

    from contextlib import contextmanager

    import workbench.store.nuggets as store_nuggets

    monkeypatch.setattr(store_nuggets, "indexes_rebuilt", contextmanager(spy))
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"qid": "t1", "run_id": run, "nuggets": [
        {"text": t, "importance": "okay", "assignment": "partial_support"} for t in ("alpha", "beta")]}) + "\n"
        for run in ("rA", "rB", "rC")), encoding="utf-8")
    import_assignments(pg, str(path), assessor="ann")
    assert dropped == [True]
    with pg.reader() as r:
        assert _index_defs(as_reader(r)) == before
        assert as_reader(r).scalar("SELECT count(*) FROM nugget_assignment WHERE label = 1") == 6
    path.write_text(json.dumps({"qid": "t1", "run_id": "rD", "nuggets": [
        {"text": "alpha", "importance": "okay", "assignment": "support"}]}) + "\n", encoding="utf-8")
    import_assignments(pg, str(path), assessor="ann")
    assert dropped == [True, False]  # rows there: the indexes stay
    with pytest.raises(Exception, match="uq_nugget_assignment_nugget_id_system_id_assessor_id"):
        with write_transaction(pg) as session:
            as_reader(session).run("INSERT INTO nugget_assignment (query_id, system_id, nugget_id, assessor_id, "
                                   "label, note, seconds, updated_at) SELECT query_id, system_id, nugget_id, "
                                   "assessor_id, 0, '', 0, now() FROM nugget_assignment LIMIT 1")


def test_a_role_that_does_not_own_the_tables_keeps_the_indexes(pg):
    role = f"wbtest_{uuid.uuid4().hex[:10]}"
    _empty_label_tables(pg)
    with write_transaction(pg) as session:
        reader = as_reader(session)
        if reader.scalar("SHOW is_superuser") != "on":
            pytest.skip("needs a superuser to make the role")
        schema = reader.scalar("SELECT current_schema()")
        before = _index_defs(reader)
        for sql in (f'CREATE ROLE "{role}" NOLOGIN', f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"',
                    f'GRANT ALL ON ALL TABLES IN SCHEMA "{schema}" TO "{role}"'):
            reader.run(sql)
    try:
        from workbench.store.bulk import indexes_rebuilt

        with write_transaction(pg) as session:
            reader = as_reader(session)
            reader.run(f'SET LOCAL ROLE "{role}"')
            with indexes_rebuilt(session, ("nugget_assignment", "nugget_event"), 10**6) as dropped:
                assert dropped is False  # DROP INDEX needs the owner: rolled back to the savepoint
                assert _index_defs(reader) == before
    finally:
        with write_transaction(pg) as session:
            as_reader(session).run(f'DROP OWNED BY "{role}"')
            as_reader(session).run(f'DROP ROLE "{role}"')
