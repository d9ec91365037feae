"""`workbench meta` at AutoJudge's scale (issue 34): 5 judges x 100 systems x 50 topics,
1 000 bootstrap resamples, every correlation, as a whole process (`python -m workbench
meta ... --format json`, Python start and the database read included). Target: <= 2 s.

    .venv/bin/python bench/meta_bench.py [--systems 100 --topics 50 --judges 5 --resamples 1000 --repeat 3]

The leaderboards are generated (a truth per system and topic, each judge the truth plus
noise of its own size), imported into a fresh SQLite campaign with `import leaderboard`
(jsonl), then `meta` runs `--repeat` times; the best and the median wall time are printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

WORKBENCH = [sys.executable, "-m", "workbench"]


def write_board(path: Path, values: np.ndarray, measure: str) -> None:
    with open(path, "w") as fh:
        for i in range(values.shape[0]):
            for t in range(values.shape[1]):
                fh.write(json.dumps({"run_id": f"sys{i:03d}", "topic_id": f"t{t:03d}", "measure": measure,
                                     "value": float(values[i, t])}) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--systems", type=int, default=100)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--judges", type=int, default=5)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    quality = rng.random(args.systems)
    truth = np.clip(quality[:, None] + rng.normal(0, 0.2, (args.systems, args.topics)), 0, 1)
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{tmp}/meta.db"
        subprocess.run([*WORKBENCH, "--db", db, "init"], check=True, stdout=subprocess.DEVNULL)
        names = ["truth"] + [f"judge{k}" for k in range(args.judges)]
        for k, name in enumerate(names):
            values = truth if k == 0 else np.clip(truth + rng.normal(0, 0.05 * k, truth.shape), 0, 1)
            path = Path(tmp) / f"{name}.jsonl"
            write_board(path, values, "ndcg_cut_10")
            subprocess.run([*WORKBENCH, "--db", db, "import", "leaderboard", str(path), "--name", name],
                           check=True, stdout=subprocess.DEVNULL)
        argv = [*WORKBENCH, "--db", db, "meta", "--truth", "leaderboard:truth", "-m", "ndcg_cut_10",
                "--resamples", str(args.resamples), "--format", "json"]
        for name in names[1:]:
            argv += ["--judge", f"leaderboard:{name}"]
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
            times.append(time.perf_counter() - t)
        report = json.loads(out)
    first = report["judges"][0]["correlations"]
    print(f"meta: {args.judges} judges x {args.systems} systems x {args.topics} topics, "
          f"{args.resamples} resamples, 7 correlations")
    print(f"  whole process: best {min(times):.2f} s, median {statistics.median(times):.2f} s (target <= 2 s)")
    print(f"  judge0 kendall_tau_b {first['kendall_tau_b']:.4f} {first['kendall_tau_b_ci']}, "
          f"{len(report['pairs'])} pair rows")


if __name__ == "__main__":
    main()
