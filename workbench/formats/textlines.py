"""Reading text files line by line with the errors users need: file:line for bad UTF-8.

Every reader in `formats/` goes through `iter_lines`: it streams (one line in memory at a
time), accepts a UTF-8 byte-order mark and CRLF line ends, reads `.gz` files transparently,
and names the line of any invalid UTF-8 instead of failing somewhere in a decoder.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from typing import BinaryIO

from workbench.errors import InputError

BOM = b"\xef\xbb\xbf"


def open_binary(path: str | os.PathLike) -> BinaryIO:
    """Open `path` for reading bytes; `.gz` files are decompressed on the fly."""
    path = os.fspath(path)
    try:
        if path.endswith(".gz"):
            return gzip.open(path, "rb")  # type: ignore[return-value]
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError(path, None, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, None, "is a directory, expected a file") from None
    except PermissionError:
        raise InputError(path, None, "permission denied") from None


def iter_lines(path: str | os.PathLike) -> Iterator[tuple[int, str]]:
    """Yield (line number from 1, text without its line end) for every line of `path`."""
    name = os.fspath(path)
    with open_binary(name) as fh:
        try:
            for number, raw in enumerate(fh, start=1):
                if number == 1 and raw.startswith(BOM):
                    raw = raw[len(BOM):]
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise InputError(
                        name, number, f"invalid UTF-8 at byte {exc.start + 1} of the line"
                    ) from None
                if "\x00" in text:
                    raise InputError(name, number, "NUL byte in the line; expected a text file")
                yield number, text.rstrip("\r\n")
        except (OSError, EOFError) as exc:  # truncated or corrupt .gz
            raise InputError(name, None, f"cannot read file: {exc}") from None


def first_content_line(path: str | os.PathLike, limit: int = 1000) -> str | None:
    """The first non-blank line of `path` (for format sniffing), None if there is none."""
    for number, line in iter_lines(path):
        if line.strip():
            return line
        if number >= limit:
            break
    return None
