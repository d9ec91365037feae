"""The evaluation engine's entry points: run files or runs of arrays in, one RunResult
per run out, in the order given, evaluated the fastest way the input allows
(see `workbench.evaluation.strategy`).

Errors: a bad file or line is an InputError naming the file and line (the first bad run
in run order, whatever the strategy); a run with no query in the qrels is an InputError.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from workbench.evaluation.results import EvalSettings, RunResult

__all__ = ["evaluate_arrays", "evaluate_files"]


def _parsed(measures) -> tuple:
    """Measures as given (Measure objects), or parsed from names."""
    from workbench.metrics.measures import Measure, parse_measures

    ms = list(measures)
    if all(isinstance(m, Measure) for m in ms):
        return tuple(ms)
    return tuple(parse_measures([str(m) for m in ms]))


def _settings(rel_level, ties, max_depth, complete, compat, judged_only=False,
              num_docs=0) -> EvalSettings:
    if rel_level < 0:
        raise ValueError("rel_level must be >= 0")
    if num_docs < 0:
        raise ValueError("num_docs must be >= 0")
    return EvalSettings(rel_level=rel_level, ties=ties, max_depth=max_depth,
                        complete=complete, compat=int(compat), judged_only=bool(judged_only),
                        num_docs=int(num_docs))


def _collect(results, on_result, jobs: int = 1) -> list[RunResult]:
    """The results as a list, each saying how many processes did the work (jobs)."""
    from dataclasses import replace

    out = []
    for result in results:
        result = replace(result, jobs=jobs)
        if on_result is not None:
            on_result(result)
        out.append(result)
    return out


def evaluate_files(qrels_path, run_paths: Sequence, measures, *, rel_level: int = 1,
                   ties: str = "trec_eval", max_depth: int | None = None,
                   complete: bool = False, compat: int = 10, judged_only: bool = False,
                   num_docs: int = 0, bounds: bool = False, jobs: int | None = None,
                   on_result: Callable[[RunResult], None] | None = None) -> list[RunResult]:
    """Evaluate TREC run files against a TREC qrels file, as `trec_eval` would.

    measures: Measure objects or names; the settings are trec_eval's (see EvalSettings);
    bounds: also give each run's upper bound (RunResult.upper); jobs: worker processes
    (None: as many as the sizes make worth it, up to WORKBENCH_THREADS or the usable
    cores, see `workbench.evaluation.strategy`; 1: none);
    on_result: called with each run's result as soon as it and those before it are done
    (`eval` prints the missing-query warnings then, before a later run's error).
    """
    from workbench.evaluation.strategy import plan_for_files

    ms = _parsed(measures)
    settings = _settings(rel_level, ties, max_depth, complete, compat, judged_only, num_docs)
    paths = list(run_paths)
    if not paths:
        return []
    # no line numbers: an error reads its file again for them (one_run._line)
    read = dict(keep_rank=ties == "rank", check_duplicates=False, all_tags=False,
                line_numbers=False)
    plan = plan_for_files(paths, jobs, bounds, qrels_path)
    if plan.kind == "split":
        from workbench.evaluation.one_run import checked_result
        from workbench.evaluation.split import evaluate_split

        split = evaluate_split(qrels_path, paths[0], list(plan.cuts), ms, **_kwargs(settings))
        if split is not None:  # else: evaluated in this process, which reports any error
            ev, first_tag = split
            return _collect([checked_result(paths[0], first_tag or paths[0], ev, None,
                                            settings.complete, "split")], on_result,
                            plan.jobs)
    if plan.kind == "processes":
        return _collect(_files_in_processes(qrels_path, paths, ms, settings, bounds, read,
                                            plan.workers), on_result, plan.jobs)
    from workbench.evaluation.threads import evaluate_reading_ahead

    return _collect(evaluate_reading_ahead(qrels_path, paths, ms, settings, bounds, read),
                    on_result)


def _kwargs(settings: EvalSettings) -> dict:
    return dict(rel_level=settings.rel_level, ties=settings.ties, max_depth=settings.max_depth,
                complete=settings.complete, compat=settings.compat,
                judged_only=settings.judged_only, num_docs=settings.num_docs)


def _files_in_processes(qrels_path, paths, ms, settings, bounds, read, workers):
    """Read the qrels here, then each run read and evaluated by a forked worker."""
    from workbench.evaluation.one_run import evaluate_read_run, qrels_index
    from workbench.evaluation.processes import evaluate_in_processes
    from workbench.formats.trec import read_qrels, read_run

    index, grade = qrels_index(read_qrels(qrels_path, check_duplicates=False,
                                          line_numbers=False), settings.rel_level)

    def one(k: int) -> RunResult:
        r = read_run(paths[k], threads=1, **read)
        return evaluate_read_run(r, paths[k], ms, index, settings, grade if bounds else None,
                                 "processes")

    return evaluate_in_processes(len(paths), workers, one)


def evaluate_arrays(qrels, runs: Sequence, measures, *, names: Sequence[str] | None = None,
                    rel_level: int = 1, ties: str = "trec_eval", max_depth: int | None = None,
                    complete: bool = False, compat: int = 10, judged_only: bool = False,
                    num_docs: int = 0, bounds: bool = False, jobs: int | None = None,
                    on_result: Callable[[RunResult], None] | None = None) -> list[RunResult]:
    """Evaluate runs already in memory: qrels as (qid, docno, rel) arrays (or anything
    with those attributes, such as formats.trec.Qrels), runs as metrics' RunArrays.

    names: what to call each run (default: its tag, else ``run<k>``). Options as in
    `evaluate_files`; big enough inputs go to forked workers, which share the arrays
    copy-on-write. Duplicate pairs raise the metrics package's DuplicatePairError.
    """
    from workbench.evaluation.one_run import checked_result, evaluate_run_arrays, top_grade
    from workbench.evaluation.strategy import plan_for_arrays
    from workbench.metrics.qrels_index import QrelsIndex

    ms = _parsed(measures)
    settings = _settings(rel_level, ties, max_depth, complete, compat, judged_only, num_docs)
    qid, docno, rel = (qrels.qid, qrels.docno, qrels.rel) if hasattr(qrels, "qid") else qrels
    runs = list(runs)
    if names is None:
        names = [r.tag or f"run{k}" for k, r in enumerate(runs)]
    index = QrelsIndex(qid, docno, rel)
    grade = top_grade(rel, settings.rel_level) if bounds else None
    plan = plan_for_arrays([len(r.qid) for r in runs], jobs)

    def one(k: int) -> RunResult:
        ev, up = evaluate_run_arrays(runs[k], ms, index, settings, grade)
        return checked_result(names[k], names[k], ev, up, settings.complete, plan.kind)

    if plan.kind == "processes":
        from workbench.evaluation.processes import evaluate_in_processes

        return _collect(evaluate_in_processes(len(runs), plan.workers, one), on_result,
                        plan.jobs)
    return _collect((one(k) for k in range(len(runs))), on_result)
