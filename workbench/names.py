"""The names users give things, checked by one rule each wherever they come in.

- **Ids** (query ids, document ids, run tags) are written back as one column of TREC text
  (`export qrels`, run files): an id with whitespace or a control character would split into
  two columns or two lines, and a query id starting with `#` would read back as a comment.
  Such ids were accepted at import and crashed `export qrels` later. The same
  rule holds for every id, so that a document id may become a query id's neighbour in any
  file without surprises.
- **Assessor names** are shown on screens and exported in CSV/JSON, never as a TREC column:
  spaces between words are fine, but not tabs, line breaks or other control characters, and
  not 10 000 characters (a name that long breaks every screen and table it is shown in).

Both fit the store's columns (String(200)). Every entry point uses these functions: the
readers (with file:line), imports, `grade`, `judge`, `pool`, adjudication and the TUI's
typed names. They raise InvalidName, a WorkbenchError (one line, exit 1) that is also a
ValueError, so that callers who add a file and line can catch it as either.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from workbench.errors import WorkbenchError

MAX_LENGTH = 200  # = the store's String(200) for ext_id, tag and assessor name

# Python's \s is every character str.isspace() accepts (U+00A0, U+2028... too);
# \x00-\x1f and \x7f-\x9f are the control characters (Unicode category Cc); the bidi
# embeddings, overrides and isolates reorder what a reader sees around them (a run tag
# "abc\u202e..." shows reversed on every screen), and a lone surrogate is no
# text at all.
_BIDI_AND_SURROGATES = "\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_NOT_IN_ID = re.compile(f"[\\s\\x00-\\x1f\\x7f-\\x9f{_BIDI_AND_SURROGATES}]")
_PRINTABLE_ASCII = bytes(range(33, 127))  # what an ASCII id may hold
# whitespace but the space; controls, bidi controls, lone surrogates
_NOT_IN_NAME = re.compile(f"[^\\S ]|[\\x00-\\x1f\\x7f-\\x9f{_BIDI_AND_SURROGATES}]")


class InvalidName(WorkbenchError, ValueError):
    """An id or name the rules above refuse; the message is the reason."""


def _shown(value: str) -> str:
    return repr(value[:40]) + ("..." if len(value) > 40 else "")


def id_problem(value: str, what: str = "id") -> str | None:
    """Why `value` cannot be an id (`what` names it: "query id", "run tag"), else None."""
    if not value:
        return f"empty {what}"
    bad = _NOT_IN_ID.search(value)
    if bad:
        kind = "whitespace" if bad.group().isspace() else "a control character"
        return (f"{what} {_shown(value)} contains {kind} ({bad.group()!r}); an id is one "
                "column of a TREC file")
    if value.startswith("#"):
        return f"{what} {_shown(value)} starts with '#' (it would read back as a comment line)"
    if len(value) > MAX_LENGTH:
        return f"{what} {_shown(value)} is longer than {MAX_LENGTH} characters"
    return None


def check_id(value: str, what: str = "id") -> str:
    """`value` itself when it is a valid id; InvalidName(reason) otherwise."""
    problem = id_problem(value, what)
    if problem is not None:
        raise InvalidName(problem)
    return value


def first_invalid_id(values: Sequence[str], what: str = "id") -> tuple[int, str] | None:
    """(index, reason) of the first invalid id in `values`, None when all are valid.

    For the million distinct ids of a big run (0.2 s, against 0.5 s one by one): the ids
    joined by '/' (a character ids may hold) show any bad character, '#' start or empty
    id in a few C-speed scans; only then are the ids checked one by one."""
    if not values:
        return None
    joined = "/" + "/".join(values) + "/"
    if joined.isascii():  # (the common case: deleting the printable bytes leaves nothing)
        clean = not joined.encode("ascii").translate(None, _PRINTABLE_ASCII)
    else:
        clean = _NOT_IN_ID.search(joined) is None
    if clean and "/#" not in joined and "//" not in joined and max(map(len, values)) <= MAX_LENGTH:
        return None
    for i, value in enumerate(values):
        problem = id_problem(value, what)
        if problem is not None:
            return i, problem
    return None


def check_name(value: str) -> str:
    """An assessor name without its surrounding whitespace; InvalidName(reason) when it is
    empty, longer than MAX_LENGTH, or holds a tab, line break or other control character."""
    name = value.strip()
    if not name:
        return _refuse("assessor name must not be empty")
    bad = _NOT_IN_NAME.search(name)
    if bad:
        return _refuse(f"assessor name {_shown(name)} contains {bad.group()!r}; only spaces "
                       "may separate the words of a name")
    if len(name) > MAX_LENGTH:
        return _refuse(f"assessor name {_shown(name)} is longer than {MAX_LENGTH} characters")
    return name


def _refuse(reason: str) -> str:
    raise InvalidName(reason)
