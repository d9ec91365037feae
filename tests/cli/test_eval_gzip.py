"""`workbench eval` reads gzip-compressed runs and qrels (TREC distributes runs gzipped),
recognised by their first bytes whatever their names."""

from __future__ import annotations

import gzip
from pathlib import Path

from workbench.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval_quicktest"


def _eval(capsys, *args):
    code = main(["eval", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_gzipped_run_gives_trec_evals_output(capsys):
    # trec_eval's quicktest case: results.comment.test is distributed gzipped
    code, out, _ = _eval(capsys, DATA / "qrels.comment.test", DATA / "results.comment.test.gz")
    assert code == 0
    assert out == (DATA / "out.comment.test").read_text()


def test_gzipped_qrels_and_run_under_any_name(capsys, tmp_path):
    qrels = tmp_path / "qrels.txt"  # no .gz in the names
    run = tmp_path / "input.run"
    qrels.write_bytes(gzip.compress((DATA / "qrels.test").read_bytes()))
    run.write_bytes(gzip.compress((DATA / "results.test").read_bytes()))
    code, out, _ = _eval(capsys, qrels, run, "-m", "all_trec")
    assert code == 0
    assert out == (DATA / "out.test.a").read_text()
    # forced into pieces: a compressed file has no byte offsets, it is read whole
    code, out, _ = _eval(capsys, qrels, run, "-m", "all_trec", "-j", "2")
    assert code == 0
    assert out == (DATA / "out.test.a").read_text()


def test_a_truncated_gzip_file_is_bad_input(capsys, tmp_path):
    run = tmp_path / "run.gz"
    whole = gzip.compress((DATA / "results.test").read_bytes())
    run.write_bytes(whole[: len(whole) // 2])
    code, out, err = _eval(capsys, DATA / "qrels.test", run, "-m", "map")
    assert code == 1 and out == ""
    assert str(run) in err and "cannot read" in err
