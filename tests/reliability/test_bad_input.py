"""Bad input never crashes: every reader (qrels, run, topics and documents in each format)
either reads a file or raises InputError("file:line: reason" / "file: reason"), and a
failed `workbench import` leaves the database exactly as it was.

Hypothesis drives junk bytes, near-valid files with one bad line, wrong column counts,
non-numeric and non-finite numbers, invalid UTF-8, NUL and control bytes, CRLF, BOMs and
tiny parsing chunks (so that every line boundary is also a chunk boundary).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.errors import InputError
from workbench.formats.documents import read_documents
from workbench.formats.topics import read_topics
from workbench.formats.trec import read_qrels, read_run

from tests.reliability.conftest import counts

READERS = {
    "qrels": read_qrels,
    "qrels/7-byte chunks": lambda p: read_qrels(p, chunk_bytes=7),
    "run": read_run,
    "run/7-byte chunks": lambda p: read_run(p, keep_rank=True, chunk_bytes=7),
    "topics": lambda p: list(read_topics(p)),
    "topics/tsv": lambda p: list(read_topics(p, "tsv")),
    "topics/jsonl": lambda p: list(read_topics(p, "jsonl")),
    "topics/trec": lambda p: list(read_topics(p, "trec")),
    "docs": lambda p: list(read_documents(p)),
    "docs/tsv": lambda p: list(read_documents(p, "tsv")),
    "docs/jsonl": lambda p: list(read_documents(p, "jsonl")),
    "docs/trec": lambda p: list(read_documents(p, "trec")),
}

# ---------------------------------------------------------------------------- strategies

ids = st.sampled_from(["q1", "q2", "d1", "d2", "D-3", "401", "x" * 40, "é", "[bold]"])
valid_line = {
    "qrels": st.builds(lambda q, d, g: f"{q} 0 {d} {g}", ids, ids, st.integers(-1, 3)),
    "run": st.builds(lambda q, d, r, s: f"{q} Q0 {d} {r} {s!r} tag", ids, ids,
                     st.integers(1, 1000), st.floats(-1e6, 1e6)),
    "topics/tsv": st.builds(lambda q, t: f"{q}\t{t}", ids, ids),
    "topics/jsonl": st.builds(lambda q, t: json.dumps({"id": q, "title": t}), ids, ids),
    "topics/trec": st.builds(lambda q, t: f"<top>\n<num> Number: {q}\n<title> {t}\n</top>", ids, ids),
    "docs/tsv": st.builds(lambda d, t: f"{d}\t{t}", ids, ids),
    "docs/jsonl": st.builds(lambda d, t: json.dumps({"id": d, "text": t}), ids, ids),
    "docs/trec": st.builds(
        lambda d, t: f"<DOC>\n<DOCNO>{d}</DOCNO>\n<TEXT>\n{t}\n</TEXT>\n</DOC>", ids, ids),
}
BAD_TOKENS = [
    "nan", "NaN", "inf", "-inf", "1e999", "1.5", "0x10", "", "three", "#", "Q0", "--", "1e",
    "99999999999999999999999", "{", "}", '"', "[1]", "null", "<DOC>", "</DOC>", "<DOCNO>",
    "</TEXT>", "<top>", "</top>", "<num>", '<topic number="">', "&#xD800;", "&#99999999999;",
    '{"id": "a\\u0000", "text": "NUL escape"}', '{"id": "b", "text": "\\u0000"}', "&#0;",
    "[/x]", "\t", "\t\t\t\t", " ", "\x0b", "\x0c", "\x1f", "\x7f", "\u2028", "\u0085", "\u00a0",
]
BAD_BYTES = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\x01", b"\xef\xbb\xbf", b"\r", b"\x1b[31m"]
token = st.one_of(
    st.sampled_from(BAD_TOKENS).map(str.encode),
    ids.map(str.encode),
    st.sampled_from(BAD_BYTES),
    st.binary(max_size=6),
    st.text(max_size=6).map(str.encode),
)
junk_line = st.builds(
    lambda toks, sep: sep.join(toks), st.lists(token, max_size=8), st.sampled_from([b" ", b"\t", b"  "])
)


@st.composite
def near_valid(draw, fmt: str) -> bytes:
    """A valid file of format `fmt` with junk lines spliced in, LF, CRLF or CR, maybe a BOM."""
    lines = [draw(valid_line[fmt]).encode() for _ in range(draw(st.integers(0, 6)))]
    for _ in range(draw(st.integers(0, 2))):
        lines.insert(draw(st.integers(0, len(lines))), draw(junk_line))
    end = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    data = end.join(lines) + (end if draw(st.booleans()) else b"")
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + data


def any_file(fmt: str):
    return st.one_of(near_valid(fmt), st.binary(max_size=200),
                     st.lists(junk_line, max_size=6).map(b"\n".join))


FORMAT_OF = {
    "qrels": "qrels", "qrels/7-byte chunks": "qrels", "run": "run", "run/7-byte chunks": "run",
    "topics": "topics/tsv", "topics/tsv": "topics/tsv", "topics/jsonl": "topics/jsonl",
    "topics/trec": "topics/trec", "docs": "docs/tsv", "docs/tsv": "docs/tsv",
    "docs/jsonl": "docs/jsonl", "docs/trec": "docs/trec",
}

# ---------------------------------------------------------------------------- the property


def assert_input_error_shape(exc: InputError, path: str, data: bytes) -> None:
    message = str(exc)
    assert "\n" not in message and "\r" not in message, message
    m = re.match(re.escape(path) + r"(?::(\d+))?: \S", message)
    assert m, message
    if m.group(1) is not None:
        # \n, \r\n and a lone \r each end a line (formats.textlines)
        n_lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n") + 1
        assert 1 <= int(m.group(1)) <= n_lines, (message, n_lines)


def read_or_input_error(reader, path: str, data: bytes):
    with open(path, "wb") as fh:
        fh.write(data)
    try:
        return reader(path)
    except InputError as exc:
        assert_input_error_shape(exc, path, data)
        return exc


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


_counter = itertools.count()


@pytest.mark.parametrize("name", list(READERS))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_reader_never_crashes(name, data, scratch):
    fmt = FORMAT_OF[name]
    content = data.draw(any_file(fmt), label="file")
    path = str(scratch / f"{name.replace('/', '_').replace(' ', '')}_{next(_counter)}.txt")
    read_or_input_error(READERS[name], path, content)


@pytest.mark.parametrize("fmt", ["qrels", "run"])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_trec_readers_same_result_whatever_the_chunk_size(fmt, data, scratch):
    """Chunked vectorised parsing: 7-byte and 16 MB chunks read the same rows, and refuse
    the same files. (Which error is named may differ when a file has several: byte checks
    run per chunk before column checks.)"""
    content = data.draw(near_valid(fmt), label="file")
    path = str(scratch / f"chunks_{next(_counter)}.txt")
    read = read_qrels if fmt == "qrels" else read_run
    big = read_or_input_error(read, path, content)
    small = read_or_input_error(lambda p: read(p, chunk_bytes=7), path, content)
    if isinstance(big, InputError):
        assert isinstance(small, InputError), str(big)
        return
    assert not isinstance(small, InputError), str(small)
    assert small.qid.tolist() == big.qid.tolist() and small.docno.tolist() == big.docno.tolist()
    values = "rel" if fmt == "qrels" else "score"
    assert getattr(small, values).tolist() == getattr(big, values).tolist()
    assert small.line.tolist() == big.line.tolist()


# ---------------------------------------------------------------------------- fixed cases

RUN_OK = "q1 Q0 d1 1 2.5 tag\n"


@pytest.mark.parametrize(
    "content, line, fragment",
    [
        (RUN_OK + "q1 Q0 d2 2 nan tag\n", 2, "finite number"),
        (RUN_OK + "q1 Q0 d2 2 NaN tag\n", 2, "finite number"),
        (RUN_OK + "q1 Q0 d2 2 inf tag\n", 2, "finite number"),
        (RUN_OK + "q1 Q0 d2 2 -Infinity tag\n", 2, "finite number"),
        (RUN_OK + "q1 Q0 d2 2 1e999 tag\n", 2, "finite number"),
        (RUN_OK + "q1 Q0 d2 2 high tag\n", 2, "finite number"),
        (RUN_OK + "q1 Q0 d2 2 0.5\n", 2, "expected 6 columns"),
        (RUN_OK + "q1 Q0 d\xff 2 0.5 tag\n", 2, "UTF-8"),
        (RUN_OK + "q1 Q0 d2 2 0.5 t\x00g\n", 2, "binary"),
    ],
)
def test_run_reader_names_the_bad_line(tmp_path, content, line, fragment):
    path = tmp_path / "bad.run"
    path.write_bytes(content.encode("latin-1"))
    with pytest.raises(InputError) as info:
        read_run(path)
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    "content, line, fragment",
    [
        ("q1 0 d1 1\nq1 0 d2 relevant\n", 2, "integer"),
        ("q1 0 d1 1\nq1 0 d2 1.5\n", 2, "integer"),
        ("q1 0 d1 1\nq1 0 d2 nan\n", 2, "integer"),
        ("q1 0 d1 1\nq1 0 d2 99999999999999999999999\n", 2, "integer"),
        ("q1 0 d1 1\nq1 0 d2\n", 2, "expected 4 columns"),
        ("q1 0 d1 1\n\n\nq1 0 d2 1 1\n", 4, "expected 4 columns"),
        ("q1 0 d1 1\r\nq1 0 d1 2\r\n", 2, "duplicate"),
    ],
)
def test_qrels_reader_names_the_bad_line(tmp_path, content, line, fragment):
    path = tmp_path / "bad.qrels"
    path.write_text(content, encoding="utf-8", newline="")
    with pytest.raises(InputError) as info:
        read_qrels(path)
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert fragment in str(info.value)


@pytest.mark.parametrize("end", ["\r\n", "\r"])
def test_crlf_cr_bom_and_lf_read_the_same(tmp_path, end):
    lf = "q1 Q0 d1 1 2.5 A\nq1 Q0 d2 2 1.5 A\nq2 Q0 d1 1 0.5 A\n"
    a, b = tmp_path / "lf.run", tmp_path / "other.run"
    a.write_text(lf, newline="")
    b.write_bytes(b"\xef\xbb\xbf" + lf.replace("\n", end).encode())
    ra, rb = read_run(a), read_run(b)
    assert rb.qid.tolist() == ra.qid.tolist() == [b"q1", b"q1", b"q2"]
    assert rb.docno.tolist() == ra.docno.tolist() and rb.score.tolist() == [2.5, 1.5, 0.5]
    assert rb.tag == "A" and rb.line.tolist() == ra.line.tolist() == [1, 2, 3]
    t = tmp_path / "t.tsv"
    t.write_bytes(b"\xef\xbb\xbf" + f"qid\ttitle{end}q1\tfirst{end}q2\tsecond{end}".encode())
    assert [(x.id, x.title, x.line) for x in read_topics(t)] == [("q1", "first", 2), ("q2", "second", 3)]


def test_huge_lines(tmp_path):
    """A 4 MB document line reads whole; a run line over 1 MiB is refused with its file:line
    whatever the parsing chunks (a 3 MB line was read whole in 4 MB chunks
    and refused in 64 KB ones); the lines before it are read first."""
    text = "word " * 800_000
    docs = tmp_path / "big.tsv"
    docs.write_text(f"d1\t{text}\nd2\tsmall\n")
    records = list(read_documents(docs))
    assert [r.id for r in records] == ["d1", "d2"] and len(records[0].text) == len(text)
    run = tmp_path / "big.run"
    run.write_text(f"q1 Q0 {'d' * 3_000_000} 1 1.0 t\nq1 Q0 d2 2 0.5 t\n")
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 1.0 t\n" + "x " * 3_000_000 + "\n")
    for chunk in (1 << 16, 1 << 20, 4 << 20, 16 << 20, None):
        for threads in (1, 2):
            for path, line in ((run, 1), (bad, 2)):
                with pytest.raises(InputError) as info:
                    read_run(path, chunk_bytes=chunk, threads=threads)
                assert str(info.value) == (
                    f"{path}:{line}: line longer than 1 MiB without a newline: expected "
                    "qid iter docno rank score tag; stopped reading there"), (chunk, threads)


@pytest.mark.parametrize("name", list(READERS))
def test_empty_and_blank_files_read_as_nothing(tmp_path, name):
    for i, content in enumerate([b"", b"\n\n", b"\xef\xbb\xbf", b"\r\n  \t\r\n"]):
        path = tmp_path / f"empty{i}.txt"
        path.write_bytes(content)
        got = READERS[name](str(path))
        assert len(got) == 0, (name, content)


# ---------------------------------------------------------------------------- through import


def _cli(argv: list[str]) -> tuple[int, str]:
    from workbench.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, err.getvalue()


@pytest.fixture
def campaign_db(db_url, tmp_path):
    """A campaign with queries, documents, a run and an assessor's qrels already in."""
    base = tmp_path / "base"
    base.mkdir()
    (base / "q.tsv").write_text("q1\tone\nq2\ttwo\n")
    (base / "d.tsv").write_text("d1\tfirst\nd2\tsecond\n")
    (base / "r.run").write_text("q1 Q0 d1 1 2 base\nq1 Q0 d2 2 1 base\nq2 Q0 d2 1 3 base\n")
    (base / "a.qrels").write_text("q1 0 d1 1\nq2 0 d2 3\n")
    for argv in (["queries", "q.tsv"], ["docs", "d.tsv"], ["run", "r.run"],
                 ["qrels", "a.qrels", "--assessor", "ann"]):
        argv[1] = str(base / argv[1])
        code, err = _cli(["import", *argv, "--db", db_url])
        assert code == 0, err
    return db_url


