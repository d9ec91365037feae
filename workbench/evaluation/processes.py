"""Several runs evaluated by forked worker processes, one run at a time each.

The workers are forked after the qrels index is built (and, for runs of arrays, after the
arrays exist): they share both copy-on-write and send back only the small per-query
results. Threads could not do this: most of the evaluation holds the GIL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from workbench.errors import InputError, WorkbenchError
from workbench.evaluation.results import RunResult

__all__ = ["evaluate_in_processes"]

_JOB: dict = {}  # what forked workers need; set in the parent just before forking


def _work(k: int):
    """In a worker: evaluate run k; the project's errors come back as values (raised in
    run order by the parent)."""
    try:
        return "ok", _JOB["evaluate"](k)
    except InputError as exc:
        return "input", (exc.path, exc.line, exc.reason)
    except WorkbenchError as exc:
        return "other", str(exc)


def evaluate_in_processes(count: int, workers: int,
                          evaluate: Callable[[int], RunResult]) -> Iterator[RunResult]:
    """evaluate(k) for k in range(count), in `workers` forked processes; the results in
    order, and the first run's error (in run order) raised here."""
    import multiprocessing

    _JOB["evaluate"] = evaluate
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for kind, value in pool.imap(_work, range(count)):
                if kind == "input":
                    raise InputError(*value)
                if kind == "other":
                    raise WorkbenchError(value)
                yield value
    finally:
        _JOB.clear()
