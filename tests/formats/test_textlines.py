"""What a line is, for every reader: `\\n`, `\\r\\n` and a lone `\\r` end a
line; a vertical tab or form feed inside a line is refused with file:line.

The same files go through every reader: topics and documents (tsv, jsonl, trec), runs and
qrels (the vectorised chunk reader, with chunks as small as 1 byte so that every line end
is also a chunk boundary) and `grade --batch`'s stream reader.
"""

from __future__ import annotations

import io
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.errors import InputError
from workbench.formats.documents import read_documents
from workbench.formats.textlines import (
    iter_lines,
    iter_stream_lines,
    split_lines,
)
from workbench.formats.topics import read_topics
from workbench.formats.trec import read_qrels, read_run

ENDS = {"lf": b"\n", "crlf": b"\r\n", "cr": b"\r"}
FF_REASON = "a form feed inside the line; lines end with \\n, \\r\\n or \\r"


def _qrels(path, **kw):
    q = read_qrels(path, **kw)
    return list(zip(q.qid.tolist(), q.docno.tolist(), q.rel.tolist(), q.line.tolist()))


def _run(path, **kw):
    r = read_run(path, **kw)
    return list(zip(r.qid.tolist(), r.docno.tolist(), r.score.tolist(), r.line.tolist()))


def _topics(fmt):
    return lambda path: [(t.id, t.title, t.line) for t in read_topics(path, fmt)]


def _docs(fmt):
    return lambda path: [(d.id, d.title, d.text.strip(), d.line) for d in read_documents(path, fmt)]


# reader, its lines, the records expected (with the line numbers of LF files)
CASES = {
    "qrels": (_qrels, [b"q1 0 d1 1", b"q1 0 d2 0", b"q2 0 d1 2"],
              [(b"q1", b"d1", 1, 1), (b"q1", b"d2", 0, 2), (b"q2", b"d1", 2, 3)]),
    "qrels/1-byte chunks": (lambda p: _qrels(p, chunk_bytes=1), [b"q1 0 d1 1", b"q1 0 d2 0", b"q2 0 d1 2"],
                            [(b"q1", b"d1", 1, 1), (b"q1", b"d2", 0, 2), (b"q2", b"d1", 2, 3)]),
    "run": (_run, [b"q1 Q0 d1 1 2.5 t", b"q1 Q0 d2 2 1.5 t", b"q2 Q0 d1 1 0.5 t"],
            [(b"q1", b"d1", 2.5, 1), (b"q1", b"d2", 1.5, 2), (b"q2", b"d1", 0.5, 3)]),
    "run/2 threads, 3-byte chunks": (
        lambda p: _run(p, chunk_bytes=3, threads=2),
        [b"q1 Q0 d1 1 2.5 t", b"q1 Q0 d2 2 1.5 t", b"q2 Q0 d1 1 0.5 t"],
        [(b"q1", b"d1", 2.5, 1), (b"q1", b"d2", 1.5, 2), (b"q2", b"d1", 0.5, 3)]),
    "topics/tsv": (_topics("tsv"), [b"q1\ta", b"q2\tb"], [("q1", "a", 1), ("q2", "b", 2)]),
    "topics/jsonl": (_topics("jsonl"), [b'{"id": "q1", "title": "a"}', b'{"id": "q2", "title": "b"}'],
                     [("q1", "a", 1), ("q2", "b", 2)]),
    "topics/trec": (_topics("trec"), [b"<top>", b"<num> Number: q1", b"<title> a", b"</top>",
                                      b"<top>", b"<num> Number: q2", b"<title> b", b"</top>"],
                    [("q1", "a", 1), ("q2", "b", 5)]),
    "docs/tsv": (_docs("tsv"), [b"d1\tone", b"d2\ttwo"], [("d1", "", "one", 1), ("d2", "", "two", 2)]),
    "docs/jsonl": (_docs("jsonl"), [b'{"id": "d1", "text": "one"}', b'{"id": "d2", "text": "two"}'],
                   [("d1", "", "one", 1), ("d2", "", "two", 2)]),
    "docs/trec": (_docs("trec"), [b"<DOC>", b"<DOCNO>d1</DOCNO>", b"<TEXT>", b"one", b"</TEXT>", b"</DOC>",
                                  b"<DOC>", b"<DOCNO>d2</DOCNO>", b"<TEXT>two</TEXT>", b"</DOC>"],
                  [("d1", "", "one", 1), ("d2", "", "two", 7)]),
}


@pytest.mark.parametrize("end", list(ENDS))
@pytest.mark.parametrize("name", list(CASES))
def test_every_reader_reads_lf_crlf_and_cr_files_the_same(tmp_path, name, end):
    read, lines, expected = CASES[name]
    path = tmp_path / f"file.{end}"
    path.write_bytes(ENDS[end].join(lines) + ENDS[end])
    assert read(str(path)) == expected


@pytest.mark.parametrize("name", list(CASES))
def test_mixed_line_ends_and_a_final_line_without_one(tmp_path, name):
    read, lines, expected = CASES[name]
    ends = [b"\r", b"\r\n", b"\n"]
    data = b"".join(line + ends[i % 3] for i, line in enumerate(lines[:-1])) + lines[-1]
    path = tmp_path / "mixed"
    path.write_bytes(b"\xef\xbb\xbf" + data)
    assert read(str(path)) == expected


