"""TUI fixtures: a campaign database built in the test, and a private config dir."""

from __future__ import annotations

import pytest

from tests.tui.factory import build_campaign


@pytest.fixture(autouse=True)
def private_config(tmp_path, monkeypatch):
    """The remembered-assessor file goes to a temporary config dir."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture
def campaign(sqlite_db):
    return sqlite_db, build_campaign(sqlite_db, n_queries=3, n_systems=3, depth=6)


@pytest.fixture
def campaign_any(db):
    """The same campaign on every backend under test (SQLite, and PostgreSQL in CI)."""
    return db, build_campaign(db, n_queries=3, n_systems=3, depth=6)
