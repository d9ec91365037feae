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


# ids as workbench.names allows them: no whitespace (U+00A0, U+0085 too), no control characters
ids = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=0x2FF, blacklist_characters="#",
                                     blacklist_categories=("Cc", "Zs")), min_size=1, max_size=20)


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


def test_writers_given_a_path_write_through_a_symlink(tmp_path):
    """The TREC writers share export's atomic_output: the link stays, its target is
    replaced, no temporary file is left."""
    target, link = tmp_path / "real.qrels", tmp_path / "link.qrels"
    target.write_text("old\n")
    link.symlink_to(target.name)
    write_qrels(link, ["q1"], ["d1"], [2])
    write_run(link, ["q1"], ["d1"], [0.5], "t")
    assert link.is_symlink() and target.read_text() == "q1 Q0 d1 1 0.5 t\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.qrels", "real.qrels"]


def test_first_and_last_tags_only(tmp_path):
    p = write(tmp_path, "r", b"1 Q0 d1 1 2.5 sysA\n1 Q0 d2 2 1 sysB\n1 Q0 d3 3 0 sysC\n")
    r = read_run(p, all_tags=False)
    assert r.tag == "sysA" and r.tags == ("sysA", "sysC") and r.last_tag == "sysC"
    assert read_run(p).tags == ("sysA", "sysB", "sysC")


# ----------------------------------------------------------------------------- fast paths
# The readers parse numbers with array arithmetic where they can (columns._fast_decimals) and
# fall back to numpy's conversion; either way a value is exactly float(token) / int(token).

from workbench.formats import columns  # noqa: E402

digit_strings = st.text(alphabet="0123456789", max_size=20)
decimal_tokens = st.one_of(
    st.builds(lambda s, i, d, f: s + i + d + f, st.sampled_from(["", "-", "+"]), digit_strings,
              st.sampled_from([".", ""]), digit_strings),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(lambda x: f"{x:.6f}"),
    st.integers(-10**20, 10**20).map(str),
)


def _valid_float(tok: str) -> bool:
    try:
        return np.isfinite(float(tok))
    except ValueError:
        return False


def _run_with_scores(tmp_path, name, scores, qid="q"):
    data = "".join(f"{qid} Q0 d{i} {i + 1} {s} tag\n" for i, s in enumerate(scores))
    return write(tmp_path, name, data.encode())


def _bits(a):
    return np.asarray(a, dtype=np.float64).view(np.int64).tolist()


@settings(max_examples=150, deadline=None)
@given(st.lists(decimal_tokens.filter(_valid_float), min_size=1, max_size=40), st.sampled_from([48, 1 << 18]))
def test_scores_are_exactly_python_floats(tmp_path_factory, tokens, chunk):
    p = _run_with_scores(tmp_path_factory.mktemp("r"), "run", tokens)
    r = read_run(p, chunk_bytes=chunk)
    assert _bits(r.score) == _bits([float(t) for t in tokens])  # bit for bit, -0.0 too


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(decimal_tokens.filter(bool), st.text(alphabet="0123456789.-+eE_x", min_size=1, max_size=20)),
                min_size=1, max_size=20))
def test_fast_decimals_agree_with_float_or_decline(tokens):
    """ok=True only with float()'s exact value; the plain form with <= 15 digits is always ok."""
    data = "".join(f"{t}\n" for t in tokens).encode()
    buf = columns._padded(data)
    starts, ends, _ = columns._tokenise(buf, len(data), "x", 0, 1, "number")
    values, ok = columns._fast_decimals(buf, starts[:, 0], ends[:, 0], True)
    for tok, v, fast in zip(tokens, values.tolist(), ok.tolist()):
        body = tok[1:] if tok[:1] in "+-" else tok
        plain = (body.replace(".", "", 1).isdigit() and body.count(".") <= 1
                 and body.isascii() and len(body.replace(".", "")) <= 15)  # (m < 2**53)
        if fast:
            assert _bits([v]) == _bits([float(tok)]), tok
        assert fast or not plain, tok


