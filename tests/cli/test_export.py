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
    # no source: the majority consensus, as `score` (1 and 2 tie: the lower grade)
    assert (run(campaign, "qrels").exit_code, run(campaign, "qrels").stdout) == (0, "q1 0 d1 1\n")
    assert run(campaign, "qrels", "-a", "a", "--consensus", "mean").exit_code == 2
    assert run(campaign, "qrels", "--consensus", "median").exit_code == 2


# ---------------------------------------------------------------- -o never clobbers

QRELS = "q1 0 d1 1\n"


def _graded(url):
    assert cli_run(url, "grade", "-a", "a", "q1", "d1", "1").exit_code == 0


@pytest.fixture
def out_dir(tmp_path):
    """A folder of its own (the SQLite test database lives in tmp_path)."""
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def test_output_through_a_symlink_keeps_the_link_and_fills_its_target(campaign, out_dir):
    _graded(campaign)
    target = out_dir / "real.qrels"
    target.write_text("old\n")
    target.chmod(0o640)
    link = out_dir / "link.qrels"
    link.symlink_to(target.name)  # a relative link, as `ln -s real.qrels link.qrels`
    result = run(campaign, "qrels", "-a", "a", "-o", str(link))
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == "real.qrels"
    assert target.read_text() == QRELS
    assert target.stat().st_mode & 0o777 == 0o640  # the replaced file keeps its mode
    assert sorted(p.name for p in out_dir.iterdir()) == ["link.qrels", "real.qrels"]


def test_output_through_a_dangling_symlink_creates_its_target(campaign, out_dir):
    _graded(campaign)
    link = out_dir / "link.qrels"
    link.symlink_to(out_dir / "new.qrels")
    assert run(campaign, "qrels", "-a", "a", "-o", str(link)).exit_code == 0
    assert link.is_symlink() and (out_dir / "new.qrels").read_text() == QRELS


def test_output_to_a_fifo_is_written_in_place(campaign, out_dir):
    import threading

    _graded(campaign)
    fifo = out_dir / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = run(campaign, "qrels", "-a", "a", "-o", str(fifo))
    reader.join(timeout=30)
    assert result.exit_code == 0, result.output
    assert got == [QRELS.encode()]  # the reader got every byte
    assert fifo.is_fifo() and sorted(p.name for p in out_dir.iterdir()) == ["pipe"]


@pytest.mark.parametrize("kind", ["judgments", "qrels", "scores"])
def test_bad_output_paths_give_one_line_and_exit_1(campaign, out_dir, kind):
    _graded(campaign)
    extra = ["-a", "a"] if kind == "qrels" else []
    (out_dir / "a_dir").mkdir()
    missing = out_dir / "missing_dir" / "x.csv"
    for path, reason in [
        (missing, f"no such directory {out_dir / 'missing_dir'}"),
        (out_dir / "a_dir", "it is a directory"),
    ]:
        proc = wb(campaign, "export", kind, *extra, "-o", str(path))
        assert (proc.returncode, proc.stdout) == (1, "")
        assert proc.stderr == f"workbench: cannot write {path}: {reason}\n"
    assert sorted(p.name for p in out_dir.rglob("*")) == ["a_dir"]


def test_an_id_stored_before_the_id_check_is_one_line_not_a_traceback(campaign, out_dir):
    """`export qrels` crashed with a traceback on such an id. Imports refuse
    them now (tests/reliability/test_bad_input.py); one stored by an older version is a
    one-line error of the export, and the file it would have replaced is left alone."""
    from workbench.campaign.judging.grades import record_grade

    database = Database.open(campaign)
    try:
        with database.write.begin() as s:
            s.add(Query(ext_id="401 extra"))
        record_grade(database, "a", "401 extra", "d1", 1)
    finally:
        database.close()
    target = out_dir / "a.qrels"
    target.write_text("old\n")
    proc = wb(campaign, "export", "qrels", "-a", "a", "-o", str(target))
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == ("workbench: query id '401 extra' contains whitespace (' '); an id is "
                           "one column of a TREC file\n")
    assert target.read_text() == "old\n" and sorted(p.name for p in out_dir.iterdir()) == ["a.qrels"]
