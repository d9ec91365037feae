"""Where a screen's export goes and the CSV text of a table."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any


def export_dir(db_url: str) -> Path:
    """Exports go next to a SQLite database file, else to the current folder."""
    if db_url.startswith("sqlite:///"):
        path = Path(db_url[len("sqlite:///"):])
        if path.parent.is_dir():
            return path.parent
    return Path.cwd()


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Rows as CSV text (quoted where needed: ids may hold commas)."""
    from workbench.formats.csv_cells import csv_writer
    import io

    out = io.StringIO()
    writer = csv_writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()
