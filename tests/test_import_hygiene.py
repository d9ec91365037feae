"""The headless core stays headless at run time: importing metrics, formats or the
evaluation engine loads no Textual, SQL, Click or Rich, and `workbench eval` starts without
them (docs/architecture.md#layers).

Which package may import which is declared in pyproject.toml ([tool.importlinter]) and
checked by tests/test_import_contracts.py; what stays here is what a static import graph
cannot say: which modules a process has loaded after an import."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("textual", "sqlalchemy", "alembic")


def _loaded_after(import_stmt: str) -> set[str]:
    code = (
        f"import sys; {import_stmt}; "
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return {m for m in out.stdout.strip().split(",") if m}


@pytest.mark.parametrize(
    "module",
    ["workbench.metrics", "workbench.formats", "workbench.formats.trec", "workbench.cli",
     "workbench.evaluation", "workbench.formats.evaluation_output",
     "workbench.planning.simulate", "workbench.planning.reusability"],
)
def test_core_modules_do_not_import_tui_or_store(module):
    assert _loaded_after(f"import {module}") == set()


def test_the_evaluation_engine_is_headless():
    """workbench.evaluation (every module of it) loads no UI, database, Click or Rich, and
    none of the layers above it (docs/architecture.md#layers: files or arrays in, Evaluation arrays out)."""
    code = (
        "import sys, pkgutil, importlib, workbench.evaluation as e\n"
        "for info in pkgutil.iter_modules(e.__path__):\n"
        "    importlib.import_module('workbench.evaluation.' + info.name)\n"
        "bad = [n for n in sys.modules if n.split('.')[0] in"
        " ('textual', 'sqlalchemy', 'alembic', 'click', 'rich')"
        " or n.split('.')[:2] in (['workbench', 'cli'], ['workbench', 'tui'],"
        " ['workbench', 'store'], ['workbench', 'campaign'])]\n"
        "print(','.join(sorted(bad)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_no_module_imports_scipy():
    """SciPy is a test-only dependency (a reference for the statistics): no workbench module
    imports it, so an installed workbench runs without it and `compare` does not pay its
    start-up."""
    code = (
        "import sys, pkgutil, importlib, workbench\n"
        "for info in pkgutil.walk_packages(workbench.__path__, 'workbench.'):\n"
        "    if not info.name.endswith('__main__'): importlib.import_module(info.name)\n"
        "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] == 'scipy')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def _loaded_by_command(args: list[str], tmp_path) -> tuple[str, list[str]]:
    """Run `workbench ARGS --db COPY` (a copy of the sample database) in a fresh process;
    its output and which heavy modules it had loaded at exit."""
    import shutil
    from pathlib import Path

    db = tmp_path / "sample.sqlite"
    shutil.copy(Path(__file__).resolve().parent.parent / "sample_db" / "sample.sqlite", db)
    code = (
        "import sys, io, contextlib\n"
        "from workbench.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    rc = main({[*args, '--db', str(db)]!r})\n"
        "assert rc == 0, rc\n"
        "print(out.getvalue())\n"
        "print('loaded:' + ','.join(m for m in ('sqlalchemy', 'alembic', 'textual', 'workbench.store.models',"
        " 'workbench.store.engine') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    text, _, loaded = out.stdout.rpartition("loaded:")
    return text, [m for m in loaded.strip().split(",") if m]


@pytest.mark.parametrize("args", [["list", "runs"], ["score"], ["score", "--consensus", "mean", "--format", "trec"]])
def test_reading_commands_do_not_import_sqlalchemy(args, tmp_path):
    """`list runs` and `score` read the sample database through the driver alone
    (store.dbapi): no SQLAlchemy (ORM or Core), no models, no Alembic (importing them is start-up time)."""
    text, loaded = _loaded_by_command(args, tmp_path)
    assert loaded == []
    assert "bm25" in text and "doclen" in text  # it did read the runs



def test_import_run_writes_through_the_driver_alone(tmp_path):
    """`import run FILE --name N` writes its transaction on a plain driver connection
    (store.dbapi.Writer): no SQLAlchemy, models or Alembic in the process (100
    runs as 100 processes), and the run, its stub document and its system are committed."""
    import sqlite3

    run = tmp_path / "r.run"
    run.write_text("101 Q0 d001 1 2.0 x\n101 Q0 new-doc 2 1.0 x\n", encoding="utf-8")
    text, loaded = _loaded_by_command(["import", "run", str(run), "--name", "fresh"], tmp_path)
    assert loaded == []
    assert text.strip() == ("imported run 'fresh' from r.run: 2 results for 1 query "
                            "(created 0 stub queries and 1 stub document)")
    with sqlite3.connect(tmp_path / "sample.sqlite") as conn:
        assert conn.execute("SELECT n_rows FROM run_arrays JOIN system ON system.id = system_id "
                            "WHERE tag = 'fresh'").fetchall() == [(2,)]
        assert conn.execute("SELECT count(*) FROM document WHERE ext_id = 'new-doc'").fetchone() == (1,)


def test_the_public_api_is_headless():
    """`import workbench; workbench.evaluate(...)` in a fresh process (docs/python-api.md)
    loads no Textual, SQLAlchemy, Click or Rich, nor the store or pandas."""
    code = (
        "import sys, workbench\n"
        "r = workbench.evaluate({'q': {'a': 1, 'b': 0}}, {'q': {'a': 0.5, 'b': 0.9}}, ['map'],"
        " per_query=True)\n"
        "assert r['q']['map'] == 0.5, r\n"
        "workbench.kendall_tau([1, 2, 3], [1, 3, 2]); workbench.rbo('ab', 'ba')\n"
        "bad = [n for n in sys.modules if n.split('.')[0] in"
        " ('textual', 'sqlalchemy', 'alembic', 'click', 'rich', 'pandas')"
        " or n.split('.')[:2] in (['workbench', 'store'], ['workbench', 'cli'])]\n"
        "print(','.join(sorted(bad)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
