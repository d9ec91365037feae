"""Run files against an ir_datasets dataset's qrels (`workbench eval irds:ID RUN ...`):
the qrels come from `formats.irds` as arrays, each run file is read (a bad line names its
file and line) and the runs are evaluated by `evaluate_arrays`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from workbench.evaluation.results import EvalSettings, RunResult

__all__ = ["evaluate_on_dataset"]


def evaluate_on_dataset(ds_id: str, run_paths: Sequence, measures, settings: EvalSettings,
                        *, bounds: bool = False, jobs: int | None = None,
                        on_result: Callable[[RunResult], None] | None = None) -> list[RunResult]:
    from dataclasses import asdict

    from workbench.errors import InputError
    from workbench.evaluation.engine import evaluate_arrays
    from workbench.formats import irds
    from workbench.formats.trec import read_run
    from workbench.metrics.evaluate import RunArrays
    from workbench.metrics.qrels_index import DuplicatePairError

    qrels = irds.qrels(ds_id)  # before the runs: an offline dataset fails first, in one line
    runs, names = [], []
    for path in run_paths:
        r = read_run(path, keep_rank=settings.ties == "rank")
        runs.append(RunArrays(r.qid, r.docno, r.score, r.last_tag or str(path), r.rank))
        names.append(r.tag or str(path))
    try:
        return evaluate_arrays(qrels, runs, measures, names=names, **asdict(settings),
                               bounds=bounds, jobs=jobs, on_result=on_result)
    except DuplicatePairError as exc:
        raise InputError(irds.PREFIX + ds_id, None, str(exc)) from None
