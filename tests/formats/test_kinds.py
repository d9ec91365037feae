"""Wrong file types are caught: a file that clearly looks like another kind than the one
imported is refused with file:line, what it looks like and the command for it; files that
could be either kind are accepted."""

from __future__ import annotations

import json

import pytest

from workbench.cli import main
from workbench.errors import InputError
from workbench.formats.kinds import check_kind, guess_kind

LONG = "the quick brown fox jumps over the lazy dog " * 4  # 36 words


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize("name, text, kind", [
    ("topics.tsv", "401\tforeign minorities\tdesc one\tnarr one\n402\tgreen energy\tdesc\tnarr\n", "queries"),
    ("topics_h.tsv", "qid\ttitle\n401\tforeign minorities\n", "queries"),
    ("topics.trec", "<top>\n<num> Number: 401\n<title> cats\n</top>\n", "queries"),
    ("topics.jsonl", json.dumps({"qid": "1", "query": "cats"}) + "\n", "queries"),
    ("docs.jsonl", "".join(json.dumps({"id": f"d{i}", "title": "T", "text": "short"}) + "\n" for i in range(3)), "documents"),
    ("docs2.jsonl", json.dumps({"id": "d1", "text": LONG}) + "\n", "documents"),
    ("docs.tsv", f"d1\t{LONG}\nd2\t{LONG}\n", "documents"),
    ("docs4.tsv", "d1\thttp://x.org/a\ttitle\ttext\nd2\t\ttitle\ttext\n", "documents"),
    ("docs.trec", "<DOC>\n<DOCNO> d1 </DOCNO>\n<TEXT> x </TEXT>\n</DOC>\n", "documents"),
    ("r.run", "q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.5 sys\n", "run"),
    ("a.qrels", "q1 0 d1 1\nq1 0 d2 0\n", "qrels"),
    ("tabs.qrels", "q1\t0\td1\t1\nq1\t0\td2\t0\n", "qrels"),
])
def test_guess_kind(tmp_path, name, text, kind):
    assert guess_kind(write(tmp_path, name, text)).kind == kind


@pytest.mark.parametrize("text", [
    "d1\tfirst\nd2\tsecond\n",  # short texts: titles are documents too, and topics
    "q1\tone\tdescription of it\n",  # three columns: either
    json.dumps({"id": "x", "text": "a few words"}) + "\n",
    "",
])
def test_ambiguous_files_get_no_guess(tmp_path, text):
    assert guess_kind(write(tmp_path, "f", text)) is None
    for kind in ("queries", "documents"):
        check_kind(write(tmp_path, "f", text), kind)  # accepted


def test_check_kind_names_the_kind_and_the_command(tmp_path):
    path = write(tmp_path, "docs.jsonl", json.dumps({"id": "d1", "title": "T", "text": "x"}) + "\n")
    with pytest.raises(InputError) as err:
        check_kind(path, "queries")
    assert err.value.line == 1
    assert "looks like documents, not queries" in str(err.value)
    assert "workbench import docs" in str(err.value)


def test_import_refuses_the_wrong_kind_and_writes_nothing(tmp_path, capsys):
    db = str(tmp_path / "c.sqlite")
    topics = write(tmp_path, "topics.tsv", "401\tforeign minorities\tdesc\tnarr\n402\tenergy\tdesc\tnarr\n")
    docs = write(tmp_path, "docs.jsonl", "".join(json.dumps({"id": f"d{i}", "title": "T", "text": LONG}) + "\n" for i in range(30)))
    assert main(["import", "docs", topics, "--db", db]) == 1
    assert "looks like queries, not documents" in capsys.readouterr().err
    assert main(["import", "queries", docs, "--db", db]) == 1
    err = capsys.readouterr().err
    assert f"{docs}:1:" in err and "use `workbench import docs`" in err
    run = write(tmp_path, "r.run", "401 Q0 d1 1 2.5 sys\n")
    assert main(["import", "qrels", run, "--assessor", "ann", "--db", db]) == 1
    assert "this looks like a run, not a qrels file" in capsys.readouterr().err
    # the right commands import them
    assert main(["import", "queries", topics, "--db", db]) == 0
    assert main(["import", "docs", docs, "--db", db]) == 0
    assert "30 documents" in capsys.readouterr().out
    assert main(["import", "run", run, "--db", db]) == 0


def test_a_fifo_is_not_read_ahead(tmp_path):
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    check_kind(str(fifo), "queries")  # returns at once: nothing consumed, nothing blocks
