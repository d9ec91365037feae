"""Run files evaluated in this process while threads read the next file ahead.

numpy releases the GIL while it parses, so the qrels and the first run are read together,
then the next run while this one is evaluated; a run's arrays are let go once evaluated.
"""

from __future__ import annotations

from collections.abc import Iterator

from workbench.evaluation.one_run import evaluate_read_run, qrels_index
from workbench.evaluation.results import EvalSettings, RunResult

__all__ = ["evaluate_reading_ahead"]


def evaluate_reading_ahead(qrels_path, run_paths, ms, settings: EvalSettings, bounds: bool,
                           read: dict) -> Iterator[RunResult]:
    """Each run's RunResult, in order; read: read_run's options."""
    from concurrent.futures import ThreadPoolExecutor

    from workbench.formats.trec import default_threads, read_qrels, read_run

    with ThreadPoolExecutor(max_workers=default_threads()) as pool:
        fq = pool.submit(read_qrels, qrels_path, check_duplicates=False,
                         line_numbers=False)
        ahead = [pool.submit(read_run, run_paths[0], **read)]
        index, grade = qrels_index(fq.result(), settings.rel_level)
        for k, path in enumerate(run_paths):
            if k + 1 < len(run_paths):
                ahead.append(pool.submit(read_run, run_paths[k + 1], **read))
            r = ahead[k].result()
            ahead[k] = None  # let the arrays go once evaluated
            yield evaluate_read_run(r, path, ms, index, settings, grade if bounds else None,
                                    "threads")
