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


# ---- the order of the campaign domains (docs/architecture.md#the-order-of-the-campaign-domains)

DOMAINS = "campaign/ domains"


def _domain_contract() -> dict:
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["name"].startswith(DOMAINS)]
    return contract


def test_every_campaign_domain_has_its_place_in_the_order():
    """A new domain (a package or a module of campaign/) cannot stay out of the order."""
    contract = _domain_contract()
    assert contract["type"] == "layers" and contract["containers"] == ["workbench.campaign"]
    placed = [name.strip() for layer in contract["layers"] for name in layer.split("|")]
    campaign = REPO / "workbench" / "campaign"
    present = sorted({p.stem for p in campaign.glob("*.py") if p.stem != "__init__"}
                     | {p.parent.name for p in campaign.glob("*/__init__.py")})
    assert sorted(placed) == present
    assert len(placed) == len(set(placed))


def _copy(tmp_path: Path) -> Path:
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(REPO / "workbench", root / "workbench",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.tcss", "*.md"))
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


def _lint_copy(root: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run([str(LINT), "--no-cache"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)


def test_a_reverse_import_between_two_domains_breaks_the_order(tmp_path):
    """The control: in a copy of the package, the copy as it is passes; one import from a
    lower domain (scoring) of a higher one (pooling) makes `lint-imports` fail, naming it."""
    root = _copy(tmp_path)
    clean = _lint_copy(root)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert f"{DOMAINS}" in " ".join(clean.stdout.split())

    module = root / "workbench" / "campaign" / "scoring" / "judged_depth.py"
    text = module.read_text(encoding="utf-8")
    module.write_text(text + "\nfrom workbench.campaign.pooling import assign  # noqa: E402,F401\n",
                      encoding="utf-8")
    broken = _lint_copy(root)
    assert broken.returncode == 1, broken.stdout
    report = " ".join(broken.stdout.split())
    assert f"Contracts: {len(_contracts()) - 1} kept, 1 broken" in report
    assert f"{DOMAINS}" in report and "BROKEN" in report
    assert "workbench.campaign.scoring.judged_depth -> workbench.campaign.pooling.assign" in report


def test_siblings_in_one_layer_import_neither_way(tmp_path):
    """`comparison | machine` are independent: an import between them breaks the order too."""
    root = _copy(tmp_path)
    module = root / "workbench" / "campaign" / "comparison" / "lists.py"
    module.write_text(module.read_text(encoding="utf-8")
                      + "\nfrom workbench.campaign.machine import replay  # noqa: E402,F401\n", encoding="utf-8")
    broken = _lint_copy(root)
    assert broken.returncode == 1, broken.stdout
    assert "workbench.campaign.comparison.lists -> workbench.campaign.machine.replay" in " ".join(broken.stdout.split())


def test_an_import_for_annotations_only_does_not_count(tmp_path):
    """`exclude_type_checking_imports`: an upward import under `if TYPE_CHECKING:` never runs."""
    root = _copy(tmp_path)
    module = root / "workbench" / "campaign" / "scoring" / "judged_depth.py"
    module.write_text(module.read_text(encoding="utf-8")
                      + "\nfrom typing import TYPE_CHECKING  # noqa: E402\n\nif TYPE_CHECKING:\n"
                      "    from workbench.campaign.pooling import assign  # noqa: F401\n", encoding="utf-8")
    result = _lint_copy(root)
    assert result.returncode == 0, result.stdout + result.stderr
