"""Benchmark: `workbench import run` of a 1 000 000-line run, end to end.

Generates (seeded) a run of 1 000 queries x 1 000 documents drawn from a collection of
500 000 document ids into bench/data/ (git-ignored), then times the real command in a
subprocess on a fresh SQLite database:

1. first import (creates 1 000 stub queries and the stub documents),
2. a second run over the same queries and documents (ids known: results only),
3. `--replace` of the first run (delete 1 000 000 results, insert 1 000 000),
4. a 1 000 000-line qrels file (the first run's pairs, grades 0-3) for one assessor.

With WORKBENCH_BENCH_PG_URL (or --pg URL) it repeats 1 and 2 on PostgreSQL, in a fresh
schema that is dropped afterwards.

    .venv/bin/python bench/import_bench.py [--lines 1000000] [--pg URL]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data"
WORKBENCH = [sys.executable, "-m", "workbench"]


def make_run(path: Path, queries: int, per_query: int, collection: int, tag: str, seed: int) -> None:
    """A TREC run: per query `per_query` distinct documents with decreasing scores."""
    if path.exists():
        return
    rng = np.random.default_rng(seed)
    with open(path, "w") as out:
        for q in range(queries):
            docs = rng.choice(collection, size=per_query, replace=False)
            scores = np.sort(rng.random(per_query) * 30)[::-1]
            out.write("".join(
                f"{401 + q} Q0 DOC-{d:07d} {r} {s:.6f} {tag}\n"
                for r, (d, s) in enumerate(zip(docs.tolist(), scores.tolist()), start=1)
            ))


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def make_qrels(run: Path, path: Path) -> None:
    if path.exists():
        return
    with open(run) as src, open(path, "w") as out:
        for i, line in enumerate(src):
            qid, _, docno, *_ = line.split()
            out.write(f"{qid} 0 {docno} {i % 4}\n")


def timed(args: list[str], db: str) -> tuple[float, float]:
    """Wall seconds and CPU seconds of the workbench process (the machine is shared: CPU
    time is the steadier number when others are busy)."""
    cpu = _child_cpu()
    start = time.perf_counter()
    proc = subprocess.run(WORKBENCH + args + ["--db", db], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}\n{proc.stderr}")
    print(f"    {proc.stdout.strip()}")
    return elapsed, _child_cpu() - cpu


def bench(db: str, run_a: Path, run_b: Path, label: str, replace: bool, qrels: Path | None = None) -> list[tuple[str, str, tuple[float, float]]]:
    rows = []
    subprocess.run(WORKBENCH + ["init", "--db", db], check=True, capture_output=True)
    rows.append((label, "first run (stubs + results)", timed(["import", "run", str(run_a)], db)))
    rows.append((label, "second run (results only)", timed(["import", "run", str(run_b)], db)))
    if replace:
        rows.append((label, "--replace first run", timed(["import", "run", str(run_a), "--replace"], db)))
    if qrels is not None:
        rows.append((label, "qrels (judgments + events)", timed(["import", "qrels", str(qrels), "--assessor", "bench"], db)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--pg", default=os.environ.get("WORKBENCH_BENCH_PG_URL"))
    opts = parser.parse_args()
    queries = 1000
    per_query = opts.lines // queries
    DATA.mkdir(parents=True, exist_ok=True)
    run_a = DATA / f"run_{opts.lines}_a.txt"
    run_b = DATA / f"run_{opts.lines}_b.txt"
    t0 = time.perf_counter()
    make_run(run_a, queries, per_query, 500_000, "bench_a", seed=1)
    make_run(run_b, queries, per_query, 500_000, "bench_b", seed=1)  # same docs, other tag
    qrels = DATA / f"qrels_{opts.lines}.txt"
    make_qrels(run_a, qrels)
    print(f"data: {run_a.name} {run_a.stat().st_size / 1e6:.0f} MB ({time.perf_counter() - t0:.1f} s to make)")

    db_path = DATA / "bench.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    try:
        rows = bench(str(db_path), run_a, run_b, "sqlite", replace=True, qrels=qrels)
    finally:
        for suffix in ("", "-wal", "-shm"):  # a few hundred MB: keep only the run files
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    if opts.pg:
        from sqlalchemy import create_engine, text

        schema = f"wbbench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(opts.pg)
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        sep = "&" if "?" in opts.pg else "?"
        try:
            rows += bench(f"{opts.pg}{sep}options={quote(f'-csearch_path={schema}')}", run_a, run_b,
                          "postgresql", replace=False)
        finally:
            with admin.begin() as conn:
                conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            admin.dispose()

    print(f"\nload average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'backend':<11} {'import':<30} {'lines':>9} {'wall s':>7} {'cpu s':>6} {'lines/s':>9}")
    for backend, what, (secs, cpu) in rows:
        print(f"{backend:<11} {what:<30} {opts.lines:>9} {secs:>7.1f} {cpu:>6.1f} {opts.lines / secs:>9.0f}")


if __name__ == "__main__":
    main()
