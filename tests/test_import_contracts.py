"""The layer contracts in pyproject.toml ([tool.importlinter], docs/architecture.md) hold:
`lint-imports` runs here, so `make test` fails on an import that crosses a layer the wrong
way (cli > tui | serve > campaign > evaluation | planning > store | formats > metrics; the TUI
never reaches store/ or metrics/; campaign/ never imports SQL or metrics' internals)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")


def _lint(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([str(LINT), "--no-cache", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)


def _contracts() -> list[str]:
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return [c["name"] for c in config["tool"]["importlinter"]["contracts"]]


@pytest.fixture(scope="module")
def linted() -> subprocess.CompletedProcess:
    return _lint()


def test_every_contract_holds(linted):
    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert f"{len(_contracts())} kept, 0 broken" in linted.stdout


@pytest.mark.parametrize("contract", _contracts())
def test_contract(linted, contract):
    """Each contract on its own line of the report, KEPT (a broken one names the import)."""
    line = " ".join(linted.stdout.split())  # the report wraps long names
    assert f"{contract} KEPT" in line or f"{contract}KEPT" in line, linted.stdout


def test_a_contract_that_does_not_hold_is_reported(tmp_path):
    """The control: a contract campaign/ breaks (catalog/importing.py orders runs with
    metrics.ranking) is reported, so the tool sees imports inside campaign's subpackages."""
    config = tmp_path / "contracts.toml"
    config.write_text(
        '[tool.importlinter]\nroot_package = "workbench"\n\n'
        '[[tool.importlinter.contracts]]\nname = "control"\ntype = "forbidden"\n'
        'source_modules = ["workbench.campaign"]\nforbidden_modules = ["workbench.metrics.ranking"]\n',
        encoding="utf-8",
    )
    result = _lint("--config", str(config))
    assert result.returncode == 1
    assert "workbench.campaign.catalog.importing -> workbench.metrics.ranking" in result.stdout
