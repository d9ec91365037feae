"""One digit rule for numbers in qrels and runs: ASCII digits only, integers
within 64 bits, finite floats, on the fast path and on the error path. Python's int() took
"99999999999999999999" and "٣", so the error path found nothing and blamed the last line;
"1_000" (Python's number syntax, not trec_eval's: atoi reads 1) is refused with file:line."""

from __future__ import annotations

import pytest

from workbench.errors import InputError
from workbench.formats.columns import ascii_float, ascii_int
from workbench.formats.trec import read_qrels, read_run

GOOD = "q1 0 d{} 1\n"


@pytest.mark.parametrize("grade", ["99999999999999999999", "٣", "1_000", "1_0", "９", "+-1", "0x1"])
@pytest.mark.parametrize("chunk", [None, 16])
def test_a_bad_grade_names_its_own_line_and_value(tmp_path, grade, chunk):
    p = tmp_path / "qrels"
    p.write_text(GOOD.format(1) + f"q1 0 d2 {grade}\n" + "".join(GOOD.format(i) for i in range(3, 6)),
                 encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_qrels(p, chunk_bytes=chunk)
    assert f"{p}:2:" in str(info.value) and repr(grade) in str(info.value)


@pytest.mark.parametrize("column, line", [(4, "q1 Q0 d2 2 1_000 r"), (4, "q1 Q0 d2 2 1e999 r"),
                                          (3, "q1 Q0 d2 ٢ 1.0 r"), (3, "q1 Q0 d2 1_0 1.0 r")])
def test_a_bad_score_or_rank_names_its_line(tmp_path, column, line):
    p = tmp_path / "run"
    p.write_text("q1 Q0 d1 1 2.5 r\n" + line + "\nq1 Q0 d3 3 0.5 r\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"{p}:2: (score|rank)"):
        read_run(p, keep_rank=True)


def test_ordinary_numbers_still_read(tmp_path):
    p = tmp_path / "run"
    p.write_text("q1 Q0 d1 1 -1.5e-05 r\nq1 Q0 d2 0002 +3 r\nq1 Q0 d3 9223372036854775807 .5 r\n")
    run = read_run(p, keep_rank=True)
    assert sorted(run.score.tolist()) == [-1.5e-05, 0.5, 3.0]
    q = tmp_path / "qrels"
    q.write_text("q1 0 d1 -1\nq1 0 d2 +2\nq1 0 d3 0000000000000000000003\n")
    assert read_qrels(q).rel.tolist() == [-1, 2, 3]


def test_the_rule_itself():
    assert ascii_int(b"-12") == -12 and ascii_float(b"1.") == 1.0 and ascii_float(b"-.5e3") == -500.0
    for bad in (b"1_0", "٣".encode(), b"9223372036854775808", b"", b"1.5"):
        with pytest.raises(ValueError):
            ascii_int(bad)
    for bad in (b"1_0", b"inf", b"nan", b"1e999", b"0x1p3", b"."):
        with pytest.raises(ValueError):
            ascii_float(bad)
