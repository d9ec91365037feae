"""The layer contracts in pyproject.toml ([tool.importlinter], docs/architecture.md) hold:
`lint-imports` runs here, so `make test` fails on an import that crosses a layer the wrong
way (cli > tui | serve > campaign > evaluation | planning > store | formats > metrics; the TUI
never reaches store/ or metrics/; campaign/ never imports SQL or metrics' internals)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")


def _lint(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([str(LINT), "--no-cache", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_layer_contracts_hold():
    result = _lint()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


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
