"""Importing queries, documents, runs and qrels into the campaign database.

Every import is all-or-nothing: the whole file is read and checked inside ONE write
transaction, and any bad line raises InputError(file, line, reason) before the commit, so
nothing of that import is left behind. Imports run one at a time, on PostgreSQL too
(SERIALIZED below), and wait for other writers as every write does (writing.py). Rows go
in by batches of 10 000: executemany straight to the driver on SQLite, COPY on PostgreSQL
(store/bulk.py); a run is one row of arrays (store/run_arrays.py), so a 1 000 000-line run
takes seconds (bench/import_bench.py); external ids are mapped to database ids as arrays read
once per import (id_maps.py).

Runs and qrels may name queries and documents the database does not know yet: empty stub
rows are created for them (and counted in the summary), to be filled by a later
`import queries` / `import docs`, which update existing rows.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from workbench.campaign.database import Database
from workbench.campaign.catalog.id_maps import Column, IdMaps, column, plainly_valid
from workbench.campaign.scale import not_on_scale, off_scale, scale_grades
from workbench.campaign.writing import IMPORTS, write_transaction
from workbench.errors import InputError
from workbench.formats.textlines import iter_lines
from workbench.metrics.encode import as_bytes
from workbench.metrics.ranking import trec_order
from workbench.names import check_name, first_invalid_id, id_problem
from workbench.store.run_arrays import write_run_arrays
from workbench.store.runs import create_system, run_size, system_id_of
from workbench.store.settings import score_compat

BATCH = 10_000

# progress(stage, done, total); total None when unknown. Stages in order: "reading" (the
# file), "waiting" (for another writer, only if one holds the lock), "writing", and
# "committing": the last call before the commit, after which nothing can fail but the
# commit itself (the CLI stops Ctrl-C from interrupting from there on).
Progress = Callable[[str, int, int | None], None]
# Imports run one at a time on every backend: each reads the known ids, then creates what
# is missing (stub queries and documents, a run's system), which two imports at once would
# both create (store/locking.py).
SERIALIZED = IMPORTS

@dataclass(frozen=True)
class ImportSummary:
    """What an import wrote (all of it committed together)."""

    kind: str  # queries, documents, run, qrels
    path: str
    records: int  # records read from the file
    inserted: int = 0
    updated: int = 0  # existing rows overwritten (queries, documents, changed judgments)
    unchanged: int = 0  # qrels rows equal to the assessor's existing grade
    stub_queries: int = 0
    stub_documents: int = 0
    n_queries: int = 0  # distinct queries in a run or qrels file
    tag: str | None = None
    assessor: str | None = None
    replaced: int = 0  # results of an earlier import of the same run tag, replaced
    outside: int = 0  # qrels rows outside the assessor's assignment (when it has one)

    def message(self) -> str:
        """The one-line summary the CLI prints."""
        name = os.path.basename(self.path)
        stubs = (
            f"created {_n(self.stub_queries, 'stub query', 'stub queries')} and "
            f"{_n(self.stub_documents, 'stub document', 'stub documents')}"
        )
        if self.kind in ("queries", "documents"):
            what = _n(self.records, self.kind[:-1] if self.kind == "documents" else "query", self.kind)
            return f"imported {what} from {name} ({self.inserted} new, {self.updated} updated)"
        if self.kind == "run":
            again = f"; replaced {_n(self.replaced, 'earlier result', 'earlier results')}" if self.replaced else ""
            return (
                f"imported run {self.tag!r} from {name}: {_n(self.inserted, 'result', 'results')} "
                f"for {_n(self.n_queries, 'query', 'queries')} ({stubs}{again})"
            )
        return (
            f"imported {_n(self.records, 'judgment', 'judgments')} by {self.assessor!r} from "
            f"{name} for {_n(self.n_queries, 'query', 'queries')} ({self.inserted} new, "
            f"{self.updated} changed, {self.unchanged} unchanged; {stubs})"
            + (f"; {_n(self.outside, 'grade', 'grades')} outside the assignment of "
               f"{self.assessor!r} (--strict refuses them)" if self.outside else "")
        )


def _shown(value) -> str:
    """An id read from a file, for a message (the reader may give bytes)."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _no_progress(stage: str, done: int, total: int | None) -> None:
    pass