KINDS = {
    "queries": ("topics/tsv", []),
    "docs": ("docs/tsv", []),
    "run": ("run", ["--name", "fuzzed"]),
    "qrels": ("qrels", ["--assessor", "ann"]),
}


@pytest.mark.slow
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_failed_import_changes_nothing(campaign_db, tmp_path, data):
    kind = data.draw(st.sampled_from(list(KINDS)), label="kind")
    fmt, extra = KINDS[kind]
    if kind in ("queries", "docs"):
        fmt = data.draw(st.sampled_from([f"{fmt[:-4]}/tsv", f"{fmt[:-4]}/jsonl", f"{fmt[:-4]}/trec"]))
    content = data.draw(any_file(fmt), label="file")
    path = tmp_path / f"import_{next(_counter)}.txt"
    path.write_bytes(content)
    before = counts(campaign_db)
    code, err = _cli(["import", kind, str(path), "--db", campaign_db, *extra])
    if code == 0:
        if kind == "run":  # the next example imports under the same name again
            _cli(["import", "run", str(path), "--db", campaign_db, "--name", "fuzzed", "--replace"])
        return
    assert code == 1, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"workbench: {path}"), err
    assert re.match(re.escape(f"workbench: {path}") + r"(:\d+)?: \S", lines[0]), err
    assert counts(campaign_db) == before


