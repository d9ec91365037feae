"""A line with no newline is not read whole: a 160 MB run line took 1 GB of
memory before "expected 6 columns". Reading stops 1 MiB into a line, naming file:line."""

from __future__ import annotations

import tracemalloc

import pytest

from workbench.errors import InputError
from workbench.formats.columns import MAX_LINE
from workbench.formats.trec import read_qrels, read_run


def _long_file(path, head: bytes, size: int):
    with open(path, "wb") as out:
        out.write(head)
        chunk = b"x" * (1 << 20)
        for _ in range(size >> 20):
            out.write(chunk)
    return str(path)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_run_line_without_a_newline_stops_at_1_mib_with_its_line(tmp_path, threads):
    path = _long_file(tmp_path / "huge.run", b"q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n", 24 << 20)
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as info:
            read_run(path, threads=threads)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(info.value) == (
        f"{path}:3: line longer than 1 MiB without a newline: expected "
        "qid iter docno rank score tag; stopped reading there")
    assert peak < 8 * MAX_LINE, peak  # not the 24 MB of the line


def test_a_qrels_line_too_long_and_the_lines_before_it_are_checked_first(tmp_path):
    path = _long_file(tmp_path / "huge.qrels", b"q1 0 d1 1\n" + b"x" * 10, 3 << 20)
    with pytest.raises(InputError, match=r"huge\.qrels:2: line longer than 1 MiB"):
        read_qrels(path)
    bad_first = _long_file(tmp_path / "bad.qrels", b"q1 0 d1\n", 3 << 20)
    with pytest.raises(InputError, match=r"bad\.qrels:1: "):  # the short line's own error
        read_qrels(bad_first)


def test_a_line_just_under_the_cap_is_read(tmp_path):
    path = tmp_path / "wide.qrels"
    path.write_bytes(b"q1 0 " + b"d" * (MAX_LINE - 16) + b" 1")  # no final newline either
    assert read_qrels(str(path)).rel.tolist() == [1]


def test_eval_names_the_file_and_line(tmp_path, capsys):
    from workbench.cli import main

    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\n")
    run = _long_file(tmp_path / "huge.run", b"q1 Q0 d1 1 2.0 t\n", 4 << 20)
    assert main(["eval", str(qrels), run]) == 1
    assert f"{run}:2: line longer than 1 MiB" in capsys.readouterr().err


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("chunk", [1 << 12, 1 << 16, MAX_LINE, 3 << 20, 8 << 20])
def test_the_cap_holds_whatever_the_chunk_size(tmp_path, chunk, threads):
    """A line over 1 MiB that ends in a newline was refused in chunks under
    1 MiB (the carried part outgrew the cap) and read whole in bigger ones (it never was
    carried). Every chunking now refuses it at its own line, after the lines before it,
    and reads a line of exactly 1 MiB. (The long line's columns after the tag, ignored as
    trec_eval ignores them, are short tokens: read whole, it was a valid line.)"""
    head = b"".join(b"q1 Q0 d%d %d 1.0 t\n" % (i, i) for i in range(6000))  # many chunks
    start = b"q1 Q0 dz 0 0.5 t"
    over = start + b" x" * ((MAX_LINE + 1 - len(start)) // 2) + b" " * ((MAX_LINE + 1 - len(start)) % 2)
    assert len(over) == MAX_LINE + 1
    path = tmp_path / "over.run"
    path.write_bytes(head + over + b"\nq2 Q0 d1 1 1.0 t\n")
    with pytest.raises(InputError) as info:
        read_run(str(path), chunk_bytes=chunk, threads=threads)
    assert str(info.value) == (
        f"{path}:6001: line longer than 1 MiB without a newline: expected "
        "qid iter docno rank score tag; stopped reading there")
    fits = tmp_path / "fits.run"
    fits.write_bytes(head + over[:-1] + b"\nq2 Q0 d1 1 1.0 t\n")  # MAX_LINE bytes: read
    run = read_run(str(fits), chunk_bytes=chunk, threads=threads)
    assert len(run) == 6002 and run.docno[6000] == b"dz" and run.score[6000] == 0.5
    # an earlier line's own error comes first, also in the chunk that holds the long line
    broken = tmp_path / "broken.run"
    broken.write_bytes(head + b"q1 Q0 d3 1 x t\n" + over + b"\n")
    with pytest.raises(InputError, match=r"broken\.run:6001: score"):
        read_run(str(broken), chunk_bytes=chunk, threads=threads)


def test_a_piece_of_the_file_is_capped_too(tmp_path):
    """The pieces of a split `eval` (byte ranges) follow the same cap."""
    head = b"q1 Q0 d1 1 2.0 t\n"
    path = tmp_path / "piece.run"
    path.write_bytes(head + b"q2 Q0 " + b"d" * (2 * MAX_LINE) + b" 1 1.0 t\nq3 Q0 d1 1 1.0 t\n")
    size = path.stat().st_size
    with pytest.raises(InputError, match=r"piece\.run:1: line longer than 1 MiB"):
        read_run(str(path), threads=1, chunk_bytes=4 * MAX_LINE,
                 byte_range=(len(head), size), line_numbers=False)
