"""Shared pieces of the topic and document readers: JSON lines, TSV lines, duplicate ids,
and the format sniffer."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator

from workbench.errors import InputError
from workbench.formats.textlines import first_content_line, iter_lines
from workbench.names import id_problem

FORMATS = ("tsv", "jsonl", "trec")

_EXTENSIONS = {
    ".tsv": "tsv", ".tab": "tsv",
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl",
    ".trec": "trec", ".sgml": "trec", ".sgm": "trec", ".xml": "trec",
}


def sniff_format(path: str | os.PathLike, requested: str | None = None) -> str:
    """`tsv`, `jsonl` or `trec` for a topic or document file.

    An explicit `requested` format wins. Otherwise the first non-blank line decides
    (`{` JSON lines, `<` TREC SGML, a tab TSV), then the extension; an empty file reads as
    zero records in any format.
    """
    name = os.fspath(path)
    if requested:
        fmt = requested.lower()
        if fmt not in FORMATS:
            raise InputError(name, None, f"unknown format {requested!r}; expected one of {', '.join(FORMATS)}")
        return fmt
    line = first_content_line(name)
    by_ext = _EXTENSIONS.get(os.path.splitext(name[:-3] if name.endswith(".gz") else name)[1].lower())
    if line is None:
        return by_ext or "tsv"
    head = line.lstrip()
    if head.startswith("{"):
        return "jsonl"
    if head.startswith("<"):
        return "trec"
    if "\t" in line:
        return "tsv"
    if by_ext:
        return by_ext
    raise InputError(
        name, None,
        "cannot tell the format (expected tab-separated columns, JSON lines or TREC <tags>); "
        "pass --format tsv|jsonl|trec",
    )


class DuplicateGuard:
    """Remembers ids seen in one file and the line each came from."""

    def __init__(self, path: str, what: str) -> None:
        self.path, self.what, self.seen = path, what, {}

    def check(self, ext_id: str, line: int) -> None:
        first = self.seen.setdefault(ext_id, line)
        if first != line:
            raise InputError(self.path, line, f"duplicate {self.what} id {ext_id!r} (first on line {first})")


def iter_json_objects(path: str) -> Iterator[tuple[int, dict]]:
    """(line, object) for every non-blank line; anything but a JSON object is an error."""
    for number, line in iter_lines(path):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, number, f"invalid JSON: {exc.msg} at column {exc.colno}") from None
        except (RecursionError, ValueError) as exc:  # nested too deep; a >4300-digit number
            raise InputError(path, number, f"invalid JSON: {str(exc).split(';')[0]}") from None
        if not isinstance(obj, dict):
            raise InputError(path, number, f"expected a JSON object, found {type(obj).__name__}")
        yield number, obj


_SURROGATE = re.compile("[\ud800-\udfff]")


def pick(path: str, line: int, obj: dict, names: tuple[str, ...], *, what: str) -> str | None:
    """The first of `names` present in `obj` as a string (numbers become strings)."""
    for name in names:
        if name in obj and obj[name] is not None:
            value = obj[name]
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                raise InputError(path, line, f"{what} ({name!r}) must be a string, found {type(value).__name__}")
            if isinstance(value, str) and "\x00" in value:
                raise InputError(path, line, f"{what} ({name!r}) contains a NUL character")
            if isinstance(value, str) and _SURROGATE.search(value):
                # JSON's "\\ud83d" without its pair: no UTF-8 exists for it, so it could never be stored or written
                raise InputError(path, line, f"{what} ({name!r}) contains a lone surrogate "
                                 f"(U+{ord(_SURROGATE.search(value).group()):04X}): not valid Unicode text")
            return value if isinstance(value, str) else str(value)
    return None


def require_id(path: str, line: int, value: str | None, names: tuple[str, ...], what: str) -> str:
    """The record's id without surrounding whitespace, checked by workbench.names (`what`:
    "query id", "document id"); InputError(path, line, reason) otherwise."""
    if value is None or not value.strip():
        raise InputError(path, line, f"missing id (expected a non-empty {' or '.join(repr(n) for n in names)})")
    return checked_id(path, line, value.strip(), what)


def checked_id(path: str, line: int, value: str, what: str) -> str:
    """`value` when workbench.names accepts it as an id, else InputError(path, line, reason)."""
    problem = id_problem(value, what)
    if problem is not None:
        raise InputError(path, line, problem)
    return value


def iter_tsv_rows(path: str, header_ids: set[str]) -> Iterator[tuple[int, list[str]]]:
    """(line, columns) for every non-blank line; a first line whose first column is one of
    `header_ids` (e.g. `qid`) is a header and skipped."""
    first = True
    for number, line in iter_lines(path):
        if not line.strip():
            continue
        columns = line.split("\t")
        if first:
            first = False
            if columns[0].strip().lower() in header_ids:
                continue
        yield number, columns
