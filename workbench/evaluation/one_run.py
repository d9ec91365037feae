"""One run against one qrels index, with errors that name the file and line.

Every strategy ends here: the threads read ahead and call `evaluate_read_run` in this
process, forked workers call it on the runs they read, and `evaluate_arrays` calls
`evaluate_run_arrays` directly. Duplicates are checked once, by the evaluation's own key
sort; the row it reports maps back to the line through the reader's line numbers.
"""

from __future__ import annotations

from workbench.errors import InputError
from workbench.evaluation.results import EvalSettings, RunResult

__all__ = ["checked_result", "evaluate_read_run", "evaluate_run_arrays", "qrels_index",
           "top_grade"]


def top_grade(rel, rel_level: int) -> int:
    """The grade an unjudged document gets for the upper bound (at least relevant)."""
    return max(int(rel.max()) if len(rel) else 1, rel_level, 1)


def qrels_index(q, rel_level: int):
    """(QrelsIndex, top grade) of a read qrels file; a duplicate names its line."""
    from workbench.metrics.qrels_index import DuplicatePairError, QrelsIndex

    try:
        index = QrelsIndex(q.qid, q.docno, q.rel)
    except DuplicatePairError as exc:
        raise InputError(q.path, _line("qrels", q.path, q.line, exc.row),
                         str(exc).replace(" in the qrels", "")) from None
    return index, top_grade(q.rel, rel_level)


def _line(kind: str, path, line, row: int) -> int:
    """The file line of a row of a read file: from its line numbers, or, where it was read
    without them (the engine's readers: two arrays of a million rows less to build and
    keep), by reading the file again with them (errors only)."""
    if line is None:
        from workbench.formats.trec import read_qrels, read_run

        read = read_qrels if kind == "qrels" else read_run
        line = read(path, check_duplicates=False).line
    return int(line[row])


def evaluate_run_arrays(arrays, ms, index, settings: EvalSettings, grade: int | None):
    """(evaluation, upper bound or None) of one RunArrays; grade: the top grade for the
    upper bound, None for none. Raises the metrics package's ValueErrors."""
    from workbench.metrics.evaluate import evaluate_many

    kw = dict(rel_level=settings.rel_level, ties=settings.ties, max_depth=settings.max_depth,
              complete=settings.complete, compat=settings.compat, index=index,
              judged_only=settings.judged_only, num_docs=settings.num_docs)
    (ev,) = evaluate_many(None, None, None, [arrays], ms, **kw)
    up = None
    if grade is not None:
        (up,) = evaluate_many(None, None, None, [arrays], ms, unjudged_as=grade, **kw)
    return ev, up


def evaluate_read_run(r, path, ms, index, settings: EvalSettings, grade: int | None,
                      strategy: str) -> RunResult:
    """The RunResult of one read run file (formats.trec.Run)."""
    from workbench.metrics.evaluate import RunArrays
    from workbench.metrics.qrels_index import DuplicatePairError

    arrays = RunArrays(r.qid, r.docno, r.score, r.last_tag or path, r.rank)  # runid: the last tag, as trec_eval
    try:
        ev, up = evaluate_run_arrays(arrays, ms, index, settings, grade)
    except DuplicatePairError as exc:
        raise InputError(path, _line("run", path, r.line, exc.row),
                         str(exc).replace(" in the run", "")) from None
    except ValueError as exc:
        raise InputError(path, None, str(exc)) from None
    return checked_result(path, r.tag or path, ev, up, settings.complete, strategy)


def checked_result(path, name, ev, up, complete: bool, strategy: str) -> RunResult:
    """The RunResult, refusing a run with no query in the qrels (as trec_eval does)."""
    if not ev.qids:
        raise InputError(path, None, "no query of the run is in the qrels "
                                     "(trec_eval: no queries with both results and relevance info)")
    unaveraged = () if complete else tuple(ev.missing)
    return RunResult(str(path), name, ev, up, unaveraged, strategy)
