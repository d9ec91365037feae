"""Reading text line by line: the one home of what a line is, and of file:line errors.

The rule every reader follows (topics, documents, `grade --batch`, and the TREC run and
qrels readers of `formats.columns`, which apply it to their byte chunks):

- `\\n`, `\\r\\n` and a lone `\\r` each end a line. A file saved with old Mac line ends
  (CR only) was read as one long line: a run imported as "1 result", a topic's title took
  the next topic along.
- A vertical tab or form feed inside a line is refused with file:line: some tools read them
  as line breaks (Python's `str.splitlines`) and others as spaces, so any reading of them
  is a guess that loses data silently. A NUL byte is refused too (not a text file).
- A UTF-8 byte order mark at the start is dropped; invalid UTF-8 names its line.

`iter_lines` streams a file (one block in memory), reads `.gz` transparently; `iter_stream_lines`
does the same for a stream that may stay open (stdin), yielding each line as soon as its end
arrives. Both split whole blocks with bytes methods (C speed) and look for the refused bytes
once per block, so that a clean file costs no check per line.
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Callable, Iterator
from typing import BinaryIO

from workbench.errors import InputError

BOM = b"\xef\xbb\xbf"
LINE_ENDS = "\\n, \\r\\n or \\r"
# Line separators of other tools that are not line ends here: refused inside a line.
SEPARATORS_IN_LINE = {
    b"\x0b": f"a vertical tab inside the line; lines end with {LINE_ENDS}",
    b"\x0c": f"a form feed inside the line; lines end with {LINE_ENDS}",
}
# Every byte refused inside a line, and how the message names it.
REFUSED_IN_LINE = {b"\x00": "NUL byte in the line; expected a text file", **SEPARATORS_IN_LINE}
_BLOCK = 1 << 20  # bytes per read of a file


def line_problem(raw: bytes) -> str | None:
    """Why the line `raw` (without its end) is refused, or None."""
    for byte, reason in REFUSED_IN_LINE.items():
        if byte in raw:
            return reason
    return None


def split_lines(read: Callable[[int], bytes], block: int = _BLOCK) -> Iterator[tuple[int, bytes, str | None]]:
    """(line number from 1, the line's bytes without its end, why it is refused or None)
    for every line of the byte source `read(n)`; a line is yielded as soon as its end has
    been read (`read` may return fewer than n bytes: a pipe's read1)."""
    number = 0
    pieces: list[bytes] = []  # the line read so far (a line may span blocks)
    pieces_suspect = False  # some of those pieces hold a refused byte
    pending_cr = False  # the last block ended with \r: a \n first in the next one is its pair
    while True:
        data = read(block)
        if not data:
            break
        if pending_cr and data.startswith(b"\n"):
            data = data[1:]  # the \n of a \r\n cut between two reads
            if not data:
                pending_cr = False
                continue
        pending_cr = data.endswith(b"\r")
        if b"\r" in data:
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        suspect = any(byte in data for byte in REFUSED_IN_LINE)
        lines = data.split(b"\n")
        if len(lines) == 1:
            pieces.append(data)
            pieces_suspect |= suspect
            continue
        for i, raw in enumerate(lines[:-1]):
            if i == 0 and pieces:
                raw = b"".join(pieces) + raw
                check = suspect or pieces_suspect
            else:
                check = suspect
            number += 1
            if number == 1 and raw.startswith(BOM):
                raw = raw[len(BOM):]
            yield number, raw, line_problem(raw) if check else None
        pieces = [lines[-1]] if lines[-1] else []
        pieces_suspect = suspect
    if pieces:
        raw = b"".join(pieces)
        number += 1
        if number == 1 and raw.startswith(BOM):
            raw = raw[len(BOM):]
        yield number, raw, line_problem(raw) if pieces_suspect else None


def decode_line(raw: bytes) -> str:
    """The line as text; ValueError(reason) for invalid UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"invalid UTF-8 at byte {exc.start + 1} of the line") from None


GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(path: str | os.PathLike) -> bool:
    """Whether the file is gzip-compressed (by its first two bytes, whatever its name:
    TREC distributes runs as `input.xyz.gz`). False when it cannot be read."""
    try:
        with open(os.fspath(path), "rb") as fh:
            return fh.read(2) == GZIP_MAGIC
    except OSError:
        return False


def open_binary(path: str | os.PathLike) -> BinaryIO:
    """Open `path` for reading bytes; gzip files are decompressed on the fly."""
    path = os.fspath(path)
    try:
        if is_gzip(path):
            return gzip.open(path, "rb")  # type: ignore[return-value]
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError(path, None, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, None, "is a directory, expected a file") from None
    except PermissionError:
        raise InputError(path, None, "permission denied") from None


def iter_lines(path: str | os.PathLike, block: int = _BLOCK) -> Iterator[tuple[int, str]]:
    """Yield (line number from 1, text without its line end) for every line of `path`;
    a refused line raises InputError(path, line, reason). `block`: bytes per read (a
    caller that wants the first lines only reads less)."""
    name = os.fspath(path)
    with open_binary(name) as fh:
        try:
            for number, raw, problem in split_lines(fh.read, block):
                if problem is not None:
                    raise InputError(name, number, problem)
                try:
                    text = decode_line(raw)
                except ValueError as exc:
                    raise InputError(name, number, str(exc)) from None
                yield number, text
        except (OSError, EOFError) as exc:  # truncated or corrupt .gz
            raise InputError(name, None, f"cannot read file: {exc}") from None


def iter_stream_lines(stream) -> Iterator[tuple[int, str | None, str | None]]:
    """(line number, text, None) or (line number, None, reason) for each line of an open
    stream (binary, or text with a binary `.buffer` like sys.stdin), as soon as the line's
    end arrives: a producer may keep the stream open and feed it line by line."""
    binary = getattr(stream, "buffer", stream)
    if hasattr(binary, "read1"):
        read = binary.read1  # what has arrived, without waiting for a whole block
    elif isinstance(binary, io.TextIOBase):  # a text stream without a buffer (a StringIO)
        def read(n: int) -> bytes:
            return stream.read(n).encode("utf-8", "surrogateescape")
    else:
        read = binary.read
    for number, raw, problem in split_lines(read, 1 << 16):
        if problem is not None:
            yield number, None, problem
            continue
        try:
            yield number, decode_line(raw), None
        except ValueError as exc:
            yield number, None, str(exc)


def first_content_line(path: str | os.PathLike, limit: int = 1000) -> str | None:
    """The first non-blank line of `path` (for format sniffing), None if there is none."""
    for number, line in iter_lines(path):
        if line.strip():
            return line
        if number >= limit:
            break
    return None
