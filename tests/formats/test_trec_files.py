"""TREC qrels and run readers/writers: values, tolerated layouts, file:line errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.errors import InputError
from workbench.formats.trec import read_qrels, read_run, write_qrels, write_run


def write(tmp_path, name, data: bytes):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_qrels_basic(tmp_path):
    p = write(tmp_path, "q", b"401 0 FBIS3-1 1\n401 0 FBIS3-2 0\n402 0 X -1\n")
    q = read_qrels(p)
    assert q.qid.tolist() == [b"401", b"401", b"402"]
    assert q.docno.tolist() == [b"FBIS3-1", b"FBIS3-2", b"X"]
    assert q.rel.tolist() == [1, 0, -1]
    assert q.line.tolist() == [1, 2, 3]
    assert q.path == str(p)


def test_layout_tolerance(tmp_path):
    data = b"\xef\xbb\xbf# comment\r\n1\t0   a 2\r\n\r\n  \n# another\n1 0 b 0"  # BOM, CRLF, tabs, no final \n
    q = read_qrels(write(tmp_path, "q", data))
    assert q.docno.tolist() == [b"a", b"b"]
    assert q.rel.tolist() == [2, 0]
    assert q.line.tolist() == [2, 5 + 1]


def test_empty_files_have_no_rows(tmp_path):
    assert len(read_qrels(write(tmp_path, "q", b""))) == 0
    r = read_run(write(tmp_path, "r", b"\n\n"))
    assert len(r) == 0 and r.tag == ""


def test_run_basic(tmp_path):
    p = write(tmp_path, "r", b"1 Q0 d1 1 2.5 sysA\n1 Q0 d2 2 -1e-3 sysA\n2 Q0 d1 1 7 sysB\n")
    r = read_run(p, keep_rank=True)
    assert r.qid.tolist() == [b"1", b"1", b"2"]
    assert r.score.tolist() == [2.5, -0.001, 7.0]
    assert r.rank.tolist() == [1, 2, 1]
    assert r.tag == "sysA" and r.tags == ("sysA", "sysB")
    assert read_run(p).rank is None


def test_utf8_ids(tmp_path):
    q = read_qrels(write(tmp_path, "q", "q1 0 café 1\n".encode()))
    assert q.docno[0].decode() == "café"


@pytest.mark.parametrize("data, line, reason", [
    (b"1 0 a 1\n1 0 a\n", 2, "expected 4 columns"),
    (b"1 0 a 1 extra\n", 1, "expected 4 columns"),
    (b"1 0 a 1\n1 0 b 1.5\n", 2, "must be an integer, found '1.5'"),
    (b"1 0 a 1\n1 0 b x\n", 2, "must be an integer"),
    (b"1 0 a 1\n2 0 b 1\n1 0 a 0\n", 3, "duplicate document 'a' for query '1'"),
    (b"1 0 a 1\n1 0 \xff 1\n", 2, "invalid UTF-8"),
    (b"1 0 a 1\n\x00\x01\x02 0 b 1\n", 2, "binary data"),
])
def test_qrels_errors(tmp_path, data, line, reason):
    p = write(tmp_path, "bad.qrels", data)
    with pytest.raises(InputError) as err:
        read_qrels(p)
    assert err.value.line == line
    assert reason in err.value.reason
    assert str(err.value).startswith(f"{p}:{line}: ")


@pytest.mark.parametrize("data, line, reason", [
    (b"1 Q0 a 1 1.0\n", 1, "expected 6 columns"),
    (b"1 Q0 a 1 1.0 t\n1 Q0 b 2 nan t\n", 2, "finite number"),
    (b"1 Q0 a 1 inf t\n", 1, "finite number"),
    (b"1 Q0 a 1 1.0 t\n1 Q0 b 2 abc t\n", 2, "finite number, found 'abc'"),
    (b"1 Q0 a 1 1 t\n1 Q0 b 2 1 t\n1 Q0 a 3 0 t\n", 3, "duplicate document 'a'"),
])
def test_run_errors(tmp_path, data, line, reason):
    with pytest.raises(InputError) as err:
        read_run(write(tmp_path, "bad.run", data))
    assert err.value.line == line and reason in err.value.reason


def test_rank_parsed_only_on_request(tmp_path):
    p = write(tmp_path, "r", b"1 Q0 a x 1.0 t\n")
    assert read_run(p).docno.tolist() == [b"a"]
    with pytest.raises(InputError, match="rank"):
        read_run(p, keep_rank=True)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_run(tmp_path / "absent")


def test_chunk_boundaries_keep_line_numbers(tmp_path):
    lines = [f"q{i % 7} Q0 doc{i} {i} {1.0 / (i + 1)!r} t\n" for i in range(500)]
    lines[433] = "q1 Q0 broken 1\n"
    p = write(tmp_path, "r", "".join(lines).encode())
    with pytest.raises(InputError) as err:
        read_run(p, chunk_bytes=100)
    assert err.value.line == 434
    del lines[433]
    small = read_run(write(tmp_path, "r2", "".join(lines).encode()), chunk_bytes=64)
    big = read_run(tmp_path / "r2")
    assert small.docno.tolist() == big.docno.tolist()
    assert small.line.tolist() == big.line.tolist() == list(range(1, 500))


ids = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=0x2FF, blacklist_characters="#"), min_size=1, max_size=20)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(ids, ids, st.integers(-3, 5)), max_size=30, unique_by=lambda t: (t[0], t[1])))
def test_qrels_round_trip(tmp_path_factory, rows):
    p = tmp_path_factory.mktemp("q") / "qrels"
    write_qrels(p, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    q = read_qrels(p)
    assert [x.decode() for x in q.qid.tolist()] == [r[0] for r in rows]
    assert [x.decode() for x in q.docno.tolist()] == [r[1] for r in rows]
    assert q.rel.tolist() == [r[2] for r in rows]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(ids, ids, st.floats(allow_nan=False, allow_infinity=False)), max_size=30,
                unique_by=lambda t: (t[0], t[1])))
def test_run_round_trip_exact_scores(tmp_path_factory, rows):
    p = tmp_path_factory.mktemp("r") / "run"
    write_run(p, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], "tag")
    r = read_run(p)
    assert r.score.tolist() == [r_[2] for r_ in rows]
    assert [x.decode() for x in r.docno.tolist()] == [r_[1] for r_ in rows]


def test_first_tag_only(tmp_path):
    p = write(tmp_path, "r", b"1 Q0 d1 1 2.5 sysA\n1 Q0 d2 2 1 sysB\n")
    r = read_run(p, all_tags=False)
    assert r.tag == "sysA" and r.tags == ("sysA",)
    assert read_run(p).tags == ("sysA", "sysB")
