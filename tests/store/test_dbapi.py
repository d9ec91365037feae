"""store.dbapi: the store's SQL text on a plain driver connection gives what it gives on
an SQLAlchemy session, on the sample database and (WORKBENCH_TEST_PG_URL) PostgreSQL."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from workbench.store.dbapi import as_reader, in_list, open_reader, pyformat
from workbench.store.database import Database

SAMPLE = Path(__file__).resolve().parents[2] / "sample_db" / "sample.sqlite"


def test_pyformat_keeps_casts_and_doubles_percent():
    assert pyformat("SELECT x::text FROM t WHERE a = :a AND b LIKE 'p\\_%'") == \
        "SELECT x::text FROM t WHERE a = %(a)s AND b LIKE 'p\\_%%'"


def test_in_list():
    assert in_list("q", [3, 5]) == ("(:q0, :q1)", {"q0": 3, "q1": 5})
    assert in_list("q", []) == ("(NULL)", {})


@pytest.fixture()
def sample(tmp_path):
    db = tmp_path / "sample.sqlite"
    shutil.copy(SAMPLE, db)
    return str(db)


def test_open_is_lazy_and_reads_without_an_engine(sample):
    database = Database.open(sample, create=False)
    assert database._engine is None  # a current database: checked through sqlite3 alone
    from workbench.store.catalog import run_counts

    with database.reader() as conn:
        direct = run_counts(conn)
    with database.read() as session:  # the same SQL text on the engine's session
        through = run_counts(session)
    assert direct.names == through.names == ["bm25", "tfidf", "qld", "doclen"]
    for key in ("queries", "results"):
        assert np.array_equal(direct.columns[key], through.columns[key])
    assert direct.columns["results"].tolist() == [1000] * 4
    database.close()


def _reads(conn):
    from workbench.store.judgment_arrays import adjudicated_grades, judgment_grades
    from workbench.store.run_arrays import load_stored_runs, query_names, runs_token

    runs = load_stored_runs(conn)
    return {
        "tags": runs.tags, **{f: getattr(runs, f) for f in ("offsets", "query_id", "document_id", "score")},
        "names": query_names(conn).names, "token": runs_token(conn),
        **{f"people_{k}": v for k, v in vars(judgment_grades(conn, people_only=True, query_ids=[1, 2])).items()},
        **{f"alice_{k}": v for k, v in vars(judgment_grades(conn, assessor_id=1)).items()},
        **{f"final_{k}": v for k, v in vars(adjudicated_grades(conn)).items()},
    }


def test_reads_match_the_session(sample):
    """Runs, query names and grades read through the driver equal those read through a
    session of the same database, the same SQL text."""
    from workbench.store.dbapi import can_read_directly

    database = Database.open(sample, create=False)
    assert can_read_directly(database._url)
    with database.reader() as conn:
        direct = _reads(conn)
    with database.read() as session:
        through = _reads(session)
    database.close()
    assert direct.keys() == through.keys()
    for key, value in direct.items():
        assert np.array_equal(value, through[key]), key
    assert direct["tags"] == ("bm25", "tfidf", "qld", "doclen")
    assert direct["people_grade"].size > 0 and direct["alice_grade"].size > 0


def test_open_reader_on_a_read_only_file(sample):
    import os

    os.chmod(sample, 0o444)
    try:
        with open_reader("sqlite:///" + sample) as conn:
            assert conn.scalar("SELECT count(*) FROM system") == 4
    finally:
        os.chmod(sample, 0o644)
    assert not Path(sample + "-wal").exists()


def test_as_reader_on_a_session_runs_the_same_text(db):
    with db.read() as session:
        assert as_reader(session).scalar("SELECT count(*) FROM system WHERE id > :n", {"n": -1}) == 0


def test_direct_reads_on_each_backend(db_url):
    """A current database (SQLite, or PostgreSQL in its own schema through `options`) opens
    without an engine, and reads through the driver."""
    from workbench.store.catalog import run_counts

    Database.open(db_url).close()  # a new database: created the engine's way
    database = Database.open(db_url, create=False)
    assert database._engine is None
    with database.reader() as conn:
        assert conn.scalar("SELECT count(*) FROM campaign") == 1
        assert run_counts(conn).names == []
    database.close()
