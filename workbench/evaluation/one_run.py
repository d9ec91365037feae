"""One read run evaluated against a qrels index, with the checks `eval` reports."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.errors import InputError


@dataclass(frozen=True)
class EvaluatedRun:
    """A run's evaluation, its upper bound (`--bounds`: unjudged retrieved documents at
    the top grade) or None, a warning to print or None, and the run's name (its tag, or
    its path without one)."""

    evaluation: object  # metrics.evaluate.Evaluation
    upper: object | None
    warning: str | None
    name: str


def evaluate_one(r, path, ms, index, rel_level, ties, max_depth, complete, compat, top_grade):
    """(evaluation, upper bound or None, warning or None) for one read run."""
    from workbench.metrics.evaluate import RunArrays, evaluate_many
    from workbench.metrics.qrels_index import DuplicatePairError

    arrays = RunArrays(r.qid, r.docno, r.score, r.last_tag or path, r.rank)  # runid: the last tag, as trec_eval
    kw = dict(rel_level=rel_level, ties=ties, max_depth=max_depth, complete=complete,
              compat=compat, index=index)
    up = None
    try:
        (ev,) = evaluate_many(None, None, None, [arrays], ms, **kw)
        if top_grade is not None:
            (up,) = evaluate_many(None, None, None, [arrays], ms, unjudged_as=top_grade, **kw)
    except DuplicatePairError as exc:
        raise InputError(path, int(r.line[exc.row]), str(exc).replace(" in the run", "")) from None
    except ValueError as exc:
        raise InputError(path, None, str(exc)) from None
    return ev, up, check(ev, path, complete)


def check(ev, path, complete) -> str | None:
    """Refuse a run with no query in the qrels; the warning for missing queries, if any."""
    if not ev.qids:
        raise InputError(path, None, "no query of the run is in the qrels "
                                     "(trec_eval: no queries with both results and relevance info)")
    warning = None
    if ev.missing and not complete:
        warning = (
            f"workbench: warning: {path}: {len(ev.missing)} qrels "
            f"quer{'y' if len(ev.missing) == 1 else 'ies'} missing from the run, not averaged "
            f"(use -c to count them as 0)"
        )
    return warning


def qrels_index(q, rel_level: int):
    """(index, top grade) of read qrels; a duplicate pair is an InputError at its line."""
    from workbench.metrics.qrels_index import DuplicatePairError, QrelsIndex

    try:
        index = QrelsIndex(q.qid, q.docno, q.rel)
    except DuplicatePairError as exc:
        raise InputError(q.path, int(q.line[exc.row]), str(exc).replace(" in the qrels", "")) from None
    top_grade = max(int(q.rel.max()) if len(q) else 1, rel_level, 1)
    return index, top_grade
