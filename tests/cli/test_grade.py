"""`workbench grade`: single grades and streaming batches, through the real command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from workbench.campaign.database import Database
from workbench.cli import cli
from workbench.errors import WorkbenchError
from workbench.store.models import Assessor, Document, Judgment, JudgmentEvent, Query

WORKBENCH = str(Path(sys.executable).with_name("workbench"))


@pytest.fixture
def campaign(db_url):
    """A campaign with queries q1, q2 and documents d1..d3 (0-3 scale); yields its URL."""
    database = Database.open(db_url)
    with database.write.begin() as s:
        s.add_all([Query(ext_id="q1"), Query(ext_id="q2")])
        s.add_all([Document(ext_id=f"d{i}") for i in (1, 2, 3)])
    database.close()
    return db_url


def grades(url) -> dict[tuple[str, str, str], tuple[int, str]]:
    database = Database.open(url, create=False)
    try:
        with database.read() as s:
            rows = s.execute(
                select(Query.ext_id, Document.ext_id, Assessor.name, Judgment.grade, Judgment.note)
                .join(Query, Query.id == Judgment.query_id)
                .join(Document, Document.id == Judgment.document_id)
                .join(Assessor, Assessor.id == Judgment.assessor_id)
            ).all()
            n_events = s.scalar(select(func.count()).select_from(JudgmentEvent))
    finally:
        database.close()
    out = {(q, d, a): (g, n) for q, d, a, g, n in rows}
    out["events"] = n_events
    return out


def run(url, *args, input=None):
    return CliRunner().invoke(cli, ["--db", url, "grade", *args], input=input)


def test_single_grade_is_stored_with_its_event(campaign):
    result = run(campaign, "--assessor", "alice", "q1", "d2", "3")
    assert result.exit_code == 0, result.output
    assert result.stdout == "ok q1 d2\n"
    result = run(campaign, "-a", "alice", "--note", "on topic", "q1", "d2", "1")
    assert result.exit_code == 0
    assert grades(campaign) == {("q1", "d2", "alice"): (1, "on topic"), "events": 2}


@pytest.mark.parametrize(
    "args, message",
    [
        (["q1", "d2", "7"], "grade 7 is not on the campaign scale (0, 1, 2, 3)"),
        (["q1", "d9", "1"], "unknown document 'd9'"),
        (["qx", "d1", "1"], "unknown query 'qx'"),
        (["q1", "d1", "two"], "grade 'two' is not an integer"),
    ],
)
def test_single_grade_errors_write_nothing(campaign, args, message):
    result = run(campaign, "-a", "alice", *args)
    assert result.exit_code == 1
    assert isinstance(result.exception, WorkbenchError)
    assert message in str(result.exception)
    assert grades(campaign) == {"events": 0}


def test_usage_errors_exit_2(campaign):
    assert run(campaign, "-a", "alice", "q1", "d1").exit_code == 2
    assert run(campaign, "-a", "alice", "--batch", "-", "q1", "d1", "2").exit_code == 2
    assert run(campaign, "q1", "d1", "2").exit_code == 2  # --assessor is required


BATCH = """\
# a comment, then a blank line

