"""Creating or upgrading a schema while other processes open the same database:
one process does it under the schema lock, the others wait and then find it done.
Real processes (`python -m workbench`), on SQLite and on PostgreSQL.

Without the lock, two `init` and an `import` on an empty PostgreSQL database failed on
pg_type_typname_nsp_index (5 of 5 tries), and a command that opened a database while `init`
was between two revisions said "older schema, run `workbench init`"."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import create_engine, text

from workbench.store.schema import head_revision, migrations_dir

REPO = Path(__file__).resolve().parents[2]

# Runs the CLI with the migration scripts of argv[1] (a copy with a slow extra revision).
WITH_SCRIPTS = (
    "import pathlib, sys; import workbench.store.schema as s; "
    "s.migrations_dir = lambda: pathlib.Path(sys.argv[1]); "
    "from workbench.cli import main; sys.exit(main(sys.argv[2:]))"
)


def start(*args: str, scripts: Path | None = None) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_DB"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    argv = ([sys.executable, "-c", WITH_SCRIPTS, str(scripts)] if scripts
            else [sys.executable, "-m", "workbench"])
    return subprocess.Popen([*argv, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=REPO, env=env)


def finish(process: subprocess.Popen) -> tuple[int, str]:
    _, err = process.communicate(timeout=120)
    return process.returncode, err


def rows(db_url: str, sql: str) -> list[tuple]:
    if db_url.startswith("sqlite:///") and not os.path.exists(db_url[len("sqlite:///"):]):
        return []  # (connecting would create the file)
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(sql))]
    finally:
        engine.dispose()


def test_two_inits_and_two_imports_at_once_on_an_empty_database(db_url, tmp_path):
    (tmp_path / "a.tsv").write_text("qa\tfirst\n")
    (tmp_path / "b.tsv").write_text("qb\tsecond\n")
    processes = [
        start("init", "--db", db_url),
        start("import", "queries", str(tmp_path / "a.tsv"), "--db", db_url),
        start("init", "--db", db_url),
        start("import", "queries", str(tmp_path / "b.tsv"), "--db", db_url),
    ]
    results = [finish(p) for p in processes]
    assert [code for code, _ in results] == [0, 0, 0, 0], [err for _, err in results]
    assert rows(db_url, "SELECT version_num FROM alembic_version") == [(head_revision(),)]
    assert rows(db_url, "SELECT ext_id, title FROM query ORDER BY ext_id") == [
        ("qa", "first"), ("qb", "second")]
    assert rows(db_url, "SELECT count(*) FROM campaign") == [(1,)]  # one settings row


SLOW_REVISION = """\
import time
from alembic import op
revision = "9002"
down_revision = "{head}"
branch_labels = None
depends_on = None


def upgrade():  # a long upgrade: the others open the database meanwhile
    if op.get_context().dialect.name == "postgresql":
        op.execute("SELECT '{marker}', pg_sleep(4)")
    else:
        time.sleep(4)


def downgrade():
    pass
"""


def in_slow_revision(db_url: str, marker: str) -> bool:
    """SQLite commits revision by revision: the first one is there. PostgreSQL runs them all
    in one transaction, invisible until the end: a server process is in the sleep."""
    if db_url.startswith("sqlite"):
        try:
            return rows(db_url, "SELECT version_num FROM alembic_version") == [(head_revision(),)]
        except Exception:  # no such table yet
            return False
    return rows(db_url, f"SELECT 1 FROM pg_stat_activity WHERE query LIKE '%{marker}%' "
                        "AND pid <> pg_backend_pid()") == [(1,)]


def test_commands_wait_while_another_process_creates_the_schema(db_url, tmp_path):
    """`init` creates the schema; an `import` and a second `init` that start meanwhile wait
    until it is done, instead of creating it a second time (PostgreSQL) or taking the half-made
    database for an older one (SQLite, between two revisions)."""
    import uuid

    marker = f"slow-{uuid.uuid4().hex}"
    scripts = tmp_path / "migrations"
    shutil.copytree(migrations_dir(), scripts, ignore=shutil.ignore_patterns("__pycache__"))
    (scripts / "versions" / "9002_slow.py").write_text(
        SLOW_REVISION.format(head=head_revision(), marker=marker))
    (tmp_path / "q.tsv").write_text("q1\tone\n")

    first = start("init", "--db", db_url, scripts=scripts)
    deadline = time.monotonic() + 60
    while not in_slow_revision(db_url, marker):
        if time.monotonic() > deadline or first.poll() is not None:
            raise AssertionError(f"never saw the slow revision run: {finish(first)}")
        time.sleep(0.05)
    late = [start("import", "queries", str(tmp_path / "q.tsv"), "--db", db_url, scripts=scripts),
            start("init", "--db", db_url, scripts=scripts)]
    results = [finish(p) for p in [first, *late]]
    assert first.returncode == 0 and first.poll() is not None
    assert [code for code, _ in results] == [0, 0, 0], [err for _, err in results]
    assert rows(db_url, "SELECT version_num FROM alembic_version") == [("9002",)]
    assert rows(db_url, "SELECT ext_id FROM query") == [("q1",)]