@pytest.mark.parametrize("tok", ["5", "5.", ".5", "-.5", "+5", "-0", "-0.0", "007.50", "0.000001",
                                 "123456789012345", "9007199254740992", "9007199254740.99",
                                 "99.9999999999999", "-1.5", "4.030927323372037", "-25.42301210811698",
                                 "0.000000000000001"])
def test_fast_path_covers_plain_decimals(tok):
    data = f"{tok}\n".encode()
    buf = columns._padded(data)
    starts, ends, _ = columns._tokenise(buf, len(data), "x", 0, 1, "number")
    values, ok = columns._fast_decimals(buf, starts[:, 0], ends[:, 0], True)
    assert ok.tolist() == [True] and _bits(values) == _bits([float(tok)])


@pytest.mark.parametrize("tok", ["1e5", "1.5E-3", "1_0", "9007199254740993", "12345678901234567",
                                 "0.00000000000000001", "0.12345678901234567", "98765432.10987654",
                                 "1.2.3", ".", "-", "+", "--1", "5-", "inf", "1.2.3.4.5.6.7.8.9"])
def test_fast_path_declines_other_forms(tok):
    data = f"{tok}\n".encode()
    buf = columns._padded(data)
    starts, ends, _ = columns._tokenise(buf, len(data), "x", 0, 1, "number")
    _, ok = columns._fast_decimals(buf, starts[:, 0], ends[:, 0], True)
    assert ok.tolist() == [False]


def test_fallback_scores_mixed_with_fast_ones(tmp_path):
    # ("1_0" is refused: Python's syntax, not trec_eval's; tests/formats/test_digit_rule.py)
    tokens = ["1.5", "1e5", "2.25", "-3", "12345678901234567890", "1.5E-3", "0.1"]
    r = read_run(_run_with_scores(tmp_path, "r", tokens))
    assert _bits(r.score) == _bits([float(t) for t in tokens])


@pytest.mark.parametrize("bad, found", [("1.2.3", "'1.2.3'"), (".", "'.'"), ("-", "'-'"), ("1e400", "'1e400'"),
                                        ("-inf", "'-inf'"), ("5..", "'5..'")])
def test_bad_score_among_fast_ones_names_its_line(tmp_path, bad, found):
    tokens = ["1.5"] * 30 + [bad] + ["2.5"] * 30
    p = _run_with_scores(tmp_path, "r", tokens)
    for chunk in (64, 1 << 20):
        with pytest.raises(InputError) as err:
            read_run(p, chunk_bytes=chunk)
        assert err.value.line == 31
        assert err.value.reason == f"score (column 5) must be a finite number, found {found}"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.integers(-10**18, 10**18), st.integers(-9, 9)), min_size=1, max_size=30),
       st.booleans())
def test_integers_exact(tmp_path_factory, values, plus):
    d = tmp_path_factory.mktemp("q")
    text = [f"+{v}" if plus and v >= 0 else str(v) for v in values]
    q = read_qrels(write(d, "qrels", "".join(f"q 0 d{i} {t}\n" for i, t in enumerate(text)).encode()))
    assert q.rel.tolist() == values
    r = read_run(write(d, "run", "".join(f"q Q0 d{i} {t} 1.0 x\n" for i, t in enumerate(text)).encode()),
                 keep_rank=True)
    assert r.rank.tolist() == values


@pytest.mark.parametrize("bad", ["1.0", "x", "1e3", "99999999999999999999", "-", "3-"])
def test_bad_integers_keep_their_messages(tmp_path, bad):
    p = write(tmp_path, "q", ("".join(f"q 0 d{i} 1\n" for i in range(20)) + f"q 0 e {bad}\n").encode())
    with pytest.raises(InputError) as err:
        read_qrels(p)
    assert err.value.line == 21
    assert err.value.reason == f"relevance (column 4) must be an integer, found {bad!r}"


