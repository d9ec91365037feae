"""The one CSV writer of the workbench: text cells cannot run as spreadsheet formulas.

Run tags are chosen by participants, and assessor names, notes, titles and query ids come
from outside. Excel and LibreOffice read a cell that starts with `=`, `+`, `-`, `@`, a tab
or a carriage return as a formula (`=HYPERLINK(...)`, `@SUM(...)`, DDE payloads), so an
exported file could run code on the lead's machine when opened.

As OWASP recommends ("CSV Injection"), such a text cell gets a leading `'`, which a
spreadsheet shows as text and does not keep. Only text is changed: a number, or a string
that is a plain decimal number (`-0.2500`, `1e-05`, `-inf`), stays as it is, so scores and
grades still read as numbers. Every CSV output (exports, `--format csv`, the TUI's exports)
is written through `csv_writer`; docs/file-formats.md says so for users.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any, TextIO

__all__ = ["csv_cell", "csv_writer"]

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|nan)", re.I)


def csv_cell(value: Any) -> Any:
    """`value` for a CSV cell: a text that a spreadsheet would run gets a leading `'`."""
    if isinstance(value, str) and value[:1] in FORMULA_START and _NUMBER.fullmatch(value) is None:
        return "'" + value
    return value


class _Writer:
    def __init__(self, out: TextIO) -> None:
        self._w = csv.writer(out, lineterminator="\n")

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._w.writerow([csv_cell(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def csv_writer(out: TextIO) -> _Writer:
    """A csv.writer (lines end in \\n) whose every cell passes csv_cell."""
    return _Writer(out)
