"""A streaming scanner for TREC's loose SGML (topic files and document collections).

TREC files are not XML: topic fields are often never closed (`<title> foo` runs until
the next tag), documents carry stray tags (`<P>`) inside `<TEXT>`, and `&` appears bare.
`scan_records` walks the file line by line and yields one record at a time: the text of
each field we care about, plus the line the record started on for error messages.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from workbench.errors import InputError

_TAG = re.compile(r"<(/?)([A-Za-z][\w.-]*)((?:\s[^<>]*)?)/?>")
_ATTR = re.compile(r"""([\w.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")


@dataclass
class SgmlRecord:
    """One `<DOC>` or `<top>`: field name (lower case) -> list of text pieces."""

    line: int
    tag: str
    attrs: dict[str, str]
    fields: dict[str, list[str]] = field(default_factory=dict)

    def text(self, name: str) -> str | None:
        """The field's text (pieces joined, entities decoded), None if it never appeared."""
        parts = self.fields.get(name)
        if parts is None:
            return None
        return html.unescape("".join(parts)).strip()


def _attrs(raw: str) -> dict[str, str]:
    return {m[1].lower(): m[2] or m[3] or m[4] or "" for m in _ATTR.finditer(raw)}


def scan_records(
    path: str,
    lines: Iterable[tuple[int, str]],
    record_tags: set[str],
    fields: dict[str, str],
    *,
    open_tag_ends_field: bool,
    what: str,
    label: str,
) -> Iterator[SgmlRecord]:
    """Yield the records of a TREC SGML file.

    `record_tags`: lower-case names that open a record (`doc`, `top`). `fields`: lower-case
    tag -> field name it fills (aliases map to one name). With `open_tag_ends_field` any
    opening tag ends the current field (topic files: fields are not closed); without it,
    unknown tags inside a field are dropped and their text kept (`<P>` inside `<TEXT>`).
    Non-blank text outside records is an error, as is a record left open at the end.
    `what` ("document", "topic") and `label` ("<DOC>") word the error messages.
    """
    record: SgmlRecord | None = None
    current: str | None = None  # the field receiving text
    last_line = 0
    for number, line in lines:
        last_line = number
        pos = 0
        for match in _TAG.finditer(line):
            _take(path, number, record, current, line[pos:match.start()], label)
            pos = match.end()
            closing, name = match[1] == "/", match[2].lower()
            if name in record_tags:
                if closing:
                    if record is None:
                        raise InputError(path, number, f"</{match[2]}> without an open <{match[2]}>")
                    yield record
                    record, current = None, None
                else:
                    if record is not None:
                        raise InputError(
                            path, number,
                            f"<{match[2]}> inside the {what} opened on line {record.line}; "
                            f"expected </{record.tag}> first",
                        )
                    record = SgmlRecord(number, match[2], _attrs(match[3]))
                continue
            if record is None:
                raise InputError(path, number, f"<{match[2]}> outside a {label} {what}")
            if name in fields:
                target = fields[name]
                if closing:
                    if current == target:
                        current = None
                else:
                    current = target
                    record.fields.setdefault(target, [])
            elif not closing and open_tag_ends_field:
                current = None
        _take(path, number, record, current, line[pos:] + "\n", label)
    if record is not None:
        raise InputError(
            path, record.line,
            f"<{record.tag}> {what} is never closed (expected </{record.tag}> before the end "
            f"of the file at line {last_line})",
        )


def _take(path: str, number: int, record: SgmlRecord | None, current: str | None,
          text: str, label: str) -> None:
    if record is None:
        if text.strip():
            raise InputError(path, number, f"expected {label}, found {text.strip()[:40]!r}")
        return
    if current is not None and text:
        record.fields[current].append(text)