NASTY_IMPORTS = [
    ("docs", b'{"id": "d9", "text": "a\\u0000b"}\n', [], 1),
    ("docs", b"d9\tnul \x00 byte\n", [], 1),
    ("queries", b'{"id": "q\\u00009", "title": "t"}\n', [], 1),
    ("queries", b"q9\tok\nq10\t\xff\xfe\n", [], 2),
    ("queries", b"<top>\n<num> Number: 9\n<title> open\n", [], 1),
    ("docs", b'{"id": "d9", "text": ' + b"[" * 50_000 + b"}\n", [], 1),
    ("run", b"q1 Q0 d1 1 2 r\nq1 Q0 d2 2 nan r\n", ["--name", "n"], 2),
    ("run", b"", ["--name", "n"], None),
    ("qrels", b"q1 0 d1 1\nq1 0 d2 7\n", ["--assessor", "ann"], 2),
    ("qrels", b"q1 0 d1 1\nq1 0 d2 1 extra\n", ["--assessor", "ann"], 2),
    # ids that could not be written back as one TREC column
    ("queries", b"<top>\n<num> Number: 401 extra\n<title> t\n</top>\n", [], 1),
    ("queries", b'{"id": "q9"}\n{"id": "#9", "title": "t"}\n', [], 2),
    ("queries", b"q9\tok\nq\xc2\xa010\tnbsp\n", [], 2),
    ("docs", b"<DOC>\n<DOCNO>d9</DOCNO>\n</DOC>\n<DOC>\n<DOCNO>a b</DOCNO>\n<TEXT>x</TEXT>\n</DOC>\n", [], 4),
    ("docs", b'{"id": "a\\tb", "text": "a tab in a JSON id"}\n', [], 1),
    ("docs", b"#d9\ttext\n", [], 1),
    ("run", b"q1 Q0 d1 1 2 r\nq1 Q0 #d2 2 1 r\n", ["--name", "n"], 2),
    ("run", b"q1 Q0 d1 1 2 r\n", ["--name", "a b"], None),
    ("qrels", b"q1 0 d1 1\nq1 0 d\xc2\xa0x 1\n", ["--assessor", "ann"], 2),
    ("qrels", b"q1 0 d\x7f 1\n", ["--assessor", "ann"], 1),
]


