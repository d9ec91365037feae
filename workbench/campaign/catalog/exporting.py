"""Exports (DESIGN §4): judgments (current or full history) as CSV/JSONL, qrels as TREC
text, scores as CSV. Rows are plain records streamed from one read transaction; the
writers live in `formats/` (judgments.py, trec.py).

`write_output` writes through `formats.output.atomic_output`: a regular file is replaced
atomically (a reader never sees half an export, a failed export leaves the old file), a
FIFO or device is written in place, and `-` or no path means stdout.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TextIO

from workbench.campaign.database import Database
from workbench.campaign.scoring.qrels import QrelsArrays, derive_qrels
from workbench.errors import NotFoundError, UsageError
from workbench.formats.csv_cells import csv_writer
from workbench.formats.judgments import JudgmentRow, write_judgments
from workbench.formats.output import atomic_output
from workbench.formats.trec import write_qrels
from workbench.store.export_rows import current_judgment_rows, judgment_event_rows
from workbench.store.external_ids import assessor_id

JUDGMENT_FORMATS = ("csv", "jsonl")


def _assessor_filter(session, assessor: str | None) -> int | None:
    if assessor is None:
        return None
    aid = assessor_id(session, assessor)
    if aid is None:
        raise NotFoundError(f"unknown assessor {assessor!r}")
    return aid


def _current_rows(session, aid: int | None) -> Iterator[JudgmentRow]:
    for q, d, a, grade, note, seconds, at in current_judgment_rows(session, aid):
        yield JudgmentRow(q, d, a, grade, note or "", seconds or 0.0, at)


def _history_rows(session, aid: int | None) -> Iterator[JudgmentRow]:
    for q, d, a, grade, note, seconds, at, kind in judgment_event_rows(session, aid):
        yield JudgmentRow(q, d, a, grade, note or "", seconds or 0.0, at, kind)


def judgment_rows(
    db: Database, *, assessor: str | None = None, history: bool = False
) -> list[JudgmentRow]:
    """Current judgments sorted by (query, document, assessor), or with `history` every
    judgment_event in the order it happened (`event` = its kind, `grade` = the new grade)."""
    with db.read() as session:
        aid = _assessor_filter(session, assessor)
        return list((_history_rows if history else _current_rows)(session, aid))


def export_judgments(
    db: Database,
    out: TextIO,
    *,
    format: str = "csv",
    history: bool = False,
    assessor: str | None = None,
) -> int:
    """Write judgments (or their history) to `out`, streaming; return the row count.

    CSV header: query,document,assessor,grade,note,seconds,updated_at (+ event)."""
    if format not in JUDGMENT_FORMATS:
        raise UsageError(f"unknown judgments format {format!r}; expected csv or jsonl")
    with db.read() as session:
        aid = _assessor_filter(session, assessor)
        rows = (_history_rows if history else _current_rows)(session, aid)
        return write_judgments(rows, out, format=format, history=history)


def qrels_for(
    db: Database, *, assessor: str | None = None, consensus: str | None = None
) -> QrelsArrays:
    """The qrels of exactly one source (campaign.scoring.qrels), sorted by qid then docno."""
    if (assessor is None) == (consensus is None):
        raise UsageError("give exactly one of --assessor NAME or --consensus METHOD")
    return derive_qrels(db, assessor=assessor, consensus=consensus)


def export_qrels(
    db: Database, out: TextIO, *, assessor: str | None = None, consensus: str | None = None
) -> int:
    """Write TREC qrels lines `qid 0 docno rel` for one source; return the line count."""
    qrels = qrels_for(db, assessor=assessor, consensus=consensus)
    write_qrels(out, qrels.qid, qrels.docno, qrels.rel)
    return len(qrels)


SCORE_COLUMNS = ("system", "query", "measure", "value")


def export_scores(
    db: Database,
    out: TextIO,
    *,
    measures: list[str] | None = None,
    assessor: str | None = None,
    consensus: str | None = None,
    per_query: bool = False,
) -> int:
    """CSV `system,query,measure,value` of every stored system (query `all` = the mean,
    as in trec_eval), from campaign.scoring.scores; return the row count."""
    from workbench.campaign.scoring.scores import score_campaign

    if assessor is not None and consensus is not None:
        raise UsageError("give either --assessor NAME or --consensus METHOD, not both")
    table = score_campaign(db, measures, assessor=assessor, consensus=consensus)
    writer = csv_writer(out)
    writer.writerow(SCORE_COLUMNS)
    count = 0
    by_name = sorted(range(len(table.queries)), key=table.queries.__getitem__)
    for i, system in enumerate(table.systems):
        if per_query:
            for j in by_name:
                if not table.present[i, j]:
                    continue
                for label, measure in zip(table.labels, table.measures):
                    writer.writerow([system, table.queries[j], label,
                                     _value(measure, table.values[measure][i, j])])
                    count += 1
        for label, measure in zip(table.labels, table.measures):
            writer.writerow([system, "all", label, _value(measure, table.means[measure][i])])
            count += 1
    return count


def _value(measure, v: float) -> str:
    """Counts as integers, everything else with 6 decimals (more than trec_eval's 4)."""
    return str(int(v)) if measure.is_count else f"{float(v):.6f}"


def write_output(path: str | os.PathLike | None, write: Callable[[TextIO], int], stdout: TextIO) -> int:
    """Run `write` on `path` (through atomic_output), or on `stdout` when path is None or '-'."""
    if path is None or os.fspath(path) == "-":
        return write(stdout)
    with atomic_output(path) as fh:
        return write(fh)
