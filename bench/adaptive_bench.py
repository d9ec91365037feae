"""Adaptive pools at TREC-8 size (issue 14 §1): the cost of serving the next document.

    .venv/bin/python bench/adaptive_bench.py [--queries 50 --runs 100 --depth 1000 --grades 200]

Uses campaign_bench's generator (bench/data/campaign/, reused): the runs are imported into
a fresh SQLite campaign, `pool --method mtf|bandit` starts the pool, then one assessor
grades `--grades` documents of one query through the queue (alice's qrels as the truth,
unjudged as 0), each grade committed by record_grade and followed by serve_next, as the
judging screen and `workbench grade` do. Reported: the `pool` command, the first serve in
a fresh process (it reads and groups every stored run, then keeps them until a run
changes), and the serves after it (p50, p95, max), for mtf and bandit.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from campaign_bench import make_data  # noqa: E402

WORKBENCH = [sys.executable, "-m", "workbench"]


def timed(argv: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def serve_times(db_path: str, truth: dict[tuple[str, str], int], query: str, n: int):
    from workbench.campaign.judging import assessing
    from workbench.campaign.pooling.adaptive import serve_next
    from workbench.campaign.database import Database

    db = Database.open(db_path, create=False)
    times = []
    try:
        for _ in range(n):
            queue = assessing.load_queue(db, "ann", query)
            at = queue.first_unjudged()
            if at is None:
                break
            item = queue.items[at]
            assessing.grade_item(db, "ann", query, item, truth.get((query, item.document), 0))
            t = time.perf_counter()
            serve_next(db, "ann", query)
            times.append(time.perf_counter() - t)
    finally:
        db.close()
    return np.array(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--grades", type=int, default=200)
    args = ap.parse_args()
    runs, alice, _ = make_data(args.queries, args.runs, args.depth, 1200, 0.2)
    truth = {}
    for line in alice.read_text().splitlines():
        q, _, d, g = line.split()
        truth[(q, d)] = int(g)
    query = sorted({q for q, _ in truth})[0]
    print(f"adaptive bench: {args.queries} queries x {args.runs} runs x depth {args.depth}")
    print(f"| {'method':<7} | {'pool s':>7} | {'1st serve s':>11} | {'p50 ms':>7} | {'p95 ms':>7} | {'max ms':>7} | grades")
    with tempfile.TemporaryDirectory() as tmp:
        for method in ("mtf", "bandit"):
            db = str(Path(tmp) / f"{method}.sqlite")
            subprocess.run([*WORKBENCH, "--db", db, "init"], check=True, stdout=subprocess.DEVNULL)
            subprocess.run([*WORKBENCH, "--db", db, "import", "run", *map(str, runs)], check=True,
                           stdout=subprocess.DEVNULL)
            pool_s = timed([*WORKBENCH, "--db", db, "pool", "--method", method, "-a", "ann"])
            t = serve_times(db, truth, query, args.grades)
            rest = t[1:] * 1000 if t.size > 1 else np.zeros(1)
            print(f"| {method:<7} | {pool_s:7.2f} | {t[0]:11.2f} | {np.median(rest):7.1f} | "
                  f"{np.percentile(rest, 95):7.1f} | {rest.max():7.1f} | {t.size}")


if __name__ == "__main__":
    main()