@pytest.mark.parametrize("kind, content, extra, line", NASTY_IMPORTS)
def test_nasty_import_is_one_line_and_writes_nothing(campaign_db, tmp_path, kind, content, extra, line):
    """Cases that once reached the database driver or the JSON decoder (NUL characters,
    which PostgreSQL text cannot hold; runaway nesting) and the classic bad lines."""
    path = tmp_path / "nasty.txt"
    path.write_bytes(content)
    before = counts(campaign_db)
    code, err = _cli(["import", kind, str(path), "--db", campaign_db, *extra])
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert code == 1 and err.startswith(f"workbench: {where}") and err.count("\n") == 1, err
    assert counts(campaign_db) == before


def test_cr_only_files_import_every_line(db_url, tmp_path):
    """A CR-only run imported as "1 result", a CR-only topics TSV gave q1 the
    title `a\\rq2` and lost q2."""
    from sqlalchemy import select

    from workbench.campaign.database import Database
    from workbench.store.models import Query

    (tmp_path / "q.tsv").write_bytes(b"q1\ta\rq2\tb\r")
    (tmp_path / "r.run").write_bytes(b"q1 Q0 d1 1 2 mac\rq1 Q0 d2 2 1 mac\rq2 Q0 d2 1 3 mac\r")
    (tmp_path / "a.qrels").write_bytes(b"q1 0 d1 1\rq2 0 d2 0\r")
    for argv in (["queries", "q.tsv"], ["run", "r.run"], ["qrels", "a.qrels", "--assessor", "ann"]):
        argv[1] = str(tmp_path / argv[1])
        assert _cli(["import", *argv, "--db", db_url]) == (0, "")
    db = Database.open(db_url, create=False)
    try:
        with db.read() as s:
            titles = dict(s.execute(select(Query.ext_id, Query.title)).all())
    finally:
        db.close()
    assert titles == {"q1": "a", "q2": "b"}
    assert (counts(db_url)["result"], counts(db_url)["judgment"]) == (3, 2)


