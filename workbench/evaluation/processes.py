"""Several runs evaluated by worker processes forked after the qrels index is built: the
children share it copy-on-write and send back only the small per-query results. (Threads
could not help: most of the work holds the GIL.)"""

from __future__ import annotations

from workbench.errors import InputError

MIN_PARALLEL_BYTES = 8 << 20  # below this much run text, forking costs more than it saves
_JOB: dict = {}  # what forked workers need; set in the parent just before forking


def default_jobs() -> int:
    """Worker processes: WORKBENCH_THREADS if set, else the number of cores."""
    import os

    env = os.environ.get("WORKBENCH_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    return os.cpu_count() or 1


def use_processes(runs, jobs: int | None) -> int:
    """How many worker processes to evaluate `runs` with (0: evaluate in this one)."""
    import multiprocessing
    import os

    if len(runs) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return 0
    n = min(jobs if jobs is not None else default_jobs(), len(runs))
    if n < 2:
        return 0
    if jobs is None:  # by default only when the files are big enough to be worth it
        try:
            size = sum(os.path.getsize(p) for p in runs)
        except OSError:
            return 0  # let the serial path report the missing file
        if size < MIN_PARALLEL_BYTES:
            return 0
    return n


def _work(k: int):
    """In a worker: read and evaluate run k; errors come back as values, raised in order."""
    from workbench.errors import WorkbenchError
    from workbench.evaluation.one_run import evaluate_one
    from workbench.formats.trec import read_run

    j = _JOB
    path = j["runs"][k]
    try:
        r = read_run(path, threads=1, **j["read"])
        ev, up, warning = evaluate_one(r, path, *j["args"])
        return "ok", (ev, up, warning, r.tag or path)
    except InputError as exc:
        return "input", (exc.path, exc.line, exc.reason)
    except WorkbenchError as exc:
        return "other", str(exc)


def evaluate_in_processes(runs, n, read, args):
    """(evaluation, upper, warning, name) per run, in run order, from n forked workers."""
    import multiprocessing

    from workbench.errors import WorkbenchError

    _JOB.update(runs=list(runs), read=read, args=args)
    try:
        with multiprocessing.get_context("fork").Pool(n) as pool:
            for kind, value in pool.imap(_work, range(len(runs))):
                if kind == "input":
                    raise InputError(*value)
                if kind == "other":
                    raise WorkbenchError(value)
                yield value
    finally:
        _JOB.clear()
