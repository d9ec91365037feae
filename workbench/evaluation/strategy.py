"""Which way to evaluate: in this process with threads reading ahead, in forked worker
processes (one run each), or one big run split over forked processes (reading included).

How many workers is decided from measured costs (`Costs`), not from fixed sizes: every
candidate count from 1 to the usable cores (`workbench.cores.default_jobs`) gets a
predicted time, and workers are used only when the best prediction beats one process
by a large margin (30 %), so that the default is not slower than `-j 1` on small inputs,
on few cores or on a loaded machine. An explicit job count forces its number (within the runs there are).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from workbench.cores import default_jobs

__all__ = ["COSTS", "Costs", "Plan", "can_fork", "default_jobs", "plan_for_arrays",
           "plan_for_files", "plan_for_sizes", "predicted_seconds"]

# A row of a run already in memory costs about what half a run line's text does to read
# and evaluate (reading is about half of it), to price runs of arrays with `Costs`.
ARRAY_ROW_BYTES = 18


@dataclass(frozen=True)
class Costs:
    """The model's constants; `bench/scaling_bench.py --calibrate` measures them.

    run_bytes_s, qrels_bytes_s: run text read and evaluated, qrels text read and indexed,
    per second by one core; one_process_cores: the cores one process keeps busy (its
    threads read the qrels and the next run while it evaluates), when it has 2 or more;
    start_s: each worker's cost that the others wait for (its fork, in the parent, one
    after another); fixed_s: once per parallel evaluation (scratch files, pipes, the
    pieces' own index, the merge, the workers' first page faults and exit); margin: the
    share of one process's predicted time that workers must save before they are used
    (the model's error, and other people's load on a shared machine).
    """

    run_bytes_s: float = 106e6
    qrels_bytes_s: float = 144e6
    one_process_cores: float = 1.1
    start_s: float = 0.008
    fixed_s: float = 0.12
    margin: float = 0.3


# The rates and the fork were measured on the lent 16-core machine (gVisor; one core reads
# and evaluates 106 MB/s of run text and 144 MB/s of qrels; a fork costs ~8 ms there).
# fixed_s and one_process_cores are fitted to whole `eval` processes on 2 cores, where the
# first constants (0.25 s, 1.5 cores) kept runs in one process that 2 workers did faster:
# the lent machine pinned to 2 cores took 0.63 s in one process and 0.56 s in 2 pieces for
# a 0.95 M-line run (100 runs: 1.32 s, 1.03 s in 2 workers), the 2-core development
# machine 0.26 s and 0.23 s (100 runs: 0.71 s, 0.49 s); its reading threads gained 5 %,
# not 50 %. docs/performance.md has the measurements.
# margin 0.3 (at 0.1 the default was 10 % slower than -j 1 on 2 cores): measured savings
# trail the predicted ones by 10-25 points on 2 cores (the 1 M-line run: predicted 15 %,
# measured -10 % to +12 % on three machines and -28 % under a load of 12; 100 runs: 37 % against 22-31 %; 10 M lines: 42 % against 32 %;
# 16 cores, 1 M lines: 45 % against 20 %), so workers are used only where the model predicts
# a saving of 30 % or more, which has always been a real saving.
COSTS = Costs()


@dataclass(frozen=True)
class Plan:
    """kind: ``threads``, ``processes`` or ``split``; workers: processes to fork (0 for
    threads); cuts: the byte offsets of the run's pieces (split only)."""

    kind: str
    workers: int = 0
    cuts: tuple[int, ...] = ()

    @property
    def jobs(self) -> int:
        """Processes doing the work: the workers, or this one."""
        return max(1, self.workers)


THREADS = Plan("threads")


def can_fork() -> bool:
    """Whether worker processes can be forked here (not on Windows). Asked without
    importing multiprocessing, which costs tens of milliseconds that a split run spends
    before its first worker starts."""
    return hasattr(os, "fork")


def _makespan(run_bytes, n: int) -> float:
    """Bytes on the busiest of n workers taking runs in order, each the next free one
    (as the pool hands them out)."""
    import heapq

    loads = [0.0] * n
    for b in run_bytes:
        heapq.heapreplace(loads, loads[0] + b)
    return max(loads)


def predicted_seconds(kind: str, n: int, run_bytes, qrels_bytes: int,
                      costs: Costs = COSTS, cores: int = 1) -> float:
    """Predicted wall time of reading and evaluating: ``threads`` (one process, n ignored,
    its reading threads overlapping the work on up to `one_process_cores` of `cores`),
    ``processes`` (the parent reads the qrels, then n workers take one run at a time) or
    ``split`` (one run and the qrels read and evaluated in n pieces)."""
    qrels = qrels_bytes / costs.qrels_bytes_s
    if kind == "threads":
        overlap = min(costs.one_process_cores, max(1, cores))
        return (qrels + sum(run_bytes) / costs.run_bytes_s) / overlap
    parallel = costs.fixed_s + n * costs.start_s
    if kind == "processes":
        return qrels + parallel + _makespan(run_bytes, n) / costs.run_bytes_s
    return parallel + (qrels + sum(run_bytes) / costs.run_bytes_s) / n


def plan_for_sizes(run_bytes, qrels_bytes: int, jobs: int | None, *, split_ok: bool = True,
                   costs: Costs = COSTS) -> Plan:
    """The plan for runs of these sizes (jobs None: the model's choice among 1 to the
    usable cores; a number forces it). Several runs go to ``processes``, one run to
    ``split`` when split_ok. The split's cut points are left to `plan_for_files`."""
    run_bytes = list(run_bytes)
    kind = "processes" if len(run_bytes) > 1 else "split"
    if (kind == "split" and not split_ok) or not run_bytes or not can_fork():
        return THREADS
    most = len(run_bytes) if kind == "processes" else None
    if jobs is not None:
        n = min(jobs, most or jobs)
        return Plan(kind, n) if n >= 2 else THREADS
    cores = default_jobs()
    cap = min(cores, most or cores)
    if cap < 2:
        return THREADS
    one = predicted_seconds("threads", 1, run_bytes, qrels_bytes, costs, cores)
    best = min(range(2, cap + 1),
               key=lambda n: predicted_seconds(kind, n, run_bytes, qrels_bytes, costs))
    if predicted_seconds(kind, best, run_bytes, qrels_bytes, costs) > one * (1 - costs.margin):
        return THREADS
    return Plan(kind, best)


def plan_for_files(run_paths, jobs: int | None, bounds: bool, qrels_path=None) -> Plan:
    """The plan for run files (jobs None: decide from the sizes; 1: threads only)."""
    try:
        sizes = [os.path.getsize(p) for p in run_paths]
        qrels_bytes = os.path.getsize(qrels_path) if qrels_path is not None else 0
    except OSError:
        return THREADS  # the threads path reports the missing file
    plan = plan_for_sizes(sizes, qrels_bytes, jobs, split_ok=len(run_paths) == 1 and not bounds)
    if plan.kind != "split":
        return plan
    from workbench.evaluation.split import run_cuts

    cuts = run_cuts(run_paths[0], plan.workers)
    if cuts is None:
        return THREADS
    return Plan("split", len(cuts) - 1, tuple(cuts))


def plan_for_arrays(run_rows, jobs: int | None) -> Plan:
    """The plan for runs already in memory (run_rows: each run's row count): forked
    workers or this process; there is no reading to split."""
    sizes = [rows * ARRAY_ROW_BYTES for rows in run_rows]
    if len(sizes) < 2:
        return THREADS
    return plan_for_sizes(sizes, 0, jobs)
