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


@pytest.mark.parametrize("name", ["importing", "id_maps", "pooling", "comparison_lists"])
def test_campaign_modules_leave_the_sql_to_the_store(name):
    """campaign/ holds the rules, store/ every SQL statement (DESIGN §1): these modules do
    not import SQLAlchemy themselves (the store they call does)."""
    import ast
    from pathlib import Path

    import workbench.campaign as campaign

    tree = ast.parse((Path(campaign.__file__).parent / f"{name}.py").read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not {m for m in imported if m.split(".")[0] == "sqlalchemy"}
