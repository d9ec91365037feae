"""`workbench import ...`: one summary line on success, one error line and exit 1 on bad
input, nothing written."""

from __future__ import annotations

import sqlite3

import pytest

from workbench.campaign.scoring.sources import QrelsSource
from workbench.cli import main


@pytest.fixture
def dbfile(tmp_path, capsys):
    path = tmp_path / "campaign.sqlite"
    assert main(["init", "--db", str(path)]) == 0
    capsys.readouterr()
    return str(path)


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content)
    return str(path)


def count(db, table) -> int:
    """Rows of `table`; for "result", the results of every stored run."""
    conn = sqlite3.connect(db)
    sql = "SELECT coalesce(sum(n_rows), 0) FROM run_arrays" if table == "result" else f"SELECT count(*) FROM {table}"
    try:
        return conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


def run_cli(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_import_every_kind(tmp_path, dbfile, capsys):
    topics = write(tmp_path, "topics.jsonl", '{"id": "q1", "title": "one"}\n{"id": "q2", "title": "two"}\n')
    docs = write(tmp_path, "docs.trec", "<DOC><DOCNO>d1</DOCNO><TEXT>x</TEXT></DOC>\n")
    run = write(tmp_path, "run.txt", "q1 Q0 d1 1 2.0 bm25\nq1 Q0 d2 2 1.0 bm25\n")
    qrels = write(tmp_path, "qrels.txt", "q1 0 d1 1\nq1 0 d2 0\n")
    assert run_cli(["import", "queries", topics, "--db", dbfile], capsys) == (
        0, "imported 2 queries from topics.jsonl (2 new, 0 updated)\n", "")
    assert run_cli(["import", "docs", docs, "--db", dbfile], capsys) == (
        0, "imported 1 document from docs.trec (1 new, 0 updated)\n", "")
    assert run_cli(["import", "run", run, "--db", dbfile], capsys) == (
        0, "imported run 'bm25' from run.txt: 2 results for 1 query "
           "(created 0 stub queries and 1 stub document)\n", "")
    assert run_cli(["import", "qrels", qrels, "--assessor", "ann", "--db", dbfile], capsys) == (
        0, "imported 2 judgments by 'ann' from qrels.txt for 1 query (2 new, 0 changed, "
           "0 unchanged; created 0 stub queries and 0 stub documents)\n", "")
    assert (count(dbfile, "query"), count(dbfile, "document"), count(dbfile, "result"),
            count(dbfile, "judgment"), count(dbfile, "judgment_event")) == (2, 2, 2, 2, 2)


def test_run_name_and_replace_options(tmp_path, dbfile, capsys):
    run = write(tmp_path, "run.txt", "q1 Q0 d1 1 2.0 bm25\n")
    assert run_cli(["import", "run", run, "--db", dbfile], capsys)[0] == 0
    assert run_cli(["import", "run", run, "--db", dbfile], capsys) == (
        1, "", f"workbench: {run}: run 'bm25' is already imported (1 result); pass --replace "
               "to replace it, or --name to import it under another tag\n")
    code, out, _ = run_cli(["import", "run", run, "--replace", "--db", dbfile], capsys)
    assert code == 0 and out.endswith("; replaced 1 earlier result)\n")
    code, out, _ = run_cli(["import", "run", run, "--name", "copy", "--db", dbfile], capsys)
    assert code == 0 and out.startswith("imported run 'copy' from run.txt")
    assert count(dbfile, "system") == 2


def test_format_option(tmp_path, dbfile, capsys):
    path = write(tmp_path, "q.dat", "q1 a title without tabs\n")
    assert run_cli(["import", "queries", path, "--db", dbfile], capsys) == (
        1, "", f"workbench: {path}: cannot tell the format (expected tab-separated columns, JSON "
               "lines or TREC <tags>); pass --format tsv|jsonl|trec\n")
    tsv = write(tmp_path, "q2.dat", "q1\ttitle\n")
    code, _, err = run_cli(["import", "queries", tsv, "--format", "jsonl", "--db", dbfile], capsys)
    assert (code, err) == (1, f"workbench: {tsv}:1: invalid JSON: Expecting value at column 1\n")
    assert run_cli(["import", "queries", tsv, "--format", "TSV", "--db", dbfile], capsys) == (
        0, "imported 1 query from q2.dat (1 new, 0 updated)\n", "")
    code, _, err = run_cli(["import", "queries", tsv, "--format", "xml", "--db", dbfile], capsys)
    assert code == 2 and "'xml' is not one of" in err


@pytest.mark.parametrize(
    "args, content, message",
    [
        (["queries"], "q1\tok\nq2\n",
         ":2: expected 2 to 4 tab-separated columns (qid, title[, description[, narrative]]), found 1"),
        (["docs"], '{"id": "d1"}\n{"id": "d1"}\n', ":2: duplicate document id 'd1' (first on line 1)"),
        (["run"], "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 NaN t\n", ":2: score (column 5) must be a finite number, found 'NaN'"),
        (["qrels", "--assessor", "ann"], "q1 0 d1 1\nq1 0 d2 4\n", ":2: grade 4 is not on the campaign scale (0, 1, 2, 3)"),
    ],
)
def test_bad_file_one_line_exit_1_nothing_written(tmp_path, dbfile, capsys, args, content, message):
    path = write(tmp_path, "bad.txt", content)
    code, out, err = run_cli(["import", args[0], path, *args[1:], "--db", dbfile], capsys)
    assert (code, out, err) == (1, "", f"workbench: {path}{message}\n")
    for table in ("query", "document", "system", "result", "assessor", "judgment", "judgment_event"):
        assert count(dbfile, table) == 0


def test_qrels_without_assessor_is_a_usage_error(tmp_path, dbfile, capsys):
    path = write(tmp_path, "qrels.txt", "q1 0 d1 1\n")
    code, _, err = run_cli(["import", "qrels", path, "--db", dbfile], capsys)
    assert code == 2 and "--assessor" in err


def test_missing_file(tmp_path, dbfile, capsys):
    missing = str(tmp_path / "nope.tsv")
    code, _, err = run_cli(["import", "queries", missing, "--db", dbfile], capsys)
    assert (code, err) == (1, f"workbench: {missing}: no such file\n")


def test_progress_bar_is_drawn_on_a_terminal_only(tmp_path):
    from workbench.cli.import_cmd import _progress

    with _progress(False) as progress:
        assert progress is None
    with _progress(True) as progress:
        progress("writing", 5, 10)
        progress("writing", 10, 10)


def test_several_runs_in_one_command_are_one_transaction(tmp_path, capsys):
    from workbench.cli import main

    db = str(tmp_path / "x.sqlite")
    assert main(["init", "--db", db]) == 0
    a, b, bad = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "bad.txt"
    a.write_text("q1 Q0 d1 1 2.0 A\nq1 Q0 d2 2 1.0 A\n")
    b.write_text("q1 Q0 d2 1 2.0 B\nq2 Q0 d3 1 1.0 B\n")
    bad.write_text("q1 Q0 d1 1 2.0 C\nq1 Q0 d2 2\n")
    capsys.readouterr()
    # a bad line in the last file: nothing of the first two is written
    assert main(["import", "run", str(a), str(b), str(bad), "--db", db]) == 1
    assert f"{bad}:2:" in capsys.readouterr().err
    assert main(["import", "run", str(a), str(b), "--db", db]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("imported run 'A' from a.txt: 2 results for 1 query")
    assert out[1].startswith("imported run 'B' from b.txt: 2 results for 2 queries")
    # the same tag twice in one command, or --name with several files
    assert main(["import", "run", str(a), str(a), "--db", db, "--replace"]) == 1
    assert "also the tag of" in capsys.readouterr().err
    assert main(["import", "run", str(a), str(b), "--name", "X", "--db", db]) == 2
    from workbench.campaign.database import Database
    from workbench.campaign.scoring.scores import score_campaign
    from workbench.campaign.judging.grades import record_grade

    database = Database.open(db)
    try:
        record_grade(database, "ann", "q1", "d2", 1)
        table = score_campaign(database, ["P.1"], source=QrelsSource.assessor("ann"))
    finally:
        database.close()
    assert table.systems == ("A", "B")
    assert [table.value(s, "q1", "P_1") for s in table.systems] == [0.0, 1.0]


def test_import_qrels_strict_refuses_grades_outside_the_assignment(tmp_path, capsys):
    """Grades outside the assessor's assignment, through the command: the summary counts them; --strict: exit 1, nothing."""
    import shutil
    from pathlib import Path

    db = str(tmp_path / "sample.sqlite")
    shutil.copy(Path(__file__).resolve().parents[2] / "sample_db" / "sample.sqlite", db)
    conn = sqlite3.connect(db)
    query, document = conn.execute(
        "SELECT q.ext_id, d.ext_id FROM assignment s JOIN assessor a ON a.id = s.assessor_id "
        "JOIN query q ON q.id = s.query_id JOIN document d ON d.id = s.document_id "
        "WHERE a.name = 'bob' ORDER BY s.id LIMIT 1").fetchone()
    conn.close()
    qrels = write(tmp_path, "bob.qrels", f"{query} 0 {document} 1\n{query} 0 not-in-the-pool 2\n")
    judgments = count(db, "judgment")
    code, out, err = run_cli(["import", "qrels", qrels, "-a", "bob", "--strict", "--db", db], capsys)
    assert (code, out) == (1, "")
    assert f"{qrels}:2: 1 of 2 grades are outside the assignment of 'bob'" in err
    assert count(db, "judgment") == judgments
    code, out, err = run_cli(["import", "qrels", qrels, "-a", "bob", "--db", db], capsys)
    assert code == 0 and out.endswith(
        "; 1 grade outside the assignment of 'bob' (--strict refuses them)\n"), out
