"""Qrels and runs given as Python objects, read into the arrays the evaluation engine
takes: ``{qid: {doc_id: value}}`` dicts, pandas DataFrames with ir_measures' column names
(``query_id``, ``doc_id``, ``relevance`` / ``score``), any iterable of records with those
attributes (ir_datasets' ``qrels_iter()``, ir_measures' ``Qrel`` / ``ScoredDoc``), or the
path of a TREC file (``"irds:ID"`` for a dataset's qrels). The public API (`workbench.api`)
is the one caller; pandas is never imported here. A score or grade that is no finite
number is a ValueError naming its query and document, as a file's line would be.

Speed, not rules: the engine owns trec_eval's order (`metrics.ranking`). Two dicts are
joined by dict operations (`joined`) so that no million document ids become an array, and
their rows handed over by score, so that the engine only checks the order and orders the
tied rows by id.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterable, Mapping
from typing import NamedTuple

import numpy as np

__all__ = ["DictQrels", "Joined", "dict_qrels", "joined", "qrels_arrays", "run_arrays"]

_chain = itertools.chain.from_iterable
_EXACT = float(2 ** 53)  # grades beyond it do not round-trip through a double


def _is_path(x) -> bool:
    return isinstance(x, (str, os.PathLike))


def _is_frame(x) -> bool:
    return type(x).__module__.startswith("pandas") and hasattr(x, "columns")


def _ids(values) -> np.ndarray:
    """Ids (a list or an array) as a numpy array the engine takes: bytes where they are
    ASCII, else str."""
    try:
        if isinstance(values, np.ndarray):
            return values if values.dtype.kind == "S" else values.astype("S")
        return np.array(values, dtype="S")
    except UnicodeEncodeError:
        return np.array([str(v) for v in values.tolist()] if isinstance(values, np.ndarray)
                        else [str(v) for v in values])


def _integer_grades(rel: np.ndarray) -> np.ndarray:
    grades = rel.astype(np.int64)
    if not np.array_equal(grades, rel):
        raise ValueError("qrels: grades must be integers (as in a TREC qrels file)")
    return grades


def _from_nested(d: Mapping, what: str):
    """(qid, docno, value) arrays of a {qid: {docid: value}} dict."""
    inner = list(d.values())
    for q, docs in zip(d, inner):
        if not isinstance(docs, Mapping):
            raise TypeError(f"{what}: query {q!r} maps to {type(docs).__name__}, "
                            f"not a {{doc_id: value}} dict")
    sizes = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    value = _numbers(list(d), inner, int(sizes.sum()), what)
    docno = _ids(list(_chain(inner)))
    qid = np.repeat(_ids([str(q) for q in d]), sizes)
    return qid, docno, value


def _is_finite(v) -> bool:
    """A value float() takes, finite (as a TREC file's scores must be); never None, which
    numpy would read as NaN."""
    try:
        return v is not None and math.isfinite(float(v))
    except (TypeError, ValueError, OverflowError):
        return False


def _not_finite(what: str, where: str, column: str, v) -> ValueError:
    return ValueError(f"{what}: {where}: the {column} {v!r} is not a finite number")


def _numbers(qids: list, inner: list, total: int, what: str) -> np.ndarray:
    """Every value of the {doc_id: value} dicts `inner` as float64, in order. A value that
    is no finite number (None included) is a ValueError naming its query and document."""
    try:
        value = np.fromiter(_chain(v.values() for v in inner), dtype=np.float64, count=total)
    except (TypeError, ValueError, OverflowError):
        value, suspects = None, range(len(inner))
    else:
        bad = np.flatnonzero(~np.isfinite(value))
        if bad.size == 0:
            return value
        ends = np.cumsum(np.fromiter(map(len, inner), dtype=np.int64, count=len(inner)))
        suspects = np.unique(np.searchsorted(ends, bad, side="right")).tolist()
    column = "grade" if what == "qrels" else "score"
    for k in suspects:
        for doc, v in inner[k].items():
            if not _is_finite(v):
                raise _not_finite(what, f"query {qids[k]!r}, document {doc!r}", column, v)
    raise AssertionError("a value numpy could not read, but float() could")  # pragma: no cover


# ---------------------------------------------------------------- two dicts


class DictQrels(NamedTuple):
    """{qid: {docid: grade}} qrels read once for `joined`, however many runs join them.

    arrays: (qid, docno, rel) for the engine, the docno being distinct codes that stand in
    for the ids (the grades are joined already, so no document is looked up by id)."""

    by_query: Mapping
    arrays: tuple
    grades: np.ndarray  # every grade, int64 (the arrays' rel)


class Joined(NamedTuple):
    """A run joined with DictQrels: its rows by score with their grades.

    docno: the run's ids in row order, built only where a query has tied scores (the engine
    orders those by id), else None. grades: each row's grade as the engine's lookup gives it
    (NONPOOL where the qrels lack the document, UNJUDGED for a negative grade)."""

    qid: np.ndarray
    docno: np.ndarray | None
    score: np.ndarray
    grades: np.ndarray


def _str_dicts(d: Mapping) -> tuple[list, list] | None:
    """(keys, values) of d where its keys are str and its values dicts, else None."""
    keys, inner = list(d), list(d.values())
    if not all(type(q) is str for q in keys) or not all(type(v) is dict for v in inner):
        return None
    return keys, inner


def dict_qrels(qrels: Mapping) -> DictQrels | None:
    """{qid: {docid: grade}} qrels with str ids and integer grades, ready for `joined`, or
    None where the join does not apply (ids that are not str, grades beyond 2**53)."""
    side = _str_dicts(qrels)
    if side is None:
        return None
    qq, qinner = side
    try:
        for v in qinner:
            "".join(v)  # a TypeError: an id that is not a str
    except TypeError:
        return None
    qsizes = np.fromiter(map(len, qinner), dtype=np.int64, count=len(qinner))
    rel = _numbers(qq, qinner, int(qsizes.sum()), "qrels")
    grades = _integer_grades(rel)
    if rel.size and np.abs(rel).max() >= _EXACT:
        return None
    codes = np.arange(rel.size, dtype="<u8").view("S8")  # distinct, as the qrels' keys are
    return DictQrels(qrels, (np.repeat(_ids(qq), qsizes), codes, grades), grades)


def joined(run: Mapping, qrels: Mapping | DictQrels) -> Joined | None:
    """A {qid: {docid: score}} run joined with {qid: {docid: grade}} qrels (or their
    `dict_qrels`), or None where this path does not apply (then the arrays of each and the
    engine's lookup do the work).

    Speed only. Each query's grades come from ``run[q].copy().update(qrels[q])``: C does
    the lookups, and the copy's first values are the scores, with a grade in place of each
    judged document's. A grade equal to the score it replaces is checked by key. Ids must
    be str on both sides (elsewhere the arrays path matches 5 with "5"), the scores finite.
    Each query's ids, scores and grades are read in one visit, while they are in cache."""
    from workbench.metrics.qrels_index import NONPOOL, UNJUDGED
    from workbench.metrics.ranking import sort_in_groups

    dq = qrels if isinstance(qrels, DictQrels) else dict_qrels(qrels)
    r_side = _str_dicts(run)
    if dq is None or r_side is None:
        return None
    rq, inner = r_side
    by_query, given = dq.by_query.get, dq.grades
    sizes = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    n = int(sizes.sum())
    if n == 0 or n < 32 * sizes.size:  # a visit per query pays only where queries are not tiny
        return None
    score = np.empty(n, dtype=np.float64)
    merged = np.empty(n, dtype=np.float64)
    at = 0
    try:
        for q, docs, k in zip(rq, inner, sizes.tolist()):
            "".join(docs)  # a TypeError: an id that is not a str
            score[at:at + k] = np.fromiter(docs.values(), dtype=np.float64, count=k)
            judged = by_query(q)
            if judged:
                c = docs.copy()
                c.update(judged)
                merged[at:at + k] = np.fromiter(c.values(), dtype=np.float64, count=k)
            else:
                merged[at:at + k] = score[at:at + k]
            at += k
    except (TypeError, ValueError):  # or a score that is no number: the arrays path names it
        return None
    if not np.isfinite(score).all():  # the arrays path names the score
        return None
    starts = np.cumsum(sizes) - sizes
    order = sort_in_groups(-score, starts)  # by score, each query in place
    if order is None:  # queries too unequal for one 2-D sort: the engine sorts
        return None
    found = merged != score
    # a judged document whose grade equals its score (1.0 and grade 1): look its key up
    maybe = np.flatnonzero(~found & (score >= given.min(initial=0)) & (score <= given.max(initial=0)))
    maybe = maybe[np.isin(score[maybe], given)]
    if maybe.size:
        which = np.searchsorted(starts, maybe, side="right") - 1
        for k in np.unique(which).tolist():
            judged = by_query(rq[k])
            if judged:
                keys = list(inner[k])
                rows = maybe[which == k]
                found[rows] = [keys[p] in judged for p in (rows - starts[k]).tolist()]
    rows = np.flatnonzero(found)
    g = merged[rows]
    grades = np.full(n, NONPOOL, dtype=np.int64)
    grades[rows] = np.where(g < 0, UNJUDGED, g)
    score, grades = score[order], grades[order]
    # a tie at float precision (compat 9) is one at double precision too, or next to it
    sc = score.astype(np.float32)
    same = sc[1:] == sc[:-1]
    ends = starts[1:]  # a query's last row and the next one's first never tie
    same[ends[(ends > 0) & (ends < n)] - 1] = False
    docno = _ids(list(_chain(inner)))[order] if same.any() else None  # the engine orders ties by id
    return Joined(np.repeat(_ids(rq), sizes), docno, score, grades)


# ---------------------------------------------------------------- one at a time


def _from_frame(df, column: str, what: str):
    for c in ("query_id", "doc_id", column):
        if c not in df.columns:
            raise ValueError(f"{what}: the DataFrame has no column {c!r} (ir_measures' names: "
                             f"query_id, doc_id, {column})")
    # few distinct query ids: encode each once (pandas' factorize), not once a row
    codes, queries = df["query_id"].factorize(use_na_sentinel=False)
    qid, docno = _ids(queries.to_numpy())[codes], _ids(df["doc_id"].to_numpy())
    try:
        value = df[column].to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        value = None
    if value is None or not np.isfinite(value).all():  # a missing value reads as NaN
        cells = df[column].tolist()
        k = next(k for k, v in enumerate(cells) if not _is_finite(v))
        where = f"row {k} (query {df['query_id'].iloc[k]!r}, document {df['doc_id'].iloc[k]!r})"
        raise _not_finite(what, where, column, cells[k])
    return qid, docno, value


def _from_records(records: Iterable, column: str, what: str):
    qids, docs, values = [], [], []
    for k, r in enumerate(records):
        try:
            qids.append(str(r.query_id))
            docs.append(str(r.doc_id))
            values.append(getattr(r, column))
        except AttributeError:
            raise TypeError(f"{what}: record {k} ({r!r}) has no query_id, doc_id and "
                            f"{column}") from None
    try:
        value = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        value = None
    if value is None or not np.isfinite(value).all():  # None reads as NaN: name the first
        for k, v in enumerate(values):
            if not _is_finite(v):
                raise _not_finite(what, f"record {k} (query {qids[k]!r}, document {docs[k]!r})",
                                  column, v)
    return _ids(qids), _ids(docs), value


def _from_object(x, column: str, what: str):
    """(qid, docno, value) of a DataFrame, a {qid: {doc_id: value}} dict or records."""
    if _is_frame(x):
        return _from_frame(x, column, what)
    if isinstance(x, Mapping):
        return _from_nested(x, what)
    return _from_records(x, column, what)


def qrels_arrays(qrels):
    """(qid, docno, rel) of qrels in any accepted form; rel as int64."""
    if isinstance(qrels, str) and qrels.startswith("irds:"):  # an ir_datasets dataset's
        from workbench.formats.irds import qrels as dataset_qrels

        q = dataset_qrels(qrels[len("irds:"):])
        return q.qid, q.docno, q.rel
    if _is_path(qrels):
        from workbench.formats.trec import read_qrels

        q = read_qrels(qrels, check_duplicates=False, line_numbers=False)
        return q.qid, q.docno, q.rel
    qid, docno, rel = _from_object(qrels, "relevance", "qrels")
    return qid, docno, _integer_grades(rel)


def run_arrays(run, name: str):
    """The engine's RunArrays of a run in any accepted form, rows as given."""
    from workbench.metrics.evaluate import RunArrays

    if _is_path(run):
        from workbench.formats.trec import read_run

        r = read_run(run, check_duplicates=False, all_tags=False, line_numbers=False)
        return RunArrays(r.qid, r.docno, r.score, r.last_tag or str(run))
    qid, docno, score = _from_object(run, "score", "run")
    return RunArrays(qid, docno, score, name)