@contextmanager
def _import_transaction(db: Database, progress: Progress, records: Callable[[], int],
                        plain: bool = False):
    """The import's one write transaction (see SERIALIZED), announcing "waiting" and, after
    the body, "committing" with `records()` done. `plain`: the body runs only the store's
    SQL text, so it may get a plain driver connection (campaign.writing.write_transaction)."""
    with write_transaction(
        db, serialize_as=SERIALIZED, on_wait=lambda: progress("waiting", 0, None), plain=plain,
    ) as session:
        yield session
        done = records()
        progress("committing", done, done)


# --- queries and documents: streamed, upserted -------------------------------------------


def _upsert_stream(
    db: Database,
    kind: str,
    path: str,
    table: str,
    records: Iterator,
    to_row: Callable[[object], dict],
    progress: Progress,
) -> ImportSummary:
    """Insert new ext ids, overwrite known ones; one transaction for the whole file."""
    done: list[int] = [0]
    with _import_transaction(db, progress, lambda: done[0]) as session:
        summary = upsert_rows(session, kind, path, table, records, to_row, progress)
        done[0] = summary.records
    return summary


def upsert_rows(session, kind: str, path: str, table: str, records: Iterator,
                to_row: Callable[[object], dict], progress: Progress) -> ImportSummary:
    """`_upsert_stream`'s writing, in the caller's transaction (`import dataset` writes
    queries, documents and qrels in one)."""
    from workbench.store.ext_ids import id_map, insert_texts, update_texts

    inserted = updated = count = 0
    known = id_map(session, table)
    new: list[dict] = []
    changed: list[dict] = []

    def flush() -> None:
        insert_texts(session, table, new)
        update_texts(session, table, changed)
        new.clear()
        changed.clear()

    for record in records:  # (the readers checked the ids: workbench.names)
        row = to_row(record)
        existing = known.get(row["ext_id"])
        if existing is None:
            new.append(row)
            inserted += 1
        else:
            del row["ext_id"]
            row["b_id"] = existing
            changed.append(row)
            updated += 1
        count += 1
        if len(new) + len(changed) >= BATCH:
            flush()
            progress("writing", count, None)
    flush()
    progress("writing", count, count)
    return ImportSummary(kind, path, count, inserted=inserted, updated=updated)


