"""Topic (query) files: TSV, JSON lines and classic TREC topic files.

- TSV: `qid<TAB>title`, optionally `<TAB>description<TAB>narrative`; a first line starting
  with `qid`/`id`/`query_id` is a header.
- JSONL: `{"id", "title", "description", "narrative"}`; `qid`/`query_id`/`_id`/`topic_id`
  are accepted for the id, `query`/`text` for the title, `desc`/`narr` for the others.
- TREC: `<top> <num> Number: 401 <title> ... <desc> Description: ... <narr> Narrative: ...
  </top>` with unclosed field tags; also the web track's `<topic number="1"> <query>...`.

Readers stream: one topic in memory at a time. Every error is InputError(file, line, reason).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from workbench.errors import InputError
from workbench.formats.records import (
    DuplicateGuard,
    checked_id,
    iter_json_objects,
    iter_tsv_rows,
    pick,
    require_id,
    sniff_format,
)
from workbench.formats.sgml import scan_records
from workbench.formats.textlines import iter_lines


@dataclass(frozen=True)
class Topic:
    id: str
    title: str
    description: str = ""
    narrative: str = ""
    line: int = 0  # where the topic starts in its file


ID_KEYS = ("id", "qid", "query_id", "_id", "topic_id", "number")
TITLE_KEYS = ("title", "query", "text")
DESC_KEYS = ("description", "desc")
NARR_KEYS = ("narrative", "narr")
_TSV_HEADER = {"qid", "id", "query_id", "topic_id"}

_TREC_FIELDS = {
    "num": "num", "title": "title", "query": "title",
    "desc": "description", "description": "description", "question": "description",
    "narr": "narrative", "narrative": "narrative",
}
# Labels that open a field's text in classic topics ("Number: 401", "Description:").
_PREFIX = {
    "num": re.compile(r"^(?:number|topic)\s*:\s*", re.I),
    "title": re.compile(r"^(?:topic|title)\s*:\s*", re.I),
    "description": re.compile(r"^description\s*:\s*", re.I),
    "narrative": re.compile(r"^narrative\s*:\s*", re.I),
}
_SPACES = re.compile(r"\s+")


def read_topics(path: str | os.PathLike, format: str | None = None) -> Iterator[Topic]:
    """Stream the topics of `path`; `format` is tsv, jsonl or trec (sniffed when None)."""
    name = os.fspath(path)
    fmt = sniff_format(name, format)
    reader = {"tsv": read_topics_tsv, "jsonl": read_topics_jsonl, "trec": read_topics_trec}[fmt]
    return reader(name)


def read_topics_tsv(path: str | os.PathLike) -> Iterator[Topic]:
    name = os.fspath(path)
    seen = DuplicateGuard(name, "query")
    for number, cols in iter_tsv_rows(name, _TSV_HEADER):
        if not 2 <= len(cols) <= 4:
            raise InputError(
                name, number,
                f"expected 2 to 4 tab-separated columns (qid, title[, description[, narrative]]), "
                f"found {len(cols)}",
            )
        qid = require_id(name, number, cols[0], ("qid",), "query id")
        seen.check(qid, number)
        cols += [""] * (4 - len(cols))
        yield Topic(qid, cols[1].strip(), cols[2].strip(), cols[3].strip(), number)


def read_topics_jsonl(path: str | os.PathLike) -> Iterator[Topic]:
    name = os.fspath(path)
    seen = DuplicateGuard(name, "query")
    for number, obj in iter_json_objects(name):
        qid = require_id(name, number, pick(name, number, obj, ID_KEYS, what="id"), ID_KEYS[:1], "query id")
        seen.check(qid, number)
        yield Topic(
            qid,
            (pick(name, number, obj, TITLE_KEYS, what="title") or "").strip(),
            (pick(name, number, obj, DESC_KEYS, what="description") or "").strip(),
            (pick(name, number, obj, NARR_KEYS, what="narrative") or "").strip(),
            number,
        )


def read_topics_trec(path: str | os.PathLike) -> Iterator[Topic]:
    name = os.fspath(path)
    seen = DuplicateGuard(name, "query")
    records = scan_records(
        name, iter_lines(name), {"top", "topic"}, _TREC_FIELDS,
        open_tag_ends_field=True, what="topic", label="<top>",
    )
    for record in records:
        qid = _clean("num", record.text("num")) or record.attrs.get("number", "").strip()
        if not qid:
            raise InputError(name, record.line, "topic without a number (expected <num> Number: ...)")
        checked_id(name, record.line, qid, "query id")  # `<num> Number: 401 extra` is refused
        seen.check(qid, record.line)
        yield Topic(
            qid,
            _clean("title", record.text("title")),
            _clean("description", record.text("description")),
            _clean("narrative", record.text("narrative")),
            record.line,
        )


def _clean(field: str, text: str | None) -> str:
    """Drop the field's label and fold the hard-wrapped lines into single spaces."""
    if not text:
        return ""
    return _SPACES.sub(" ", _PREFIX[field].sub("", text.strip())).strip()
