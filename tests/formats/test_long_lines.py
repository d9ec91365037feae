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
