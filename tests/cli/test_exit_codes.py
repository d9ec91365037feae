"""Exit codes (docs/architecture.md#command-line-contract): 1 for bad data or state, 2 for a malformed command line, one line
and no traceback either way. Each case here once gave a traceback or the other code."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workbench.cli import main

ROOT = Path(__file__).resolve().parents[2]
HUGE = "99999999999999999999"


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> str:
    copy = tmp_path_factory.mktemp("exit") / "sample.sqlite"
    shutil.copyfile(ROOT / "sample_db" / "sample.sqlite", copy)
    return str(copy)


@pytest.fixture
def files(tmp_path):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    run.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    return str(qrels), str(run)


@pytest.mark.parametrize("measure", [f"ndcg_cut.{HUGE}", f"nDCG@{HUGE}", f"P@{2**31}", "nDCG@1e20"])
@pytest.mark.parametrize("command", ["eval", "score", "compare", "export scores"])
def test_a_huge_or_malformed_cutoff_is_a_usage_error_everywhere(command, measure, sample, files, capsys):
    argv = command.split()
    argv += ["-m", measure] + (list(files) if command == "eval" else ["--db", sample])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "too large (at most 2147483647)" in err or "unknown measure 'nDCG@1e20'" in err


def test_the_largest_cutoff_evaluates(files, capsys):
    assert main(["eval", "-m", f"P.{2**31 - 1}", "-m", f"ndcg_cut.{2**31 - 1}", *files]) == 0
    out = capsys.readouterr().out
    assert f"P_{2**31 - 1}" in out and "1.0000" in out


def test_agree_with_one_assessor_is_bad_state_not_usage(sample, tmp_path, capsys):
    from workbench.campaign.database import Database
    from workbench.campaign.judging.grades import record_grade

    db = tmp_path / "one.sqlite"
    assert main(["init", "--db", str(db)]) == 0
    database = Database.open(str(db))
    try:
        from sqlalchemy import insert

        from workbench.store.models import Document, Query

        with database.write.begin() as s:
            s.execute(insert(Query), [{"ext_id": "q1"}])
            s.execute(insert(Document), [{"ext_id": "d1"}])
        record_grade(database, "alice", "q1", "d1", 1)
    finally:
        database.close()
    capsys.readouterr()
    assert main(["agree", "--db", str(db)]) == 1
    assert "needs at least two assessors with grades; got 1" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["queries", "docs", "run", "qrels"])
def test_a_directory_given_as_an_import_file_is_bad_data(kind, tmp_path, capsys):
    db = tmp_path / "x.sqlite"
    assert main(["init", "--db", str(db)]) == 0
    extra = ["--assessor", "ann"] if kind == "qrels" else []
    folder = tmp_path / "folder"
    folder.mkdir()
    capsys.readouterr()
    assert main(["import", kind, str(folder), "--db", str(db), *extra]) == 1
    assert main(["import", kind, str(tmp_path / "missing"), "--db", str(db), *extra]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [f"workbench: {folder}: is a directory, expected a file", f"workbench: {tmp_path / 'missing'}: no such file"]
