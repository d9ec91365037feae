"""The headless core stays headless: metrics and formats never pull in Textual or the
database layer, and `workbench eval` starts without them (DESIGN §1, STYLE habit 4)."""

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


def test_metrics_never_import_other_workbench_layers():
    code = (
        "import sys, pkgutil, importlib, workbench.metrics as m\n"
        "for info in pkgutil.iter_modules(m.__path__):\n"
        "    importlib.import_module('workbench.metrics.' + info.name)\n"
        "bad = [n for n in sys.modules if n.startswith('workbench.') and n.split('.')[1]"
        " not in ('metrics', 'errors')]\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_evaluation_engine_is_headless():
    """workbench.evaluation (every module of it) loads no UI, database, Click or Rich, and
    none of the layers above it (DESIGN §1: files or arrays in, Evaluation arrays out)."""
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


def _imports_of(path) -> set[str]:
    """Every module a source file imports (at any depth of its code)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    return names | {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}


def _sources(package: str):
    from pathlib import Path

    import workbench

    return sorted((Path(workbench.__file__).parent / package).rglob("*.py"))


@pytest.mark.parametrize("path", _sources("campaign"), ids=lambda p: p.name)
def test_campaign_modules_leave_the_sql_to_the_store(path):
    """campaign/ holds the rules, store/ every SQL statement (DESIGN §1): no campaign module
    imports SQLAlchemy itself (the store functions it calls do)."""
    assert not {m for m in _imports_of(path) if m.split(".")[0] in ("sqlalchemy", "alembic")}


@pytest.mark.parametrize("path", _sources("tui"), ids=lambda p: p.name)
def test_the_tui_talks_to_campaign_not_to_the_store(path):
    """The screens call campaign/ use cases; none reaches around them into store/ or SQL."""
    assert not {m for m in _imports_of(path)
                if m.split(".")[0] in ("sqlalchemy", "alembic") or m.startswith("workbench.store")}


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
