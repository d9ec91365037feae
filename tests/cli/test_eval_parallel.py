"""`workbench eval` in worker processes (-j N) prints byte for byte what the serial path prints."""

from __future__ import annotations

import random

import pytest

from workbench.cli import main


def _write(tmp_path, nq=30, runs=3, seed=7):
    rng = random.Random(seed)
    qrels = []
    for q in range(1, nq + 1):
        for d in rng.sample(range(60), 25):
            qrels.append(f"{q} 0 d{d} {rng.choice([-1, 0, 0, 1, 2, 3])}")
    qp = tmp_path / "qrels"
    qp.write_text("\n".join(qrels) + "\n")
    paths = []
    for s in range(runs):
        lines = []
        # query 3 missing from every run (a warning), query 999 unknown to the qrels
        for q in [q for q in range(1, nq + 1) if q != 3] + [999]:
            for r, d in enumerate(rng.sample(range(80), 40), 1):
                score = rng.choice([1.0, 2.0, 0.5]) if s == 0 else round(rng.random(), 3)
                lines.append(f"{q} Q0 d{d} {r} {score} sys{s}")
        p = tmp_path / f"run{s}"
        p.write_text("\n".join(lines) + "\n")
        paths.append(p)
    return qp, paths


def _run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("extra", [
    ["-q", "--format", "trec"],
    ["-q", "-c", "-m", "official", "-m", "iprec_at_recall", "--format", "trec"],
    ["-q", "--bounds", "-m", "map", "-m", "ndcg_cut.5", "--format", "csv"],
    ["-q", "--ties", "input", "-M", "10", "-l", "2", "--format", "json"],
])
def test_processes_print_what_the_serial_path_prints(tmp_path, capsys, extra):
    qp, runs = _write(tmp_path)
    serial = _run(capsys, "eval", qp, *runs, *extra, "-j", "1")
    parallel = _run(capsys, "eval", qp, *runs, *extra, "-j", "2")
    assert serial[0] == 0
    assert len(serial[1].splitlines()) > 100
    assert ("missing from the run" in serial[2]) == ("-c" not in extra)
    assert parallel == serial


def test_processes_report_the_first_bad_run_in_order(tmp_path, capsys):
    qp, runs = _write(tmp_path, runs=3)
    bad = runs[1].read_text().splitlines()
    bad.insert(5, bad[2])  # a duplicate document on line 6
    runs[1].write_text("\n".join(bad) + "\n")
    runs[2].write_text("1 Q0 x 1 oops t\n")
    serial = _run(capsys, "eval", qp, *runs, "-j", "1")
    parallel = _run(capsys, "eval", qp, *runs, "-j", "2")
    assert serial[0] == 1
    assert f"{runs[1]}:6: duplicate document" in serial[2]
    assert parallel == serial
