"""Which way to evaluate: in this process with threads reading ahead, in forked worker
processes (one run each), or one big run split over forked processes (reading included).

Forking costs tens of milliseconds and copies nothing up front, so it pays only on big
inputs: by default several runs go to workers from MIN_PARALLEL_BYTES of run text, and one
run is split from split.MIN_SPLIT_BYTES. An explicit job count forces either.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["MIN_PARALLEL_BYTES", "MIN_PARALLEL_ROWS", "Plan", "can_fork", "default_jobs",
           "plan_for_arrays", "plan_for_files"]

MIN_PARALLEL_BYTES = 8 << 20  # below this much run text, forking costs more than it saves
MIN_PARALLEL_ROWS = 300_000  # about MIN_PARALLEL_BYTES of run text, for runs of arrays


@dataclass(frozen=True)
class Plan:
    """kind: ``threads``, ``processes`` or ``split``; workers: processes to fork (0 for
    threads); cuts: the byte offsets of the run's pieces (split only)."""

    kind: str
    workers: int = 0
    cuts: tuple[int, ...] = ()


THREADS = Plan("threads")


def default_jobs() -> int:
    """Worker processes: WORKBENCH_THREADS if set, else the number of cores."""
    env = os.environ.get("WORKBENCH_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    return os.cpu_count() or 1


def can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _workers(count: int, jobs: int | None) -> int:
    """Processes for `count` runs (0: none), before any size rule."""
    if count < 2 or not can_fork():
        return 0
    n = min(jobs if jobs is not None else default_jobs(), count)
    return n if n >= 2 else 0


def plan_for_files(run_paths, jobs: int | None, bounds: bool) -> Plan:
    """The plan for run files (jobs None: decide by size; 1: threads only)."""
    n = _workers(len(run_paths), jobs)
    if n and jobs is None:  # by default only when the files are big enough to be worth it
        try:
            if sum(os.path.getsize(p) for p in run_paths) < MIN_PARALLEL_BYTES:
                n = 0
        except OSError:
            n = 0  # the threads path reports the missing file
    if n:
        return Plan("processes", n)
    if len(run_paths) == 1 and not bounds:
        from workbench.evaluation.split import run_cuts

        cuts = run_cuts(run_paths[0], jobs if jobs is not None else default_jobs(),
                        forced=jobs is not None)
        if cuts is not None:
            return Plan("split", len(cuts) - 1, tuple(cuts))
    return THREADS


def plan_for_arrays(run_rows, jobs: int | None) -> Plan:
    """The plan for runs already in memory (run_rows: each run's row count): forked
    workers or this process; there is no reading to split."""
    n = _workers(len(run_rows), jobs)
    if n and jobs is None and sum(run_rows) < MIN_PARALLEL_ROWS:
        n = 0
    return Plan("processes", n) if n else THREADS
