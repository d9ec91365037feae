"""The one entry point: files (or read runs) in, one EvaluatedRun per run out, the
strategy picked for the input: threads reading ahead, forked processes for several big
runs, pieces of one big run (split.py)."""

from __future__ import annotations

import sys

from workbench.evaluation.one_run import EvaluatedRun, check, evaluate_one, qrels_index
from workbench.evaluation.processes import default_jobs, evaluate_in_processes, use_processes
from workbench.errors import UsageError


def _measures(measure_names):
    from workbench.metrics.measures import parse_measures

    # a bad name raises MeasureError, a UsageError: one line, exit 2
    return parse_measures(list(measure_names) or ["official"])


def evaluate_files(qrels_path, run_paths, measure_names=(), *, rel_level: int = 1,
                   ties: str = "trec_eval", max_depth: int | None = None, complete: bool = False,
                   compat: int = 10, bounds: bool = False, jobs: int | None = None,
                   tune_memory: bool = False) -> list[EvaluatedRun]:
    """Evaluate run files against a qrels file as trec_eval does, in the order given.

    jobs: worker processes (None: WORKBENCH_THREADS or the cores, for big enough files;
    1: none). bounds: also each value's upper bound. tune_memory: keep freed memory in the
    process (glibc), for a short-lived command."""
    from concurrent.futures import ThreadPoolExecutor

    from workbench.formats.trec import default_threads, read_qrels, read_run

    ms = _measures(measure_names)
    if rel_level < 0:
        raise UsageError("-l must be >= 0")
    if tune_memory and sys.platform.startswith("linux"):
        from workbench.evaluation.allocator import tune_allocator

        tune_allocator()
    read = dict(keep_rank=ties == "rank", check_duplicates=False, all_tags=False)
    n_proc = use_processes(run_paths, jobs)
    out: list[EvaluatedRun] = []
    split = None  # one big run read and evaluated in pieces (None: not tried, or gave up)
    if not n_proc and len(run_paths) == 1 and not bounds:
        from workbench.evaluation.split import evaluate_split, run_cuts

        cuts = run_cuts(run_paths[0], jobs if jobs is not None else default_jobs(), forced=jobs is not None)
        if cuts is not None:
            split = evaluate_split(qrels_path, run_paths[0], cuts, ms, rel_level=rel_level, ties=ties,
                                   max_depth=max_depth, complete=complete, compat=compat)
    if split is not None:
        return [EvaluatedRun(split, None, check(split, run_paths[0], complete), split.tag)]
    if n_proc:
        index, top_grade = qrels_index(read_qrels(qrels_path, check_duplicates=False), rel_level)
        args = (ms, index, rel_level, ties, max_depth, complete, compat, top_grade if bounds else None)
        return [EvaluatedRun(*r) for r in evaluate_in_processes(run_paths, n_proc, read, args)]
    # Files are read ahead in threads (numpy releases the GIL while parsing): the qrels and
    # the first run together, then the next run while this one is evaluated.
    with ThreadPoolExecutor(max_workers=default_threads()) as pool:
        fq = pool.submit(read_qrels, qrels_path, check_duplicates=False)
        ahead = [pool.submit(read_run, run_paths[0], **read)]
        index, top_grade = qrels_index(fq.result(), rel_level)
        for k, path in enumerate(run_paths):
            if k + 1 < len(run_paths):
                ahead.append(pool.submit(read_run, run_paths[k + 1], **read))
            r = ahead[k].result()
            ahead[k] = None  # let the arrays go once evaluated
            ev, up, warning = evaluate_one(r, path, ms, index, rel_level, ties, max_depth, complete,
                                           compat, top_grade if bounds else None)
            out.append(EvaluatedRun(ev, up, warning, r.tag or str(path)))
    return out


def evaluate_runs(qrels, runs, measure_names=(), *, paths=None, rel_level: int = 1,
                  ties: str = "trec_eval", max_depth: int | None = None, complete: bool = False,
                  compat: int = 10, bounds: bool = False) -> list[EvaluatedRun]:
    """The same on a read qrels (formats.trec.Qrels) and read runs (formats.trec.Run),
    in this process; `paths` name the runs in messages (default: their own paths)."""
    ms = _measures(measure_names)
    index, top_grade = qrels_index(qrels, rel_level)
    out = []
    for k, r in enumerate(runs):
        path = paths[k] if paths else r.path
        ev, up, warning = evaluate_one(r, path, ms, index, rel_level, ties, max_depth, complete,
                                       compat, top_grade if bounds else None)
        out.append(EvaluatedRun(ev, up, warning, r.tag or str(path)))
    return out