@pytest.mark.parametrize("separator", [b"\x0c", b"\x0b"])
@pytest.mark.parametrize("name", list(CASES))
def test_a_form_feed_or_vertical_tab_between_lines_is_refused_with_its_line(tmp_path, name, separator):
    """The bug: `q1\\ta\\fq2\\tb` made q1's title `a\\fq2`; a run lost its second line."""
    read, lines, _ = CASES[name]
    data = b"\n".join(lines[:-1]) + separator + lines[-1] + b"\n"
    path = tmp_path / "ff"
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        read(str(path))
    kind = "a form feed" if separator == b"\x0c" else "a vertical tab"
    assert str(info.value) == (
        f"{path}:{len(lines) - 1}: {kind} inside the line; lines end with \\n, \\r\\n or \\r")


def test_the_issue_cases(tmp_path):
    run = tmp_path / "mac.run"
    run.write_bytes(b"q1 Q0 d1 1 2.5 t\rq1 Q0 d2 2 1.5 t\rq2 Q0 d1 1 0.5 t\r")
    assert len(read_run(run)) == 3  # was 1: the rest read as extra columns
    topics = tmp_path / "mac.tsv"
    topics.write_bytes(b"q1\ta\rq2\tb\r")
    assert [(t.id, t.title) for t in read_topics(topics)] == [("q1", "a"), ("q2", "b")]
    ff = tmp_path / "ff.tsv"
    ff.write_bytes(b"q1\ta\fq2\tb\n")
    with pytest.raises(InputError, match=r"ff.tsv:1: a form feed inside the line"):
        list(read_topics(ff))


# ---------------------------------------------------------------- the splitter itself


def _split(data: bytes, block: int) -> list[tuple[int, bytes, str | None]]:
    return list(split_lines(io.BytesIO(data).read, block))


lines_and_ends = st.lists(
    st.tuples(st.binary(max_size=8).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b"")),
              st.sampled_from([b"\n", b"\r\n", b"\r"])),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(lines_and_ends, st.integers(1, 9), st.booleans())
def test_split_lines_whatever_the_block_size(items, block, last_unended):
    data = b"".join(text + end for text, end in items)
    if last_unended and items:
        data = data[: -len(items[-1][1])]
    # the rule, as a regular expression: \r\n, \r or \n end a line
    expected = re.split(rb"\r\n|\r|\n", data)
    if expected[-1] == b"":
        expected.pop()  # (nothing after the last line end)
    if expected and expected[0].startswith(b"\xef\xbb\xbf"):
        expected[0] = expected[0][3:]
    got = _split(data, block)
    assert [raw for _, raw, _ in got] == expected
    assert [n for n, _, _ in got] == list(range(1, len(expected) + 1))
    for (_, raw, reason) in got:
        assert (reason is None) == (not any(b in raw for b in (b"\x00", b"\x0b", b"\x0c")))


def test_split_lines_checks_a_line_that_spans_blocks():
    got = _split(b"abc\x0cdef ghi\nok\n", 2)
    assert got == [(1, b"abc\x0cdef ghi", FF_REASON), (2, b"ok", None)]


def test_stream_lines_come_as_soon_as_their_end_arrives():
    class Pipe:
        """read1 gives what one write sent, as a pipe does."""

        def __init__(self, writes):
            self.writes = list(writes)

        def read1(self, n):
            return self.writes.pop(0) if self.writes else b""

        def read(self, n):
            raise AssertionError("read() would wait for n bytes")

    got = []
    pipe = Pipe([b"\xef\xbb\xbfq1 d1 2\r", b"\nq1 d2\xff 1\r", b"q2 d3 3"])
    for item in iter_stream_lines(pipe):
        got.append((item, len(pipe.writes)))
    assert got == [
        ((1, "q1 d1 2", None), 2),  # before the second write was read
        ((2, None, "invalid UTF-8 at byte 6 of the line"), 1),
        ((3, "q2 d3 3", None), 0),
    ]
    assert list(iter_stream_lines(io.StringIO("a\rb\r\nc"))) == [
        (1, "a", None), (2, "b", None), (3, "c", None)]


@settings(max_examples=200, deadline=None)
@given(lines_and_ends, st.integers(1, 9), st.booleans())
def test_the_chunk_reader_splits_lines_as_split_lines_does(items, chunk, last_unended):
    """formats.columns applies the rule to byte chunks of its own: every chunk size gives
    the lines (and line numbers) that split_lines gives."""
    import tempfile

    rows = [(b"q%d 0 d%d 1" % (i, i), end) for i, (_, end) in enumerate(items)]
    data = b"".join(text + end for text, end in rows)
    if last_unended and rows:
        data = data[: -len(rows[-1][1])]
    expected = [(n, raw) for n, raw, _ in _split(data, 1 << 20) if raw]
    with tempfile.NamedTemporaryFile(suffix=".qrels") as fh:
        fh.write(data)
        fh.flush()
        for threads in (1, 2):
            got = _qrels(fh.name, chunk_bytes=chunk, threads=threads)
            assert [(n, b"%s 0 %s %d" % (q, d, r)) for q, d, r, n in got] == expected


def test_iter_lines_of_a_gzip_file_with_cr_ends(tmp_path):
    import gzip

    path = tmp_path / "t.tsv.gz"
    path.write_bytes(gzip.compress(b"q1\ta\rq2\tb\r"))
    assert list(iter_lines(path)) == [(1, "q1\ta"), (2, "q2\tb")]
    assert json.dumps([t.id for t in read_topics(path)]) == '["q1", "q2"]'