def import_queries(
    db: Database, path: str | os.PathLike, *, format: str | None = None,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import a topic file (TSV, JSONL or TREC); known query ids get the file's text."""
    name = os.fspath(path)
    from workbench.formats.topics import read_topics  # on use: `import run` needs neither reader

    records = read_topics(name, format)
    return _upsert_stream(
        db, "queries", name, "query", records,
        lambda t: {"ext_id": t.id, "title": t.title, "description": t.description,
                   "narrative": t.narrative},
        progress or _no_progress,
    )


def import_documents(
    db: Database, path: str | os.PathLike, *, format: str | None = None,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import a document collection (TSV, JSONL or TREC); known ids get the file's text."""
    name = os.fspath(path)
    from workbench.formats.documents import read_documents

    records = read_documents(name, format)
    return _upsert_stream(
        db, "documents", name, "document", records,
        lambda d: {"ext_id": d.id, "title": d.title, "text": d.text, "url": d.url},
        progress or _no_progress,
    )


# --- runs and qrels: parsed whole (arrays), then written -----------------------------------


def _distinct(values) -> tuple[list[str], np.ndarray]:
    """Distinct external ids in byte order, decoded, and each row's index among them."""
    col = column(values)
    return [b.decode("utf-8") for b in col.distinct.tolist()], col.codes


def _check_ids(path: str, parsed, values, what: str) -> None:
    """Ids that could not be written back (workbench.names: whitespace, control characters,
    a leading '#', longer than the column), named with the line of their first use."""
    if plainly_valid(values):
        return
    ids, inverse = _distinct(values)
    bad = first_invalid_id(ids, what)
    if bad is not None:
        code, reason = bad
        first = int(np.flatnonzero(inverse == code)[0])
        raise InputError(path, _line_of(path, parsed, first), reason)


def _line_of(path: str, parsed, index: int) -> int | None:
    """The file line of the `index`-th record: from the reader's line array when it has
    one, else by counting data lines (blank and `#` lines are not records)."""
    lines = getattr(parsed, "line", None)
    if lines is None:
        lines = getattr(parsed, "lines", None)
    if lines is not None:
        return int(lines[index])
    seen = -1
    for number, text in iter_lines(path):
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        seen += 1
        if seen == index:
            return number
    return None


def _read_run(path: str):
    from workbench.formats.trec import read_run

    return read_run(path)


def _read_qrels(path: str):
    from workbench.formats.trec import read_qrels

    return read_qrels(path)


def _run_tag(path: str, run, name: str | None) -> str:
    if name is not None:
        if not name.strip():
            raise InputError(path, None, "--name must not be empty")
        return _checked_tag(path, name.strip())
    tags = tuple(getattr(run, "tags", ()) or (run.tag,))
    if len(tags) > 1:
        raise InputError(
            path, _first_line_with_other_tag(path, tags[0]),
            f"run tag {tags[1]!r} differs from {tags[0]!r} on the first line; a run file holds "
            "one system (split the file, or pass --name to import it all under one tag)",
        )
    return _checked_tag(path, tags[0])


def _checked_tag(path: str, tag: str) -> str:
    problem = id_problem(tag, "run tag")
    if problem is not None:
        raise InputError(path, None, problem)
    return tag


def _first_line_with_other_tag(path: str, tag: str) -> int | None:
    """Error path only: rescan the file for the first result line with another tag."""
    for number, text in iter_lines(path):
        cols = text.split()
        if len(cols) == 6 and not cols[0].startswith("#") and cols[5] != tag:
            return number
    return None


@dataclass(frozen=True)
class _ParsedRun:
    """A run file read and checked, ready to write (nothing here touches the database)."""

    path: str
    tag: str
    queries: Column
    docno: np.ndarray  # S, one per row
    order: np.ndarray  # the rows in trec_eval 10's order (metrics.ranking.trec_order)
    scores: np.ndarray

    @property
    def n(self) -> int:
        return len(self.scores)


def _parse_run(path: str, name: str | None) -> _ParsedRun:
    run = _read_run(path)
    if len(run.qid) == 0:
        raise InputError(path, None, "the run file has no results")
    tag = _run_tag(path, run, name)
    _check_ids(path, run, run.qid, "query id")
    _check_ids(path, run, run.docno, "document id")
    queries, docno = column(run.qid), as_bytes(run.docno)
    scores = np.asarray(run.score, dtype=float)
    order = trec_order(queries.codes, scores, docno)
    return _ParsedRun(path, tag, queries, docno, order, scores)


def import_run(
    db: Database, path: str | os.PathLike, *, name: str | None = None, replace: bool = False,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import a TREC run as system `name` (default: the file's tag).

    Re-importing a tag that is already there is refused unless `replace`, which swaps its
    results for the file's in the same transaction.
    """
    progress = progress or _no_progress
    progress("reading", 0, None)
    run = _parse_run(os.fspath(path), name)
    with _import_transaction(db, progress, lambda: run.n, plain=True) as session:
        return _write_run(session, run, replace, IdMaps(session), progress)


def import_runs(
    db: Database, paths: Sequence[str | os.PathLike], *, replace: bool = False,
    progress: Progress | None = None,
) -> list[ImportSummary]:
    """Import several TREC runs (each under its file's tag) in ONE transaction: every file is
    read and checked first, so a bad line in any of them writes nothing. The id maps are
    read once for all files (per file, they cost more than the inserts on a big campaign)."""
    progress = progress or _no_progress
    progress("reading", 0, len(paths))
    runs = []
    seen: dict[str, str] = {}
    for i, path in enumerate(paths):
        run = _parse_run(os.fspath(path), None)
        if run.tag in seen:
            raise InputError(run.path, None, f"run tag {run.tag!r} is also the tag of {seen[run.tag]}")
        seen[run.tag] = run.path
        runs.append(run)
        progress("reading", i + 1, len(paths))
    total = sum(run.n for run in runs)
    with _import_transaction(db, progress, lambda: total, plain=True) as session:
        maps = IdMaps(session)
        return [_write_run(session, run, replace, maps, progress) for run in runs]


def _write_run(session, run: _ParsedRun, replace: bool, maps: IdMaps,
               progress: Progress) -> ImportSummary:
    """Write one checked run in the caller's transaction (a session, or a plain driver
    connection: only the store's SQL text runs here): its system, stubs and stored arrays
    (the one copy of a run)."""
    path, tag, n = run.path, run.tag, run.n
    replaced = 0
    system_id = system_id_of(session, tag)
    if system_id is not None:
        replaced = run_size(session, system_id)
        if not replace:
            raise InputError(
                path, None,
                f"run {tag!r} is already imported ({_n(replaced, 'result', 'results')}); pass --replace to "
                "replace it, or --name to import it under another tag",
            )
    else:
        system_id = create_system(session, tag)
    q_ids, stub_q = maps.ids("query", run.queries.distinct)
    q_ids = q_ids[run.queries.codes]
    d_ids, stub_d = maps.ids("document", run.docno)
    # trec_eval's order (the campaign's score order: read here, in the write transaction
    # that `campaign --compat` re-sorts the stored runs in), queries regrouped by database id
    compat = score_compat(session)
    order = run.order if compat == 10 else trec_order(run.queries.codes, run.scores, run.docno, compat=compat)
    stored = order[np.argsort(q_ids[order], kind="stable")]
    write_run_arrays(session, system_id, q_ids[stored], d_ids[stored], run.scores[stored])
    progress("writing", n, n)
    return ImportSummary(
        "run", path, n, inserted=n, stub_queries=stub_q, stub_documents=stub_d,
        n_queries=len(run.queries.distinct), tag=tag, replaced=replaced,
    )


def import_qrels(
    db: Database, path: str | os.PathLike, *, assessor: str, note: str | None = None,
    progress: Progress | None = None, machine=None, strict: bool = False,
) -> ImportSummary:
    """Import a TREC qrels file as `assessor`'s judgments.

    Each row sets the assessor's grade and appends a judgment_event (`set` for a new
    judgment, `change` when it replaces a different grade; an equal grade is left alone),
    and a grade removes the assessor's can't-judge mark on the item: the judging rules
    (judging.grades.write_imported_grades).
    Grades outside the campaign scale are refused with their line; a negative grade is
    trec_eval's "in the pool, unjudged" and is stored as written (campaign/scale.py
    `is_unjudged`: the qrels sources and exports keep it, nothing counts it as a grade).
    When the assessor has an assignment (a queue), the rows for items outside it are
    counted in the summary; `strict` refuses them (the first one's line; nothing written).

    `machine` (a store.machine.Provenance): the labels are a model's, made elsewhere; the
    assessor is a machine assessor with that provenance (created in the same transaction,
    refused when the name is a person's or a machine made with another model or prompt).
    Without it, a machine assessor's name is refused.
    """
    path = os.fspath(path)
    progress = progress or _no_progress
    if not assessor or not assessor.strip():
        raise InputError(path, None, "importing qrels needs an assessor (--assessor NAME)")
    assessor = check_name(assessor)  # before anything is read or written
    note = note if note is not None else f"imported from {os.path.basename(path)}"
    progress("reading", 0, None)
    qrels = _read_qrels(path)
    with _import_transaction(db, progress, lambda: len(qrels.qid)) as session:
        return write_qrels(session, path, qrels, assessor, note, progress, machine, strict)


def write_qrels(session, path: str, qrels, assessor: str, note: str, progress: Progress,
                machine=None, strict: bool = False) -> ImportSummary:
    """`import_qrels`'s writing, in the caller's transaction (`import dataset` writes
    queries, documents and qrels in one): qrels are (qid, docno, rel) arrays."""
    from workbench.campaign.assessors.roster import get_or_create_assessor
    from workbench.campaign.judging.grades import write_imported_grades
    from workbench.store.imported_grades import assessor_assignment, assessor_judgments

    n = len(qrels.qid)
    rel = np.asarray(qrels.rel, dtype=np.int64)
    allowed = scale_grades(session)
    bad = off_scale(rel, allowed, unjudged=True)  # a negative grade: trec_eval's unjudged
    if len(bad):
        i = int(bad[0])
        raise InputError(path, _line_of(path, qrels, i), not_on_scale(int(rel[i]), allowed))
    if machine is None:
        aid = get_or_create_assessor(session, assessor)
    else:
        from workbench.campaign.machine.provenance import ensure_machine

        aid = ensure_machine(session, assessor, machine)
    _check_ids(path, qrels, qrels.qid, "query id")
    _check_ids(path, qrels, qrels.docno, "document id")
    queries = column(qrels.qid)
    maps = IdMaps(session)
    q_ids, stub_q = maps.ids("query", queries.distinct)
    q_ids = q_ids[queries.codes]
    d_ids, stub_d = maps.ids("document", as_bytes(qrels.docno))
    # The assessor's current judgments, matched to the file's rows by (query, document).
    ex = assessor_judgments(session, aid)
    queue = assessor_assignment(session, aid)
    width = int(max(d_ids.max(initial=0), ex[:, 1].max(initial=0),
                    queue[:, 1].max(initial=0))) + 1
    keys = q_ids * width + d_ids
    outside = np.zeros(n, dtype=bool)
    if len(queue):  # an assessor with a queue: say which grades fall outside it
        outside = ~np.isin(keys, queue[:, 0] * width + queue[:, 1])
        if strict and outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise InputError(path, _line_of(path, qrels, i), (
                f"{int(outside.sum())} of {n} grades are outside the assignment of "
                f"{assessor!r} (the first: query {_shown(qrels.qid[i])}, document "
                f"{_shown(qrels.docno[i])}); "
                "--strict refuses them: nothing was written"))
    ex_keys = ex[:, 0] * width + ex[:, 1]
    order = np.argsort(ex_keys)
    pos = np.minimum(np.searchsorted(ex_keys[order], keys), max(len(ex_keys) - 1, 0))
    found = (ex_keys[order][pos] == keys) if len(ex_keys) else np.zeros(n, dtype=bool)
    old_grade = np.where(found, ex[order, 2][pos] if len(ex_keys) else 0, -1)
    old_id = np.where(found, ex[order, 3][pos] if len(ex_keys) else 0, -1)
    is_new = ~found
    is_change = found & (old_grade != rel)
    inserted, updated = int(is_new.sum()), int(is_change.sum())
    unchanged = n - inserted - updated
    # Write in (query, document) order: index pages fill in sequence (file order has
    # documents in random order within a query; SQLite took 1.6x longer on it).
    by_key = np.argsort(keys, kind="stable")
    q_ids, d_ids, rel = q_ids[by_key], d_ids[by_key], rel[by_key]
    is_new, is_change = is_new[by_key], is_change[by_key]
    old_grade, old_id = old_grade[by_key], old_id[by_key]

    # the judging rules decide what each row writes (and that a grade clears a mark)
    write_imported_grades(session, aid, note, q_ids, d_ids, rel, is_new, is_change,
                          old_grade, old_id, batch=BATCH,
                          progress=lambda done, total: progress("writing", done, total))
    progress("writing", n, n)
    return ImportSummary(
        "qrels", path, n, inserted=inserted, updated=updated, unchanged=unchanged,
        stub_queries=stub_q, stub_documents=stub_d, n_queries=len(queries.distinct), assessor=assessor,
        outside=int(outside.sum()),
    )
