"""Exports (docs/architecture.md#command-line-contract): judgments (current or full history) as CSV/JSONL, qrels as TREC
text, scores as CSV. Rows are plain records streamed from one read transaction; the
writers live in `formats/` (judgments.py, trec.py).

`write_output` writes through `formats.output.atomic_output`: a regular file is replaced
atomically (a reader never sees half an export, a failed export leaves the old file), a
FIFO or device is written in place, and `-` or no path means stdout.
"""

from __future__ import annotations

import heapq
import os
from datetime import datetime, timezone
from collections.abc import Callable, Iterator
from typing import TextIO

from workbench.campaign.database import Database
import numpy as np

from workbench.campaign.scoring.qrels import derive_qrels
from workbench.campaign.scoring.sources import QrelsSource
from workbench.errors import UsageError
from workbench.formats.judgments import JudgmentRow, write_judgments
from workbench.formats.output import atomic_output
from workbench.formats.trec import write_qrels

JUDGMENT_FORMATS = ("csv", "jsonl")


def _assessor_filter(session, assessor: str | None) -> int | None:
    if assessor is None:
        return None
    from workbench.campaign.assessors.roster import known_assessor

    return known_assessor(session, assessor)


def _current_rows(session, aid: int | None) -> Iterator[JudgmentRow]:
    from workbench.store.export_rows import current_judgment_rows

    for q, d, a, grade, note, seconds, at in current_judgment_rows(session, aid):
        yield JudgmentRow(q, d, a, grade, note or "", seconds or 0.0, at)


def _history_rows(session, aid: int | None) -> Iterator[JudgmentRow]:
    """Every judgment event and every machine call (event `call:label`, `call:failure` or
    `call:error`, the raw answer as the note: kept for audit), in the order they happened."""
    from workbench.store.export_rows import judgment_event_rows
    from workbench.store.machine import call_rows

    events = (JudgmentRow(q, d, a, grade, note or "", seconds or 0.0, at, kind)
              for q, d, a, grade, note, seconds, at, kind in judgment_event_rows(session, aid))
    calls = (JudgmentRow(c.query, c.document, c.assessor, c.grade, c.raw or c.error, c.seconds,
                         c.at, f"call:{c.outcome}")
             for c in call_rows(session, aid))
    return heapq.merge(events, calls, key=lambda row: _utc(row.updated_at))


def _utc(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)


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


def export_qrels(db: Database, out: TextIO, source: QrelsSource | None = None) -> int:
    """Write TREC qrels lines `qid iter docno rel` for one source (default: the people's
    majority); return the line count. `iter`, which trec_eval reads and ignores, is `0`,
    or `M` on a line whose grade is a machine's label (a hybrid or machine source)."""
    qrels = derive_qrels(db, source)
    iteration = np.where(qrels.machine, MACHINE_ITER, "0") if qrels.machine is not None else "0"
    write_qrels(out, qrels.qid, qrels.docno, qrels.rel, iteration=iteration)
    return len(qrels)


MACHINE_ITER = "M"  # the qrels `iter` of a machine's label in an exported qrels file


def export_scores(
    db: Database,
    out: TextIO,
    *,
    measures: list[str] | None = None,
    source: QrelsSource | None = None,
    per_query: bool = False,
) -> int:
    """CSV `system,query,measure,value` of every stored system (query `all` = the mean,
    as in trec_eval), from campaign.scoring.scores, systems best first by the first measure
    (as `score` lists them); return the row count."""
    from workbench.campaign.scoring.export import ranked_systems, write_long_scores
    from workbench.campaign.scoring.scores import score_campaign

    table = score_campaign(db, measures, source)
    systems = ranked_systems(table, table.labels[0]) if table.labels else None
    return write_long_scores(table, out, per_query, systems)


def write_output(path: str | os.PathLike | None, write: Callable[[TextIO], int], stdout: TextIO) -> int:
    """Run `write` on `path` (through atomic_output), or on `stdout` when path is None or '-'."""
    if path is None or os.fspath(path) == "-":
        return write(stdout)
    with atomic_output(path) as fh:
        return write(fh)
