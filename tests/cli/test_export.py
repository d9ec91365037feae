"""`workbench export` end to end through the installed command (subprocess) and CliRunner:
grade -> export qrels -> import qrels as another assessor -> identical qrels."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.campaign.database import Database
from workbench.cli import cli
from workbench.store.models import Document, Query

WORKBENCH = str(Path(sys.executable).with_name("workbench"))

GRADES = """\
q1 d1 3
q1 d3 0 off topic, sadly
q2 d2 1
q10 d1 2
"""


@pytest.fixture
def campaign(db_url):
    database = Database.open(db_url)
    with database.write.begin() as s:
        s.add_all([Query(ext_id=q) for q in ("q1", "q2", "q10")])
        s.add_all([Document(ext_id=f"d{i}") for i in (1, 2, 3)])
    database.close()
    return db_url


def wb(url, *args, input=None):
    env = dict(os.environ, WORKBENCH_DB=url)
    return subprocess.run([WORKBENCH, *args], input=input, capture_output=True, text=True,
                          env=env, timeout=60)


def cli_run(url, *args, input=None):
    return CliRunner().invoke(cli, ["--db", url, *args], input=input)


def test_graded_exported_reimported_qrels_round_trip_exactly(campaign, tmp_path):
    assert cli_run(campaign, "grade", "-a", "alice", "--batch", "-", input=GRADES).exit_code == 0
    first = tmp_path / "alice.qrels"
    result = cli_run(campaign, "export", "qrels", "--assessor", "alice", "-o", str(first))
    assert result.exit_code == 0, result.output
    assert result.stderr == f"wrote 4 qrels lines to {first}\n"
    assert first.read_text() == "q1 0 d1 3\nq1 0 d3 0\nq10 0 d1 2\nq2 0 d2 1\n"
    result = cli_run(campaign, "import", "qrels", str(first), "--assessor", "copy")
    assert result.exit_code == 0, result.output
    again = cli_run(campaign, "export", "qrels", "-a", "copy")
    assert again.exit_code == 0 and again.stdout == first.read_text()


def test_export_judgments_csv_through_the_installed_command(campaign):
    cli_run(campaign, "grade", "-a", "alice", "--batch", "-", input=GRADES)
    cli_run(campaign, "grade", "-a", "bob", "q1", "d1", "2")
    proc = wb(campaign, "export", "judgments")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "query,document,assessor,grade,note,seconds,updated_at"
    rows = list(csv.reader(io.StringIO(proc.stdout)))[1:]
    assert [r[:5] for r in rows] == [
        ["q1", "d1", "alice", "3", ""],
        ["q1", "d1", "bob", "2", ""],
        ["q1", "d3", "alice", "0", "off topic, sadly"],
        ["q10", "d1", "alice", "2", ""],
        ["q2", "d2", "alice", "1", ""],
    ]
    unknown = wb(campaign, "export", "qrels", "-a", "nobody")
    assert (unknown.returncode, unknown.stderr) == (1, "workbench: unknown assessor 'nobody'\n")


def run(url, *args):
    return CliRunner().invoke(cli, ["--db", url, "export", *args])


def test_history_jsonl_and_output_file(campaign, tmp_path):
    CliRunner().invoke(cli, ["--db", campaign, "grade", "-a", "ann", "--batch", "-"],
                       input="q1 d1 1\nq1 d1 2\n")
    out = tmp_path / "events.csv"
    result = run(campaign, "judgments", "--history", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_text().splitlines()[0] == (
        "query,document,assessor,grade,note,seconds,updated_at,event")
    assert [r["event"] for r in csv.DictReader(out.open())] == ["set", "change"]
    result = run(campaign, "judgments", "--format", "jsonl", "-a", "ann")
    assert result.exit_code == 0
    assert result.stdout.count("\n") == 1 and '"grade": 2' in result.stdout


def test_consensus_qrels_and_errors(campaign):
    runner = CliRunner()
    runner.invoke(cli, ["--db", campaign, "grade", "-a", "a", "q1", "d1", "1"])
    runner.invoke(cli, ["--db", campaign, "grade", "-a", "b", "q1", "d1", "2"])
    result = run(campaign, "qrels", "--consensus", "mean")
    assert (result.exit_code, result.stdout) == (0, "q1 0 d1 2\n")  # 1.5 rounds half up
    assert run(campaign, "qrels").exit_code == 2
    assert run(campaign, "qrels", "-a", "a", "--consensus", "mean").exit_code == 2
    assert run(campaign, "qrels", "--consensus", "median").exit_code == 2
