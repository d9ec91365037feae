"""`workbench list assessors`: the pace and drift columns in table, CSV and JSON (keys in
docs/json-outputs.md), on a worked example."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from workbench.campaign.database import Database
from workbench.campaign.judging.grades import record_grade
from workbench.cli import cli

HEADER = ["assessor", "kind", "assigned", "judged", "done", "outside_assignment", "repeats", "cant_judge", "docs_per_hour",
          "median_seconds", "capped", "grades_first_quarter", "grades_last_quarter", "drift_chi2",
          "drift_df", "drift_p", "sample_fleiss_kappa", "sample_unanimous"]


def run(url, *args) -> str:
    result = CliRunner().invoke(cli, ["--db", url, *args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def campaign(db_url, tmp_path):
    path = tmp_path / "a.run"
    path.write_text("".join(f"q1 Q0 d{i} {i} {20 - i} A\n" for i in range(1, 9)))
    run(db_url, "import", "run", str(path))
    db = Database.open(db_url, create=False)
    try:
        # ann: 0 0 1 1 1 1 2 2 in 10 20 30 40 600 50 60 s and one untimed (the command line)
        for i, (grade, secs) in enumerate(zip([0, 0, 1, 1, 1, 1, 2, 2], [10, 20, 30, 40, 600, 50, 60, 0]), 1):
            record_grade(db, "ann", "q1", f"d{i}", grade, seconds=secs)
        record_grade(db, "bob", "q1", "d1", 1, seconds=12)
    finally:
        db.close()
    return db_url


def test_list_assessors_pace_and_drift(campaign):
    rows = {r["assessor"]: r for r in json.loads(run(campaign, "list", "assessors", "--format", "json"))}
    ann, bob = rows["ann"], rows["bob"]
    assert list(ann) == HEADER
    # timed: 10 20 30 40 300 (600 capped at 300) 50 60 = 510 s for 7 documents
    assert ann["docs_per_hour"] == pytest.approx(7 * 3600 / 510) and ann["median_seconds"] == 40.0
    assert ann["capped"] == 1
    assert ann["grades_first_quarter"] == {"0": 1.0, "1": 0.0, "2": 0.0, "3": 0.0}
    assert ann["grades_last_quarter"] == {"0": 0.0, "1": 0.0, "2": 1.0, "3": 0.0}
    # [[2, 0], [0, 2]] over grades 0 and 2: chi-square 4 on 1 df, p 0.0455
    assert (ann["drift_chi2"], ann["drift_df"]) == (4.0, 1)
    assert ann["drift_p"] == pytest.approx(0.0455, abs=1e-4)
    # one grade: no quarters, no test (null, not NaN)
    assert bob["docs_per_hour"] == 300.0 and bob["median_seconds"] == 12.0
    assert bob["grades_first_quarter"] == {} and bob["drift_p"] is None and bob["drift_df"] == 0

    table = run(campaign, "list", "assessors").splitlines()
    assert table[0].split() == HEADER
    cells = table[1].split()
    assert cells[:2] == ["ann", "human"] and cells[7:11] == ["0", "49.4", "40.0", "1"]
    assert cells[11:15] == ["0:100%", "1:0%", "2:0%", "3:0%"] and cells[-5:-2] == ["4.0", "1", "0.046"]
    assert table[2].split()[-5:] == ["–", "0", "–", "–", "–"]

    lines = run(campaign, "list", "assessors", "--format", "csv").splitlines()
    assert lines[0].split(",") == HEADER
    assert lines[1].split(",")[11:13] == ["0:100% 1:0% 2:0% 3:0%", "0:0% 1:0% 2:100% 3:0%"]
    assert lines[2].endswith(",,,,0,,,")


def test_every_key_is_documented():
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "json-outputs.md").read_text()
    section = docs.split("## `list assessors --format json`")[1].split("\n## ")[0]
    for key in HEADER:
        assert f'"{key}"' in section
