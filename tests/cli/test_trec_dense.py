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
