"""Re-check `workbench eval` against trec_eval binaries built from source.

    .venv/bin/python bench/trec_eval_check.py --te10 PATH/trec_eval --te9 PATH/trec_eval [--record]

Builds, seeded, the dense-score case of tests/data/trec_eval_dense (50 queries, scores
written with 16 digits as neural rankers write them, many pairs that differ only beyond
float32, exact ties, graded qrels with negative grades), and the byte-for-byte cases of
tests/data/trec_eval_bytes; runs each trec_eval and `workbench eval --format trec` with
`--compat 10` and `--compat 9` and prints every line that differs. --record writes the
inputs and trec_eval's outputs into tests/data (what the tests then compare against
without any trec_eval).

trec_eval: `git clone https://github.com/usnistgov/trec_eval; git checkout v10.0; make`
(and v9.0.8 for trec_eval 9).
"""

from __future__ import annotations

import argparse
import difflib
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DENSE = ROOT / "tests" / "data" / "trec_eval_dense"
BYTES = ROOT / "tests" / "data" / "trec_eval_bytes"


def dense_case(seed: int = 24) -> tuple[str, str]:
    """(qrels text, run text): per query 60 documents; about one score in six is a second
    double within a float32 of another one (same float32, different double), in either
    docno order, and a few are exact double ties."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(301, 351):
        docs = [f"D{q}-{i:03d}" for i in rng.permutation(60)]
        score = rng.random(60)
        for i in range(0, 60, 6):  # a neighbour within float32's precision
            j = i + 1
            f = np.float32(score[i])
            lo, hi = np.nextafter(f, np.float32(-1)), np.nextafter(f, np.float32(2))
            # a double strictly between float32 neighbours' midpoints rounds to f
            width = min(float(f) - float(lo), float(hi) - float(f)) / 2
            score[j] = float(f) + rng.uniform(-0.9, 0.9) * width
            score[i] = float(f) + rng.uniform(-0.9, 0.9) * width
            assert np.float32(score[j]) == np.float32(score[i]) and score[i] != score[j]
        score[58] = score[57]  # an exact tie: docno descending
        for d, s in zip(docs, score):
            run.append(f"{q} Q0 {d} 0 {float(s)!r} dense")
        for d in docs[:40]:
            qrels.append(f"{q} 0 {d} {int(rng.choice([0, 0, 0, 1, 1, 2, 3, -1]))}")
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def bytes_cases() -> dict[str, str]:
    """The issue's byte-for-byte cases as files: P@10 over 16 queries whose mean prints
    0.3687 when summed in order; the neural-score recip_rank example."""
    p10 = [.2, .2, 0, 0, .3, .3, .2, .2, .4, .5, .3, .8, 1, 1, .3, .2]
    qrels, run = [], []
    for q, p in enumerate(p10, start=1):
        rel = round(p * 10)
        for i in range(10):
            qrels.append(f"q{q:02d} 0 d{i} {1 if i < rel else 0}")
            run.append(f"q{q:02d} Q0 d{i} {i + 1} {10 - i} p10")
    # set_F.2 over one relevant document retrieved first of 94: F = 3·(1/94)·1 / (2/94 + 1)
    # = 0.03125 exactly (prints 0.0312); with β = √2 squared back, 0.03125000000000001 (0.0313)
    f2_run = "".join(f"q1 Q0 e{i:02d} {i + 1} {100 - i} f2\n" for i in range(94))
    return {
        "p10.qrels": "\n".join(qrels) + "\n", "p10.run": "\n".join(run) + "\n",
        "f2.qrels": "q1 0 e00 1\nq1 0 e01 0\n", "f2.run": f2_run,
        "neural.qrels": "348 0 D7800 0\n348 0 FT9-19747 1\n",
        "neural.run": "348 Q0 D7800 1 0.6336937199542163 x\n348 Q0 FT9-19747 2 0.6336936930397126 x\n",
    }


# (expected output name, qrels, run, trec_eval options); each runs under both versions
CASES = [
    ("dense.aq", DENSE, "qrels", "run", ["-q", "-m", "all_trec"]),
    ("p10.a", BYTES, "p10.qrels", "p10.run", ["-m", "P.10", "-m", "map", "-m", "set_F.2"]),
    ("f2.a", BYTES, "f2.qrels", "f2.run", ["-m", "set_F.2"]),
    ("neural.aq", BYTES, "neural.qrels", "neural.run", ["-q", "-m", "recip_rank", "-m", "P.1"]),
]


def write_inputs() -> None:
    DENSE.mkdir(parents=True, exist_ok=True)
    BYTES.mkdir(parents=True, exist_ok=True)
    qrels, run = dense_case()
    (DENSE / "qrels").write_text(qrels)
    (DENSE / "run").write_text(run)
    for name, text in bytes_cases().items():
        (BYTES / name).write_text(text)


def workbench_eval(folder: Path, qrels: str, run: str, options: list[str], compat: int) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "workbench", "eval", str(folder / qrels), str(folder / run),
         "--compat", str(compat), *options], capture_output=True, text=True, cwd=ROOT)
    return out.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--te10", required=True)
    ap.add_argument("--te9", required=True)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    if args.record:
        write_inputs()
    differences = 0
    for name, folder, qrels, run, options in CASES:
        for compat, binary in ((10, args.te10), (9, args.te9)):
            te = subprocess.run([binary, *options, str(folder / qrels), str(folder / run)],
                                capture_output=True, text=True, check=True).stdout
            if args.record:
                (folder / f"{name}.te{compat}").write_text(te)
            # measures trec_eval 9 lacks are left out by --compat 9's all_trec
            wb = workbench_eval(folder, qrels, run, options, compat)
            diff = list(difflib.unified_diff(te.splitlines(), wb.splitlines(), "trec_eval", "workbench",
                                             lineterm="", n=0))
            differences += len([d for d in diff if d[:1] in "+-" and d[:3] not in ("+++", "---")])
            print(f"{name} compat {compat}: {len(te.splitlines())} lines, "
                  f"{'identical' if not diff else 'DIFFERENT'}")
            for line in diff[:40]:
                print("   ", line)
    return 1 if differences else 0


if __name__ == "__main__":
    raise SystemExit(main())
