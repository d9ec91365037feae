"""`score --ci bootstrap` against `score` alone (issue 35): 100 runs x 50 topics.

Measured 2026-12-02 on the shared 2-core machine (load 2.8), median of 3: score 0.892 s,
--ci t 1.002 s (+0.11 s), --ci bootstrap with 10 000 resamples 1.170 s (+0.28 s).

    .venv/bin/python bench/score_ci_bench.py [--runs 100 --topics 50 --depth 100
                                              --resamples 10000 --repeat 5]

Builds (seeded) the runs and one assessor's qrels in a temporary SQLite database, then
times whole processes (`python -m workbench score -m map -m ndcg_cut.10 -a alice`, with
and without `--ci bootstrap --resamples N`), median of --repeat, wall clock.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

WORKBENCH = [sys.executable, "-m", "workbench"]


def make_data(work: Path, runs: int, topics: int, depth: int, seed: int = 3) -> tuple[list[Path], Path]:
    rng = np.random.default_rng(seed)
    docs = depth * 3
    files = []
    for s in range(runs):
        path = work / f"sys{s:03d}.run"
        with path.open("w") as out:
            for q in range(topics):
                chosen = rng.choice(docs, size=depth, replace=False)
                for rank, d in enumerate(chosen.tolist(), 1):
                    out.write(f"q{q} Q0 d{q}_{d} {rank} {depth - rank}.0 sys{s:03d}\n")
        files.append(path)
    qrels = work / "alice.qrels"
    with qrels.open("w") as out:
        for q in range(topics):
            for d in range(docs):
                out.write(f"q{q} 0 d{q}_{d} {int(rng.integers(0, 4) * (rng.random() < 0.4))}\n")
    return files, qrels


def wall(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        db = str(work / "bench.sqlite")
        files, qrels = make_data(work, args.runs, args.topics, args.depth)
        subprocess.run([*WORKBENCH, "init", "--db", db], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([*WORKBENCH, "import", "run", "--db", db, *map(str, files)], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([*WORKBENCH, "import", "qrels", "--db", db, "-a", "alice", str(qrels)],
                       check=True, stdout=subprocess.DEVNULL)
        base = [*WORKBENCH, "score", "--db", db, "-a", "alice", "-m", "map", "-m", "ndcg_cut.10"]
        cases = {
            "score": base,
            "score --ci t": [*base, "--ci", "t"],
            f"score --ci bootstrap ({args.resamples})": [*base, "--ci", "bootstrap",
                                                         "--resamples", str(args.resamples)],
        }
        times = {name: [] for name in cases}
        for _ in range(args.repeat):  # interleaved: load changes hit every case alike
            for name, argv in cases.items():
                times[name].append(wall(argv))
        print(f"{args.runs} runs x {args.topics} topics, depth {args.depth}; median of "
              f"{args.repeat} whole processes (load {os.getloadavg()[0]:.1f})")
        ref = statistics.median(times["score"])
        for name, t in times.items():
            med = statistics.median(t)
            print(f"  {name:<32} {med:6.3f} s  (+{med - ref:.3f} s)")


if __name__ == "__main__":
    main()
