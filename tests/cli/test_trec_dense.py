"""`workbench eval` against trec_eval 10 and 9 built from source, byte for byte.

The expected files were written by trec_eval v10.0 and v9.0.8 (bench/trec_eval_check.py
--record; tests/data/trec_eval_dense/README.md says how). trec_eval 10 compares scores as
doubles, trec_eval 9 as floats: `--compat 10` (the default) and `--compat 9` follow each.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.cli import main
from workbench.metrics.ranking import trec_order

DATA = Path(__file__).resolve().parents[1] / "data"
DENSE, BYTES = DATA / "trec_eval_dense", DATA / "trec_eval_bytes"

CASES = [  # as bench/trec_eval_check.py's CASES
    ("dense.aq", DENSE, "qrels", "run", ["-q", "-m", "all_trec"]),
    ("p10.a", BYTES, "p10.qrels", "p10.run", ["-m", "P.10", "-m", "map", "-m", "set_F.2"]),
    ("f2.a", BYTES, "f2.qrels", "f2.run", ["-m", "set_F.2"]),
    ("neural.aq", BYTES, "neural.qrels", "neural.run", ["-q", "-m", "recip_rank", "-m", "P.1"]),
]


@pytest.mark.parametrize("compat", [10, 9])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_output_is_trec_evals_byte_for_byte(case, compat, capsys):
    name, folder, qrels, run, options = case
    args = ["eval", str(folder / qrels), str(folder / run), *options, "--format", "trec"]
    if compat != 10:
        args += ["--compat", str(compat)]
    assert main(args) == 0
    out, _ = capsys.readouterr()
    assert out == (folder / f"{name}.te{compat}").read_text()


def test_the_dense_case_tells_the_two_orders_apart():
    """The data is worth its bytes: most queries' values differ between 10 and 9."""
    te10 = [line for line in (DENSE / "dense.aq.te10").read_text().splitlines() if line.startswith("map ")]
    te9 = [line for line in (DENSE / "dense.aq.te9").read_text().splitlines() if line.startswith("map ")]
    assert len(te10) == len(te9) == 51
    assert sum(a != b for a, b in zip(te10, te9)) >= 10


def test_trec_order_compares_doubles_or_floats():
    a, b = 0.6336937199542163, 0.6336936930397126  # one float32, two doubles
    assert np.float32(a) == np.float32(b) and a > b
    docs = np.array([b"D7800", b"FT9-19747"])
    q = np.zeros(2, dtype=np.int64)
    # doubles: the higher score first; floats: a tie, docno descending
    assert trec_order(q, [a, b], docs).tolist() == [0, 1]
    assert trec_order(q, [a, b], docs, compat=9).tolist() == [1, 0]
    assert trec_order(q, [b, a], docs).tolist() == [1, 0]
    # exact ties fall to docno descending under both; -0.0 ties +0.0
    assert trec_order(q, [0.0, -0.0], docs).tolist() == [1, 0]
    assert trec_order(q, [0.0, -0.0], docs, compat=9).tolist() == [1, 0]


@pytest.mark.parametrize("compat", [10, 9])
def test_sorted_and_unsorted_inputs_give_one_order(compat):
    """The fast path (rows already in order) and the sort agree, at either precision."""
    rng = np.random.default_rng(7)
    n = 400
    q = np.repeat(np.arange(8), n // 8)
    base = rng.random(n)
    score = np.where(rng.random(n) < 0.3, base + 1e-12, base)  # float32 collisions
    score[::17] = score[1::17][: score[::17].size]  # exact ties
    docs = np.array([f"d{i:04d}".encode() for i in rng.permutation(n)])
    order = trec_order(q, score, docs, compat=compat)
    again = trec_order(q[order], score[order], docs[order], compat=compat)
    assert again.tolist() == list(range(n))  # already in order: stays
    shuffled = rng.permutation(n)
    assert (shuffled[trec_order(q[shuffled], score[shuffled], docs[shuffled], compat=compat)]
            .tolist() == order.tolist())
    precision = np.float64 if compat == 10 else np.float32
    for g in range(8):  # by hand: score descending at that precision, then docno descending
        rows = np.flatnonzero(q == g)
        want = sorted(rows, key=lambda i: (-precision(score[i]), [-c for c in docs[i]] + [1]))
        assert order[q[order] == g].tolist() == [int(i) for i in want]


# trec_eval 10's outputs on these inputs, where its value comes from a defect (docs/measures.md):
# utility.2,-1,3,1 -N 100 -c prints 102 for query 2 (a stand-in one-document ranking);
# -J with nothing judged retrieved prints -nan for iprec_at_recall and 11pt_avg;
# -Z without a line for a query ends in a segmentation fault.
def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_defects_give_the_defined_values(tmp_path, capsys):
    qrels = _write(tmp_path, "q", "1 0 a 1\n2 0 b 1\n2 0 c 1\n2 0 e 0\n")
    run = _write(tmp_path, "r", "1 Q0 a 1 1.0 x\n")
    assert main(["eval", qrels, run, "-q", "-c", "-N", "100", "-m", "utility.2,-1,3,1"]) == 0
    out, _ = capsys.readouterr()
    # query 1: a = 1, d = 100 + 1 - 1 - 1; query 2 retrieved nothing: c = 2, d = 100 - 2
    one, two = 2 * 1 + 1 * (100 + 1 - 1 - 1), 3 * 2 + 1 * (100 - 2)
    assert out.splitlines() == [f"utility_2,-1,3,1      \t1\t{one:.4f}",
                                f"utility_2,-1,3,1      \t2\t{two:.4f}",
                                f"utility_2,-1,3,1      \tall\t{(one + two) / 2:.4f}"]

    run_j = _write(tmp_path, "rj", "1 Q0 a 1 1.0 x\n2 Q0 x 1 1 x\n2 Q0 y 2 0.5 x\n")
    assert main(["eval", qrels, run_j, "-q", "-J", "-m", "11pt_avg"]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines() == ["11pt_avg              \t1\t1.0000", "11pt_avg              \t2\t0.0000",
                                "11pt_avg              \tall\t0.5000"]

    zfile = _write(tmp_path, "z", "1 P_1 0.5 0.25\n")
    assert main(["eval", qrels, run_j, "-q", "-m", "P.1", "-Z", zfile]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines() == ["ZP_1                   \t1\t2.0000", "ZP_1                   \t2\t-1000000.0000",
                                f"ZP_1                   \tall\t{(2.0 - 1000000) / 2:.4f}"]
