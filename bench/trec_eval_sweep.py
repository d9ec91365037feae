"""Random differential sweep of `workbench eval` against trec_eval binaries built from source.

    .venv/bin/python bench/trec_eval_sweep.py --te10 PATH --te908 PATH [--te907 PATH] [--seeds 6]

Per seed, two small collections (graded qrels with negative grades; scores with ties, or
16 digits with pairs within a float of each other on odd seeds; one with a qrels query the
run lacks and a run query the qrels lack), each under the options "", -c, -l2, -M5, -J,
-N 40, -c -J, -c -l2, with `-m all_trec` and with every family given parameters (one list
per family: trec_eval reads only the first). Each trec_eval line that `workbench eval -q`
does not print the same is counted by (trec_eval, --compat, measure, options); the
counts are what docs/measures.md lists as differences.

trec_eval: `git clone https://github.com/usnistgov/trec_eval`; `git checkout v10.0` (10),
`trec_eval-9.0.8` (the 9.0.8 release, scores as doubles), `v9.0.8` (9.0.7's code, scores as
floats); `make` in each.
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PARAMS = ["-m", "P.3,7", "-m", "ndcg.1=2,2=5", "-m", "relstring.3", "-m", "utility.2,-1,1,0",
          "-m", "set_F.0.5", "-m", "success.2", "-m", "Rprec_mult.0.5", "-m", "11pt_avg.0.3,0.7",
          "-m", "iprec_at_recall.0.25", "-m", "recall.4", "-m", "map_cut.6", "-m", "G.1=1,2=3"]
# trec_eval 10 only; dcg and ideal_dcg each alone (with ndcg's gains trec_eval aborts)
TEN = [["-m", "rbp.p=0.5", "-m", "rbp_resid.p=0.5", "-m", "unj.3"], ["-m", "dcg.2=4"],
       ["-m", "ideal_dcg"]]
OPTIONS = [[], ["-c"], ["-l2"], ["-M5"], ["-J"], ["-N", "40"], ["-c", "-J"], ["-c", "-l2"]]


def write_case(folder: Path, seed: int, missing: bool) -> None:
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for qi in range(int(rng.integers(3, 9))):
        qid = f"q{qi}"
        docs = [f"d{i}" for i in range(30)]
        for d in rng.choice(docs, int(rng.integers(1, 20)), replace=False):
            qrels.append(f"{qid} 0 {d} {int(rng.choice([-1, 0, 0, 0, 1, 1, 2, 3]))}")
        if missing and qi == 0:
            continue
        n = int(rng.integers(1, 25))
        score = np.round(rng.random(n) * 4, 1)  # ties
        if seed % 2:  # 16 digits, neighbours within a float of each other
            score = rng.random(n)
            score[1::2] = score[0::2][:score[1::2].size] + rng.uniform(-3e-8, 3e-8, score[1::2].size)
        for d, s in zip(rng.choice(docs, n, replace=False), score):
            run.append(f"{qid} Q0 {d} 0 {float(s)!r} run{seed}")
    if missing:
        run.append(f"zz Q0 d1 0 1.0 run{seed}")
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")


def _lines(cmd) -> tuple[int, list[str]]:
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    return p.returncode, [" ".join(line.split()) for line in p.stdout.splitlines()]


def _family(name: str) -> str:
    return name.rsplit("_", 1)[0] if name[-1:].isdigit() else name


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--te10", required=True)
    ap.add_argument("--te908", required=True)
    ap.add_argument("--te907")
    ap.add_argument("--seeds", type=int, default=6)
    args = ap.parse_args()
    # (version, binary, the --compat settings compared with it)
    binaries = [("10", args.te10, ["10"]), ("9.0.8", args.te908, ["9", "10"])]
    if args.te907:
        binaries.append(("9.0.7", args.te907, ["9"]))
    lines = collections.Counter()
    diffs: collections.Counter = collections.Counter()
    example: dict = {}
    refused = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        q, r = str(folder / "qrels"), str(folder / "run")
        for seed in range(args.seeds):
            for missing in (False, True):
                write_case(folder, seed, missing)
                for opts in OPTIONS:
                    for version, binary, compats in binaries:
                        groups = [["-m", "all_trec"], PARAMS] + (TEN if version == "10" else [])
                        for ms in groups:
                            code, te = _lines([binary, "-q", *opts, *ms, q, r])
                            if code != 0:
                                refused[(version, " ".join(opts))] += 1
                                continue
                            for compat in compats:
                                _, wb = _lines([sys.executable, "-m", "workbench", "eval", "--compat",
                                                compat, "-q", *opts, *ms, q, r])
                                lines[(version, compat)] += len(te)
                                for line in collections.Counter(te) - collections.Counter(wb):
                                    key = (version, compat, _family(line.split()[0]), " ".join(opts))
                                    diffs[key] += 1
                                    example.setdefault(key, line)
    for (version, compat), n in sorted(lines.items()):
        d = sum(v for k, v in diffs.items() if k[:2] == (version, compat))
        print(f"trec_eval {version} vs --compat {compat}: {n} lines, {d} differ")
    for key, n in sorted(diffs.items()):
        print(f"  {key}: {n} (e.g. trec_eval's {example[key]!r})")
    for (version, opts), n in sorted(refused.items()):
        print(f"trec_eval {version} {opts or '(no options)'}: exited non-zero {n} times")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
