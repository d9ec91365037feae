"""Fixtures shared by the serve tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workbench.campaign.database import Database

SAMPLE = Path(__file__).resolve().parents[2] / "sample_db" / "sample.sqlite"


@pytest.fixture
def campaign(tmp_path):
    """A copy of the sample database: (its path, the open Database)."""
    path = tmp_path / "campaign.sqlite"
    shutil.copy(SAMPLE, path)
    db = Database.open(str(path), create=False)
    yield path, db
    db.close()
