"""A judge panel as a source (issue 34): 5 machines over 60 000 items, `score` of 100 runs
against `--source panel:P`, as a whole process. Target: <= 1.5 s.

    .venv/bin/python bench/panel_bench.py [--queries 50 --docs 1200 --runs 100 --depth 100 --aggregate majority]

Generated: each query has `--docs` documents; each run retrieves `--depth` of them (random,
seeded); 5 machines label every document of every query (queries x docs items); the panel
aggregates them. Printed: the best and median of 3 `score` runs with the panel, beside one
machine alone (`--source assessor:m0`).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

WORKBENCH = [sys.executable, "-m", "workbench"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--docs", type=int, default=1200)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--aggregate", default="majority")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{tmp}/panel.db"
        runs = []
        for r in range(args.runs):
            path = Path(tmp) / f"run{r:03d}.txt"
            with open(path, "w") as fh:
                for q in range(args.queries):
                    docs = rng.choice(args.docs, args.depth, replace=False)
                    fh.writelines(f"q{q} Q0 q{q}d{d} {i + 1} {args.depth - i} run{r:03d}\n"
                                  for i, d in enumerate(docs.tolist()))
            runs.append(str(path))
        t = time.perf_counter()
        subprocess.run([*WORKBENCH, "--db", db, "import", "run", *runs], check=True, stdout=subprocess.DEVNULL)
        quality = rng.integers(0, 4, (args.queries, args.docs))
        for m in range(5):
            noisy = np.where(rng.random(quality.shape) < 0.3, rng.integers(0, 4, quality.shape), quality)
            path = Path(tmp) / f"m{m}.qrels"
            with open(path, "w") as fh:
                for q in range(args.queries):
                    fh.writelines(f"q{q} 0 q{q}d{d} {g}\n" for d, g in enumerate(noisy[q].tolist()))
            subprocess.run([*WORKBENCH, "--db", db, "import", "qrels", str(path), "--machine", "--model", f"m{m}"],
                           check=True, stdout=subprocess.DEVNULL)
        subprocess.run([*WORKBENCH, "--db", db, "panel", "create", "jury", *sum((["--member", f"m{m}"] for m in range(5)), []),
                        "--aggregate", args.aggregate], check=True, stdout=subprocess.DEVNULL)
        setup = time.perf_counter() - t

        def timed(source):
            times = []
            for _ in range(3):
                t = time.perf_counter()
                subprocess.run([*WORKBENCH, "--db", db, "score", "--source", source, "-m", "nDCG@10"],
                               check=True, stdout=subprocess.DEVNULL)
                times.append(time.perf_counter() - t)
            return min(times), statistics.median(times)

        panel, single = timed("panel:jury"), timed("assessor:m0")
    items = args.queries * args.docs
    print(f"panel of 5 machines ({args.aggregate}) over {items} items, {args.runs} runs (setup {setup:.0f} s)")
    print(f"  score --source panel:jury   best {panel[0]:.2f} s, median {panel[1]:.2f} s (target <= 1.5 s)")
    print(f"  score --source assessor:m0  best {single[0]:.2f} s, median {single[1]:.2f} s")


if __name__ == "__main__":
    main()