@pytest.mark.parametrize("chunk", [7, 40, 300, 1 << 20])
def test_widths_differ_between_chunks(tmp_path, chunk):
    """Chunks with short and long ids: one S array as wide as the longest, same bytes."""
    qids = ["1"] * 20 + ["12345678901234567"] * 5 + ["77"] * 20
    docs = [f"d{i}" + "x" * (i % 3) * (40 if i == 30 else 1) for i in range(len(qids))]
    p = write(tmp_path, "r", "".join(f"{q} Q0 {d} 1 0.5 t\n" for q, d in zip(qids, docs)).encode())
    r = read_run(p, chunk_bytes=chunk)
    assert r.qid.dtype == np.dtype("S17") and r.docno.dtype == np.dtype(f"S{max(map(len, docs))}")
    assert r.qid.tolist() == [q.encode() for q in qids]
    assert r.docno.tolist() == [d.encode() for d in docs]
    assert r.line.tolist() == list(range(1, len(qids) + 1))


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
@pytest.mark.parametrize("sep", [b" ", b"\t", b"  "])
def test_layouts_read_alike(tmp_path, eol, sep):
    rows = [(b"q1", b"d1", b"3.25"), (b"q1", b"d2", b"-1"), (b"q2", b"d1", b"7.")]
    data = b"".join(sep.join([q, b"Q0", d, b"1", s, b"t"]) + eol for q, d, s in rows)
    for chunk in (5, 1 << 20):
        r = read_run(write(tmp_path, "r", data), chunk_bytes=chunk)
        assert r.docno.tolist() == [b"d1", b"d2", b"d1"] and r.score.tolist() == [3.25, -1.0, 7.0]
        assert r.line.tolist() == [1, 2, 3]


def test_junk_found_with_tabs_present(tmp_path):
    """The junk check is skipped only when every control byte is a newline."""
    p = write(tmp_path, "q", b"1\t0\ta\t1\n1 0 b\x01 1\n")
    with pytest.raises(InputError) as err:
        read_qrels(p)
    assert err.value.line == 2 and "binary data (byte 0x01)" in err.value.reason


@pytest.mark.parametrize("chunk", [1, 2, 3, 4, 64])
def test_bom_with_tiny_chunks(tmp_path, chunk):
    q = read_qrels(write(tmp_path, "q", b"\xef\xbb\xbf1 0 a 2\n1 0 b 0\n"), chunk_bytes=chunk)
    assert q.qid.tolist() == [b"1", b"1"] and q.rel.tolist() == [2, 0]


@pytest.mark.parametrize("all_tags", [True, False])
def test_last_tag_is_the_last_lines(tmp_path, all_tags):
    p = tmp_path / "r"
    p.write_text("".join(f"1 Q0 d{i} {i} {1 / (i + 1)} {'a' if i < 300 else 'b'}\n" for i in range(400))
                 + "2 Q0 x 1 0.5 c\n# trailing comment\n")
    for chunk in (64, 1 << 20):
        r = read_run(p, all_tags=all_tags, chunk_bytes=chunk)
        assert r.tag == "a" and r.last_tag == "c"


@pytest.mark.parametrize("chunk", [40, 1 << 20])
def test_run_columns_after_the_tag_are_ignored_as_trec_eval_does(tmp_path, chunk):
    # trec_eval's get_trec_results.c: "Any field following run_id is ignored."
    plain = b"1 Q0 a 1 2.5 t\n1 Q0 b 2 1.5 t\n2 Q0 c 1 0.5 t\n"
    extra = b"1 Q0 a 1 2.5 t x y\n1 Q0 b 2 1.5 t\n2 Q0 c 1 0.5 t 7\n"
    p, q = write(tmp_path, "plain", plain), write(tmp_path, "extra", extra)
    a, b = read_run(p, chunk_bytes=chunk), read_run(q, chunk_bytes=chunk)
    assert a.docno.tolist() == b.docno.tolist() and a.score.tolist() == b.score.tolist()
    assert b.line.tolist() == [1, 2, 3] and b.tags == ("t",)
    with pytest.raises(InputError) as err:  # too few columns stay an error
        read_run(write(tmp_path, "short", b"1 Q0 a 1 2.5 t x\n1 Q0 b 2 1.5\n"), chunk_bytes=chunk)
    assert (err.value.line, err.value.reason) == (2, "expected 6 columns (qid iter docno rank score tag), found 5")
    with pytest.raises(InputError) as err:  # qrels keep exactly 4, as in trec_eval
        read_qrels(write(tmp_path, "q", b"1 0 a 1 extra\n"))
    assert err.value.line == 1
