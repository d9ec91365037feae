"""UMBRELA's judgment files (JSONL): one object a line with `query`, `passage`, `judgment`,
`result_status`, `prediction` and `model`; the query and the passage are named by their
texts. Read for `import qrels --machine --format umbrela`."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from workbench.errors import InputError
from workbench.formats.textlines import iter_lines

FIELDS = ("query", "passage", "prediction", "model")


@dataclass(frozen=True)
class UmbrelaRow:
    line: int
    query: str
    passage: str
    prediction: str
    model: str


def read_umbrela(path: str | os.PathLike) -> list[UmbrelaRow]:
    """Every row; a line that is not a JSON object with the fields (strings), or a second
    model in the file, is an InputError naming file and line."""
    name = os.fspath(path)
    rows: list[UmbrelaRow] = []
    for number, text in iter_lines(name):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except ValueError as exc:
            raise InputError(name, number, f"not JSON: {exc}") from None
        if not isinstance(obj, dict):
            raise InputError(name, number, "expected a JSON object")
        missing = [k for k in FIELDS if k not in obj]
        if missing:
            raise InputError(name, number, f"missing {', '.join(missing)}")
        values = []
        for k in FIELDS:
            v = obj[k]
            if not isinstance(v, str):
                raise InputError(name, number, f"{k} must be a string, not {type(v).__name__}")
            values.append(v)
        row = UmbrelaRow(number, *values)
        if rows and row.model != rows[0].model:
            raise InputError(name, number, f"a second model {row.model!r} (line {rows[0].line} has "
                             f"{rows[0].model!r}); one model per file")
        rows.append(row)
    if not rows:
        raise InputError(name, None, "the file holds no UMBRELA judgment")
    return rows
