"""Document collections: TSV, JSON lines and TREC SGML.

- TSV: `id<TAB>text`, `id<TAB>title<TAB>text` or `id<TAB>url<TAB>title<TAB>text` (MS MARCO
  documents); the first record fixes the layout, a first line starting with
  `id`/`docno`/`doc_id` is a header.
- JSONL: `{"id", "title", "text", "url"}`; `docno`/`doc_id`/`docid`/`_id`/`pid` are accepted
  for the id and `contents`/`body` for the text.
- TREC: `<DOC><DOCNO>..</DOCNO> [<TITLE>|<HEADLINE>..] <TEXT>..</TEXT></DOC>`; other tags
  are skipped, tags inside `<TEXT>` (`<P>`) are dropped and their text kept, several
  `<TEXT>` blocks are joined.

Readers stream one document at a time. Every error is InputError(file, line, reason).
"""

from __future__ import annotations

import os
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
class DocumentRecord:
    id: str
    title: str = ""
    text: str = ""
    url: str | None = None
    line: int = 0  # where the document starts in its file


ID_KEYS = ("id", "docno", "doc_id", "docid", "_id", "pid")
TEXT_KEYS = ("text", "contents", "body")
_TSV_HEADER = {"id", "docno", "doc_id", "docid", "pid"}
_TSV_LAYOUTS = {
    2: "id, text",
    3: "id, title, text",
    4: "id, url, title, text",
}
_TREC_FIELDS = {
    "docno": "docno", "title": "title", "headline": "title", "head": "title",
    "text": "text", "url": "url",
}


def read_documents(path: str | os.PathLike, format: str | None = None) -> Iterator[DocumentRecord]:
    """Stream the documents of `path`; `format` is tsv, jsonl or trec (sniffed when None)."""
    name = os.fspath(path)
    fmt = sniff_format(name, format)
    reader = {"tsv": read_documents_tsv, "jsonl": read_documents_jsonl, "trec": read_documents_trec}[fmt]
    return reader(name)


def read_documents_tsv(path: str | os.PathLike) -> Iterator[DocumentRecord]:
    name = os.fspath(path)
    seen = DuplicateGuard(name, "document")
    width: int | None = None
    for number, cols in iter_tsv_rows(name, _TSV_HEADER):
        if width is None:
            if len(cols) not in _TSV_LAYOUTS:
                raise InputError(
                    name, number,
                    f"expected 2, 3 or 4 tab-separated columns (id, text | id, title, text | "
                    f"id, url, title, text), found {len(cols)}",
                )
            width = len(cols)
        elif len(cols) != width:
            raise InputError(
                name, number,
                f"expected {width} tab-separated columns ({_TSV_LAYOUTS[width]}) like the first "
                f"document, found {len(cols)}",
            )
        docno = require_id(name, number, cols[0], ("id",), "document id")
        seen.check(docno, number)
        if width == 2:
            yield DocumentRecord(docno, "", cols[1], None, number)
        elif width == 3:
            yield DocumentRecord(docno, cols[1].strip(), cols[2], None, number)
        else:
            yield DocumentRecord(docno, cols[2].strip(), cols[3], cols[1].strip() or None, number)


def read_documents_jsonl(path: str | os.PathLike) -> Iterator[DocumentRecord]:
    name = os.fspath(path)
    seen = DuplicateGuard(name, "document")
    for number, obj in iter_json_objects(name):
        docno = require_id(name, number, pick(name, number, obj, ID_KEYS, what="id"), ID_KEYS[:1], "document id")
        seen.check(docno, number)
        url = pick(name, number, obj, ("url",), what="url")
        yield DocumentRecord(
            docno,
            (pick(name, number, obj, ("title",), what="title") or "").strip(),
            pick(name, number, obj, TEXT_KEYS, what="text") or "",
            url.strip() or None if url is not None else None,
            number,
        )


def read_documents_trec(path: str | os.PathLike) -> Iterator[DocumentRecord]:
    name = os.fspath(path)
    seen = DuplicateGuard(name, "document")
    records = scan_records(
        name, iter_lines(name), {"doc"}, _TREC_FIELDS,
        open_tag_ends_field=False, what="document", label="<DOC>",
    )
    for record in records:
        docno = record.text("docno")
        if not docno:
            raise InputError(name, record.line, "document without a <DOCNO>")
        checked_id(name, record.line, docno, "document id")  # `<DOCNO>a b</DOCNO>` is refused
        seen.check(docno, record.line)
        yield DocumentRecord(
            docno,
            " ".join((record.text("title") or "").split()),
            record.text("text") or "",
            record.text("url") or None,
            record.line,
        )
