"""Writers for `workbench export judgments` (docs/architecture.md#command-line-contract): CSV and JSON lines.

CSV header: `query,document,assessor,grade,note,seconds,updated_at`; with history, one row
per event and an `event` column at the end (`set`, `change`, `clear`, `undo`, ...; the
grade is the event's new grade, empty for a clear, and `updated_at` the event's time).
Times are ISO 8601 in UTC; naive datetimes (SQLite gives those back) are taken as UTC.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TextIO

from workbench.formats.csv_cells import csv_writer

COLUMNS = ("query", "document", "assessor", "grade", "note", "seconds", "updated_at")
HISTORY_COLUMNS = COLUMNS + ("event",)


@dataclass(frozen=True)
class JudgmentRow:
    """One current judgment, or one event of the history (then `event` is its kind)."""

    query: str
    document: str
    assessor: str
    grade: int | None
    note: str = ""
    seconds: float = 0.0
    updated_at: datetime | str | None = None
    event: str | None = None


def format_time(value: datetime | str | None) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).isoformat(timespec="milliseconds")


def format_seconds(value: float | None) -> str:
    """Seconds with at most 3 decimals and no trailing zeros: 12, 3.5, 0.125."""
    if value is None:
        return ""
    return format(float(value), ".3f").rstrip("0").rstrip(".")


def _values(row: JudgmentRow, history: bool) -> list:
    values = [
        row.query, row.document, row.assessor,
        "" if row.grade is None else row.grade,
        row.note or "", format_seconds(row.seconds), format_time(row.updated_at),
    ]
    if history:
        values.append(row.event or "")
    return values


def write_judgments_csv(rows: Iterable[JudgmentRow], out: TextIO, *, history: bool = False) -> int:
    """Write the header and one line per row to `out`; return the number of rows."""
    writer = csv_writer(out)
    writer.writerow(HISTORY_COLUMNS if history else COLUMNS)
    count = 0
    for row in rows:
        writer.writerow(_values(row, history))
        count += 1
    return count


def write_judgments_jsonl(rows: Iterable[JudgmentRow], out: TextIO, *, history: bool = False) -> int:
    """One JSON object per row with the CSV's column names as keys; grade is a number or
    null, seconds a number."""
    count = 0
    for row in rows:
        obj = {
            "query": row.query,
            "document": row.document,
            "assessor": row.assessor,
            "grade": row.grade,
            "note": row.note or "",
            "seconds": float(row.seconds or 0.0),
            "updated_at": format_time(row.updated_at),
        }
        if history:
            obj["event"] = row.event or ""
        out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        count += 1
    return count


def write_judgments(rows: Iterable[JudgmentRow], out: TextIO, *, format: str = "csv",
                    history: bool = False) -> int:
    """`format` is csv or jsonl."""
    if format == "csv":
        return write_judgments_csv(rows, out, history=history)
    if format == "jsonl":
        return write_judgments_jsonl(rows, out, history=history)
    raise ValueError(f"unknown judgments format {format!r}; expected csv or jsonl")
