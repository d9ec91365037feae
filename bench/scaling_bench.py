"""How `workbench eval` scales with worker processes, and what the default picks.

    python bench/scaling_bench.py [--quick] [--repeat 2] [--workloads small,large,many]
                                  [--jobs 1,2,4] [--data DIR] [--calibrate]

The issue's three workloads (issue 28), generated with a fixed seed into --data (default
bench/data/scaling, git-ignored; --quick: about a tenth of each):

- small: one run of 0.95 M lines (1 000 queries x 950), 0.9 M qrels lines, 8 measures;
- large: one run of 9.5 M lines (10 000 queries x 950), 9 M qrels lines, 8 measures;
- many:  100 runs x 50 queries x 1 000 (TREC-8's size), 85 k qrels lines, 4 measures.

For each workload and each job count 1, 2, 4, ... up to the cores this process may use
(workbench.cores.usable_cpus: run it under `taskset -c 0,1` to see 2 cores), it prints
the best wall time of --repeat whole `workbench eval` processes (in rounds over all the
counts, so that other people's load falls on all alike), the speed-up over
`-j 1`, and then the same for the default (no -j) with the job count it chose
(settings.jobs of --format json). Every job count must print the same numbers: the
bench stops if one differs.

--calibrate also measures the cost model's constants (workbench.evaluation.strategy.Costs)
on this machine: one worker's bytes per second for run and qrels text, and the per-worker
and fixed costs of starting workers; the lead copies them into Costs when they move.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.cores import usable_cpus  # noqa: E402

MEASURES8 = ["map", "ndcg", "ndcg_cut.10", "P.10", "recall.100", "recip_rank", "bpref", "Rprec"]
MEASURES4 = ["map", "P.10", "ndcg_cut.10", "recall.1000"]
POOL = 2_000  # distinct documents per query

# name: (queries, run lines per query, qrels lines per query, runs, measures)
FULL = {
    "small": (1_000, 950, 900, 1, MEASURES8),
    "large": (10_000, 950, 900, 1, MEASURES8),
    "many": (50, 1_000, 1_700, 100, MEASURES4),
}
QUICK = {
    "small": (100, 950, 900, 1, MEASURES8),
    "large": (1_000, 950, 900, 1, MEASURES8),
    "many": (50, 1_000, 1_700, 10, MEASURES4),
}


# ----------------------------------------------------------------------------- data


def _qrels_block(args) -> bytes:
    seed, q0, q1, judged = args
    import numpy as np

    out = []
    for q in range(q0, q1):
        rng = np.random.default_rng((seed, q))
        docs = rng.permutation(POOL)[:judged].tolist()
        grades = rng.choice(4, size=judged, p=[0.6, 0.2, 0.12, 0.08]).tolist()
        out.append("".join([f"{q + 1} 0 doc-{q + 1}-{d} {g}\n" for d, g in zip(docs, grades)]))
    return "".join(out).encode()


def _run_block(args) -> bytes:
    seed, system, q0, q1, depth = args
    import numpy as np

    out = []
    tag = f"sys{system:03d}"
    for q in range(q0, q1):
        rng = np.random.default_rng((seed, system, q))
        docs = rng.choice(POOL, size=depth, replace=False).tolist()
        scores = np.sort(rng.random(depth) * 30.0)[::-1].tolist()
        out.append("".join([f"{q + 1} Q0 doc-{q + 1}-{d} {i} {s:.6f} {tag}\n"
                            for i, (d, s) in enumerate(zip(docs, scores), 1)]))
    return "".join(out).encode()


def _write(path: Path, fn, blocks, pool) -> None:
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as fh:
        for text in pool.imap(fn, blocks):
            fh.write(text)
    os.replace(tmp, path)


def generate(data: Path, name: str, spec, seed: int = 28) -> tuple[Path, list[Path]]:
    """The workload's qrels and runs (made once, in parallel, then kept)."""
    import multiprocessing

    nq, depth, judged, runs, _ = spec
    folder = data / f"{name}_q{nq}_d{depth}_j{judged}_r{runs}"
    folder.mkdir(parents=True, exist_ok=True)
    qrels = folder / "qrels"
    run_paths = [folder / f"run{s:03d}" for s in range(runs)]
    todo = [p for p in [qrels, *run_paths] if not p.exists()]
    if not todo:
        return qrels, run_paths
    print(f"generating {name}: {nq * judged:,} qrels lines, {runs} run(s) of "
          f"{nq * depth:,} lines", file=sys.stderr, flush=True)
    step = max(1, nq // 64)
    spans = [(q, min(nq, q + step)) for q in range(0, nq, step)]
    with multiprocessing.get_context("fork").Pool(usable_cpus()) as pool:
        if not qrels.exists():
            _write(qrels, _qrels_block, [(seed, a, b, judged) for a, b in spans], pool)
        for s, path in enumerate(run_paths):
            if not path.exists():
                _write(path, _run_block, [(seed, s, a, b, depth) for a, b in spans], pool)
    return qrels, run_paths


# ----------------------------------------------------------------------------- timing


def _eval_cmd(qrels: Path, runs: list[Path], measures, jobs: int | None) -> list[str]:
    cmd = [sys.executable, "-m", "workbench", "eval", str(qrels), *map(str, runs),
           "--format", "json"]
    for m in measures:
        cmd += ["-m", m]
    if jobs is not None:
        cmd += ["-j", str(jobs)]
    return cmd


def time_eval(qrels, runs, measures, jobs) -> tuple[float, int, list]:
    """(wall seconds, the job count it reported, its runs' summaries) of one process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.run(_eval_cmd(qrels, runs, measures, jobs), env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"workbench eval failed ({proc.returncode}): {proc.stderr}")
    out = json.loads(proc.stdout)
    return wall, out["settings"]["jobs"], out["runs"]


def job_counts(top: int) -> list[int]:
    """1, 2, 4, ... up to top, and top itself."""
    out, n = [], 1
    while n < top:
        out.append(n)
        n *= 2
    out.append(top)
    return out


def bench(name, spec, data: Path, counts, repeat: int) -> list[tuple]:
    qrels, runs = generate(data, name, spec)
    measures = spec[4]
    size = sum(p.stat().st_size for p in runs) + qrels.stat().st_size
    print(f"\n{name}: {len(runs)} run(s), {spec[0]:,} queries x {spec[1]}, "
          f"{spec[0] * spec[2]:,} qrels lines, {len(measures)} measures, "
          f"{size / 1e6:.0f} MB", flush=True)
    print(f"  {'jobs':>9}  {'time':>8}  {'speed-up':>8}", flush=True)
    # Rounds over every job count in turn, best of each: a neighbour's load on a shared
    # machine then falls on all counts alike rather than on one.
    configs = [*counts, None]
    best = {j: float("inf") for j in configs}
    used, reference = {}, None
    for _ in range(repeat):
        for jobs in configs:
            wall, used[jobs], summary = time_eval(qrels, runs, measures, jobs)
            if reference is None:
                reference = summary
            elif summary != reference:
                raise SystemExit(f"{name}: -j {jobs} printed other numbers than -j {counts[0]}")
            best[jobs] = min(best[jobs], wall)
    rows, base = [], best[counts[0]]
    for jobs in configs:
        label = f"{jobs}" if jobs is not None else f"default={used[jobs]}"
        print(f"  {label:>9}  {best[jobs]:7.2f}s  {base / best[jobs]:7.2f}x", flush=True)
        rows.append((name, label, best[jobs], base / best[jobs], used[jobs]))
    return rows


# ----------------------------------------------------------------------------- calibration


def calibrate(data: Path, quick: bool) -> None:
    """The cost model's constants, measured here (one worker's rates; start-up costs)."""
    import numpy as np

    from workbench.evaluation.processes import evaluate_in_processes
    from workbench.evaluation.split import evaluate_split, run_cuts
    from workbench.formats.trec import read_qrels, read_run
    from workbench.metrics.evaluate import RunArrays, evaluate_many
    from workbench.metrics.measures import parse_measures
    from workbench.metrics.qrels_index import QrelsIndex

    spec = (QUICK if quick else FULL)["large"]
    qrels, (run,) = generate(data, "large", spec)
    ms = parse_measures(spec[4])

    def best(fn, n=3):
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t0)
        return min(times), out

    tq, index = best(lambda: (lambda q: QrelsIndex(q.qid, q.docno, q.rel))(
        read_qrels(qrels, threads=1, check_duplicates=False)))

    def one_run():
        r = read_run(run, threads=1, check_duplicates=False, all_tags=False)
        return evaluate_many(None, None, None, [RunArrays(r.qid, r.docno, r.score, r.tag)],
                             ms, index=index)

    tr, _ = best(one_run)
    qb, rb = qrels.stat().st_size, run.stat().st_size
    print(f"\ncalibration ({usable_cpus()} usable cores)")
    print(f"  qrels_bytes_s = {qb / tq / 1e6:.0f}e6   ({qb / 1e6:.0f} MB read + indexed "
          f"in {tq:.3f} s, one thread)")
    print(f"  run_bytes_s   = {rb / tr / 1e6:.0f}e6   ({rb / 1e6:.0f} MB read + evaluated "
          f"in {tr:.3f} s, one thread)")

    # start-up: workers that do nothing, n of them; the slope is each worker's cost
    def pool(n):
        return lambda: list(evaluate_in_processes(n, n, lambda k: k))

    ns = [2, 4, 8, 16]
    pts = [(n, best(pool(n))[0]) for n in ns]
    slope, icpt = np.polyfit([n for n, _ in pts], [t for _, t in pts], 1)
    print(f"  start_s (pool) = {slope:.4f}   fixed {icpt:.4f} s  "
          f"({', '.join(f'{n}: {t * 1e3:.0f} ms' for n, t in pts)})")
    # the split's own: a run of a few queries cut into n pieces (the work is nothing)
    tiny = data / "tiny"
    tiny.mkdir(parents=True, exist_ok=True)
    tq_path, tr_path = tiny / "qrels", tiny / "run"
    tq_path.write_text("".join(f"{q} 0 d{d} {d % 2}\n" for q in range(64) for d in range(3)))
    tr_path.write_text("".join(f"{q} Q0 d{d} {d} {1 - d / 10} t\n"
                               for q in range(64) for d in range(3)))
    opts = dict(rel_level=1, ties="trec_eval", max_depth=None, complete=False, compat=10)
    pts = []
    for n in ns:
        cuts = run_cuts(str(tr_path), n)
        pts.append((len(cuts) - 1, best(lambda: evaluate_split(str(tq_path), str(tr_path),
                                                               cuts, ms, **opts))[0]))
    slope, icpt = np.polyfit([n for n, _ in pts], [t for _, t in pts], 1)
    print(f"  start_s (split) = {slope:.4f}   fixed_s {icpt:.4f} s  "
          f"({', '.join(f'{n}: {t * 1e3:.0f} ms' for n, t in pts)})")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="about a tenth of each workload")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many (default 3)")
    ap.add_argument("--workloads", default="small,large,many")
    ap.add_argument("--jobs", default=None,
                    help="job counts to time, comma separated (default 1, 2, 4 ... usable)")
    ap.add_argument("--data", type=Path, default=ROOT / "bench" / "data" / "scaling")
    ap.add_argument("--calibrate", action="store_true", help="also measure the model's costs")
    ap.add_argument("--calibrate-only", action="store_true")
    args = ap.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    counts = ([int(j) for j in args.jobs.split(",")] if args.jobs
              else job_counts(usable_cpus()))
    if counts[0] != 1:
        counts = [1, *counts]
    print(f"workbench eval scaling: {usable_cpus()} usable cores "
          f"(machine {os.cpu_count()}), best of {args.repeat}, "
          f"{'quick' if args.quick else 'full'} sizes, "
          f"WORKBENCH_THREADS={os.environ.get('WORKBENCH_THREADS', '')!r}", flush=True)
    if not args.calibrate_only:
        for name in args.workloads.split(","):
            bench(name, sizes[name], args.data, counts, args.repeat)
    if args.calibrate or args.calibrate_only:
        calibrate(args.data, args.quick)


if __name__ == "__main__":
    main()
