"""Every example of docs/python-api.md runs (from the repository root, where its files
are) and its assertions hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "python-api.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_doc_has_an_example_per_function():
    code = "\n".join(EXAMPLES)
    for name in ("evaluate", "compare", "agreement", "kendall_tau", "tau_ap", "rbo"):
        assert f"workbench.{name}(" in code, name


@pytest.mark.parametrize("k", range(len(EXAMPLES)))
def test_example_runs(k, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    exec(compile(EXAMPLES[k], f"{DOC.name} example {k + 1}", "exec"), {"__name__": "__doc__"})
    capsys.readouterr()