q1 d1 2
q1 d2
q1 d2 high
q1 d2 5
q7 d2 1
q1 d3 0   not about the topic at all
q2 d1 3
q1 d1 1 changed my mind
"""


def test_batch_reports_bad_lines_with_numbers_and_keeps_going(campaign, tmp_path):
    path = tmp_path / "grades.txt"
    path.write_text(BATCH)
    result = run(campaign, "-a", "bob", "--batch", str(path))
    assert result.stdout == "ok q1 d1\nok q1 d3\nok q2 d1\nok q1 d1\n"
    assert result.stderr.splitlines() == [
        f"{path}:4: expected `query doc grade [note]`, got 2 columns",
        f"{path}:5: grade 'high' is not an integer",
        f"{path}:6: grade 5 is not on the campaign scale (0, 1, 2, 3)",
        f"{path}:7: unknown query 'q7'",
    ]
    assert result.exit_code == 1
    assert "4 lines of" in str(result.exception)
    assert grades(campaign) == {
        ("q1", "d1", "bob"): (1, "changed my mind"),
        ("q1", "d3", "bob"): (0, "not about the topic at all"),
        ("q2", "d1", "bob"): (3, ""),
        "events": 4,
    }


def test_clean_batch_from_stdin_exits_0(campaign):
    result = run(campaign, "-a", "bob", "--batch", "-", input="q1 d1 2\n\nq2 d3 1\n")
    assert result.exit_code == 0, result.output
    assert result.stdout == "ok q1 d1\nok q2 d3\n"
    assert result.stderr == ""


def test_stdin_errors_are_named_stdin(campaign):
    result = run(campaign, "-a", "bob", "--batch", "-", input="q1 d1 2\nq1 d1\n")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == "<stdin>:2: expected `query doc grade [note]`, got 2 columns"


def test_missing_batch_file_is_an_input_error(campaign, tmp_path):
    result = run(campaign, "-a", "bob", "--batch", str(tmp_path / "nope.txt"))
    assert result.exit_code == 1
    assert "nope.txt: cannot read" in str(result.exception)


def _env(url):
    env = dict(os.environ)
    env["WORKBENCH_DB"] = url
    return env


def test_subprocess_exit_codes_and_messages(campaign):
    proc = subprocess.run(
        [WORKBENCH, "grade", "-a", "carol", "--batch", "-"],
        input="q1 d1 3\nq1 d1 9\nq2 d2 0\n", capture_output=True, text=True, env=_env(campaign),
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stdout == "ok q1 d1\nok q2 d2\n"
    assert proc.stderr.splitlines() == [
        "<stdin>:2: grade 9 is not on the campaign scale (0, 1, 2, 3)",
        "workbench: 1 line of <stdin> failed",
    ]
    proc = subprocess.run([WORKBENCH, "grade", "-a", "carol", "q1", "d3", "2"],
                          capture_output=True, text=True, env=_env(campaign), timeout=60)
    assert (proc.returncode, proc.stdout) == (0, "ok q1 d3\n")


def test_streaming_batch_prints_ok_only_after_commit(campaign):
    """Feed stdin one line at a time over a pipe that stays open: each `ok` arrives before
    the next line is sent, and the grade is already visible to another connection."""
    proc = subprocess.Popen(
        [WORKBENCH, "grade", "-a", "dan", "--batch", "-"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, bufsize=1, env=_env(campaign),
    )
    try:
        for i, (q, d, g) in enumerate([("q1", "d1", 2), ("q1", "d2", 0), ("q2", "d3", 3)], 1):
            proc.stdin.write(f"{q} {d} {g}\n")
            proc.stdin.flush()
            assert proc.stdout.readline() == f"ok {q} {d}\n"
            seen = grades(campaign)
            assert seen[(q, d, "dan")] == (g, "")
            assert seen["events"] == i
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_batch_file_bom_crlf_and_bad_utf8_line(campaign, tmp_path):
    path = tmp_path / "windows.txt"
    path.write_bytes(b"\xef\xbb\xbfq1 d1 2\r\nq1 d2 1 caf\xe9\r\nq2 d3 3 caf\xc3\xa9\r\n")
    result = run(campaign, "-a", "eve", "--batch", str(path))
    assert result.stdout == "ok q1 d1\nok q2 d3\n"
    assert result.stderr.splitlines() == [f"{path}:2: invalid UTF-8 at byte 12 of the line"]
    assert result.exit_code == 1
    got = grades(campaign)
    assert got[("q1", "d1", "eve")] == (2, "") and got[("q2", "d3", "eve")] == (3, "café")


# ------------------------------------------------ line ends as every reader has them


def test_batch_with_cr_only_line_ends_grades_every_line(campaign):
    result = run(campaign, "-a", "mac", "--batch", "-", input="q1 d1 2\rq1 d2 1 a note\r\rq2 d3 3")
    assert (result.exit_code, result.stdout) == (0, "ok q1 d1\nok q1 d2\nok q2 d3\n")
    got = grades(campaign)
    assert got[("q1", "d1", "mac")] == (2, "") and got[("q1", "d2", "mac")] == (1, "a note")
    assert got[("q2", "d3", "mac")] == (3, "") and got["events"] == 3


def test_batch_refuses_a_form_feed_inside_a_line_and_names_it(campaign):
    result = run(campaign, "-a", "ff", "--batch", "-", input="q1 d1 2\fq1 d2 1\nq2 d3 3\n")
    assert result.stdout == "ok q2 d3\n"
    assert result.stderr == "<stdin>:1: a form feed inside the line; lines end with \\n, \\r\\n or \\r\n"
    assert result.exit_code == 1 and str(result.exception) == "1 line of <stdin> failed"
    assert grades(campaign) == {("q2", "d3", "ff"): (3, ""), "events": 1}


def _readline(stream, timeout: float = 30.0) -> bytes:
    """A line from an unbuffered pipe, or b"" after `timeout` (a hang fails, not blocks)."""
    import select

    line = b""
    while not line.endswith(b"\n"):
        if not select.select([stream], [], [], timeout)[0]:
            return line
        byte = stream.read(1)
        if not byte:
            return line
        line += byte
    return line


def test_streaming_batch_acks_a_cr_ended_line_before_the_next_arrives(campaign):
    """A lone \\r ends the line at once (no waiting for a \\n that may never come), and a
    \\r\\n split over two writes is one line end, not a blank line between."""
    proc = subprocess.Popen(
        [WORKBENCH, "grade", "-a", "cr", "--batch", "-"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=_env(campaign), bufsize=0,
    )
    try:
        for q, d, g, end in [("q1", "d1", 2, b"\r"), ("q1", "d2", 0, b"\r"), ("q2", "d3", 3, b"\n")]:
            proc.stdin.write(f"{q} {d} {g}".encode() + end)
            assert _readline(proc.stdout) == f"ok {q} {d}\n".encode()
            assert grades(campaign)[(q, d, "cr")] == (g, "")
        proc.stdin.write(b"q1 d3 1\r")
        assert _readline(proc.stdout) == b"ok q1 d3\n"
        proc.stdin.write(b"\nq1 d1 3\r\nq9\n")  # the \n completes the \r\n: q9 is line 6
        proc.stdin.close()
        assert proc.stdout.read() == b"ok q1 d1\n"
        assert proc.wait(timeout=60) == 1
        assert proc.stderr.read().decode().splitlines()[0] == (
            "<stdin>:6: expected `query doc grade [note]`, got 1 column")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# ------------------------------------- names and ids as every entry point checks them (#8, #12)

TAB_NAME = "a\tb"
NAME_REASON = "assessor name 'a\\tb' contains '\\t'; only spaces may separate the words of a name"


@pytest.mark.parametrize("name, reason", [
    (TAB_NAME, NAME_REASON),
    ("x" * 10_000, f"assessor name {'x' * 40!r}... is longer than 200 characters"),
    ("bell\x07", "assessor name 'bell\\x07' contains '\\x07'; only spaces may separate the words of a name"),
], ids=["tab", "10000 characters", "control character"])
def test_grade_refuses_an_assessor_name_import_qrels_refuses(campaign, name, reason):
    """`grade` stored these names; now one rule (workbench.names) for all."""
    proc = subprocess.run([WORKBENCH, "grade", "-a", name, "q1", "d1", "2"],
                          capture_output=True, text=True, env=_env(campaign), timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", f"workbench: {reason}\n")
    batch = run(campaign, "-a", name, "--batch", "-", input="q1 d1 2\n")
    assert batch.exit_code == 1 and str(batch.exception) == reason and batch.stdout == ""
    assert grades(campaign) == {"events": 0}
    database = Database.open(campaign, create=False)
    try:
        with database.read() as s:
            assert s.scalar(select(func.count()).select_from(Assessor)) == 0
    finally:
        database.close()


def test_a_spaced_name_is_stored_stripped(campaign):
    assert run(campaign, "-a", "  Ann Smith ", "q1", "d1", "2").exit_code == 0
    assert grades(campaign)[("q1", "d1", "Ann Smith")] == (2, "")


def test_grade_refuses_ids_that_could_not_be_written_back(campaign):
    single = run(campaign, "-a", "ann", "q1 x", "d1", "2")
    assert single.exit_code == 1
    assert str(single.exception) == (
        "query id 'q1 x' contains whitespace (' '); an id is one column of a TREC file")
    batch = run(campaign, "-a", "ann", "--batch", "-",
                input="q1 d\u00a01 2\nq1\x7f d1 2\nq1 d1 2\n")
    assert batch.stdout == "ok q1 d1\n"
    assert batch.stderr.splitlines() == [
        "<stdin>:1: document id 'd\\xa01' contains whitespace ('\\xa0'); an id is one column of a TREC file",
        "<stdin>:2: query id 'q1\\x7f' contains a control character ('\\x7f'); an id is one column of a TREC file",
    ]
    assert batch.exit_code == 1
    assert grades(campaign) == {("q1", "d1", "ann"): (2, ""), "events": 1}
