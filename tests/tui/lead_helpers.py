"""Shared pieces of the lead-screen Pilot tests: a private copy of the sample database,
the CLI's JSON for the same data, and reading DataTable cells as plain text."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.tui.helpers import settle

SAMPLE = Path(__file__).resolve().parents[2] / "sample_db" / "sample.sqlite"
SIZE = (160, 50)


@pytest.fixture
def sample_db(tmp_path):
    """An open Database on a copy of the committed sample (never the committed file)."""
    from workbench.campaign.database import Database

    copy = tmp_path / "sample.sqlite"
    shutil.copyfile(SAMPLE, copy)
    db = Database.open(str(copy))
    yield db
    db.close()


def cli_json(db, *args) -> dict:
    """`workbench ARGS --format json` on the same database, parsed."""
    from workbench.cli import cli

    result = CliRunner().invoke(cli, ["--db", db.url, *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def rows(table) -> list[list[str]]:
    return [[getattr(c, "plain", str(c)) for c in table.get_row_at(i)] for i in range(table.row_count)]


def header(table) -> list[str]:
    return [getattr(c.label, "plain", str(c.label)) for c in table.columns.values()]


async def open_mode(app, pilot, key: str, screen_type):
    await pilot.press(key)
    await settle(app, pilot)
    await wait_for(app, pilot, lambda: isinstance(app.screen, screen_type) and app.screen.data is not None,
                   what=f"{screen_type.__name__} with its data after {key}")
    return app.screen


async def wait_for(app, pilot, predicate, seconds: float | None = None, what: str = "the condition") -> float:
    """Pause until predicate() holds; return the seconds it took (fails after `seconds`,
    default tests/waits.py's DEADLINE: long enough for a loaded machine — a 3 s and later a
    2 s bound failed there). A test of how soon something shows counts what the app did
    (polls, reloads), never the wall clock (test_lead_live.py)."""
    from tests.waits import eventually

    return await eventually(predicate, what, timeout=seconds, pause=lambda: pilot.pause(0.05))
