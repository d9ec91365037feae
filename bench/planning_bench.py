"""Planning a campaign at TREC-8 size (issue 14): `simulate` and `reusability` beside `eval`.

    .venv/bin/python bench/planning_bench.py [--queries 50 --runs 100 --depth 1000]

Uses campaign_bench's generator (bench/data/campaign/, reused): alice's qrels are the full
judgments. Each command runs in its own process, as a user runs it:
- `simulate` with the three methods and five budgets in one command (the issue: < 10 s);
- `reusability --depth 100`;
- `eval` of the same files with the same measure, the cost of scoring every run once.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from campaign_bench import make_data  # noqa: E402

WORKBENCH = [sys.executable, "-m", "workbench"]


def timed(argv: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--depth", type=int, default=1000)
    args = ap.parse_args()
    runs, alice, _ = make_data(args.queries, args.runs, args.depth, 1200, 0.2)
    files = [str(alice), *map(str, runs)]
    budgets = "1000,5000,10000,20000,40000"
    rows = [
        ("simulate (3 methods x 5 budgets)",
         timed([*WORKBENCH, "simulate", "--qrels", *files, "--method", "depth,mtf,bandit", "--budget", budgets])),
        ("reusability --depth 100",
         timed([*WORKBENCH, "reusability", "--qrels", *files, "--depth", "100"])),
        ("eval -m map (every run once)", timed([*WORKBENCH, "eval", *files, "-m", "map"])),
    ]
    base = rows[-1][1]
    print(f"planning bench: {args.queries} queries x {args.runs} runs x depth {args.depth}")
    print(f"| {'step':<36} | {'wall s':>7} | x eval")
    print(f"|{'-' * 38}|{'-' * 9}|-------")
    for name, wall in rows:
        print(f"| {name:<36} | {wall:7.2f} | {wall / base:5.1f}")


if __name__ == "__main__":
    main()