def test_the_issue_ids_are_refused_with_their_reason(campaign_db, tmp_path):
    """The messages users see: file:line, the id, why, and nothing written."""
    cases = [
        ("queries", "t.trec", b"<top>\n<num> Number: 401 extra\n<title> t\n</top>\n", [],
         "1: query id '401 extra' contains whitespace (' '); an id is one column of a TREC file"),
        ("docs", "d.trec", b"<DOC>\n<DOCNO>a b</DOCNO>\n</DOC>\n", [],
         "1: document id 'a b' contains whitespace (' '); an id is one column of a TREC file"),
        ("docs", "d.jsonl", b'{"id": "a\\tb"}\n', [],
         "1: document id 'a\\tb' contains whitespace ('\\t'); an id is one column of a TREC file"),
        ("queries", "q.tsv", b"#1\ttitle\n", [],
         "1: query id '#1' starts with '#' (it would read back as a comment line)"),
    ]
    before = counts(campaign_db)
    for kind, name, content, extra, message in cases:
        path = tmp_path / name
        path.write_bytes(content)
        assert _cli(["import", kind, str(path), "--db", campaign_db, *extra]) == (
            1, f"workbench: {path}:{message}\n")
    assert counts(campaign_db) == before
    # an assessor name import qrels could never store is refused before the file is read
    path = tmp_path / "ok.qrels"
    path.write_bytes(b"q1 0 d1 2\n")
    code, err = _cli(["import", "qrels", str(path), "--db", campaign_db, "--assessor", "a\tb"])
    assert (code, err) == (1, "workbench: assessor name 'a\\tb' contains '\\t'; only spaces may "
                              "separate the words of a name\n")
    assert counts(campaign_db) == before
