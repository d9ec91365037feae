"""Fixtures shared by the serve tests."""

from __future__ import annotations

import shutil
import sqlite3
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


def grades(path: Path, assessor: str) -> dict[str, int]:
    """document ext id -> grade, of `assessor`'s current judgments."""
    with sqlite3.connect(path) as conn:
        return dict(conn.execute(
            "SELECT d.ext_id, j.grade FROM judgment j JOIN assessor a ON a.id = j.assessor_id "
            "JOIN document d ON d.id = j.document_id WHERE a.name = ?", (assessor,)))
