"""campaign/ keeps the rules and the store owns the SQL: these modules import no private
name of another module (checked on their source; that campaign/ imports no SQLAlchemy is a
layer contract in pyproject.toml, tests/test_import_contracts.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import workbench.campaign

MODULES = ("scoring/qrels", "agreement/report", "agreement/adjudication", "catalog/exporting")


def _imports(name: str) -> list[tuple[str, str]]:
    """(module, imported name) of every import in campaign/<name>.py, at any depth."""
    source = (Path(workbench.campaign.__file__).parent / f"{name}.py").read_text(encoding="utf-8")
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found += [(node.module or "", alias.name) for alias in node.names]
    return found


@pytest.mark.parametrize("name", MODULES)
def test_no_private_import(name):
    imports = _imports(name)
    assert imports, name  # the parse found the module's imports
    assert [(m, n) for m, n in imports if m.startswith("workbench") and n.startswith("_")] == []
