"""How a pre-started app learns whom it is for: one line on its standard input.

The app's command line is fixed (`python -m workbench.cli.served_app`, nothing from any
request in it), so that it can be started before any token is checked. Once the server has
checked a token, it writes one line to that app's stdin:

    bind {"role": "assessor", "name": "ann", "width": 133, "height": 42}\n

with the role and name the token maps to (nothing else of the request) and the terminal's
size, clamped. The app reads that line byte by byte (what follows it is the session's own
input, for Textual) and only then opens the judging screen. An app whose stdin closes before
a binding exits: a pooled app that is never bound never opens anything.

No import of the server here: the app process reads this module.
"""

from __future__ import annotations


import json
import math
import os
from dataclasses import dataclass

READY = b"workbench-app-ready\n"  # the app is warm and waits for its binding
PREFIX = b"bind "
MAX_LINE = 4096  # a name is short (names.py); anything longer is not a binding
ROLES = ("assessor", "lead")
MIN_SIZE, MAX_SIZE = 10, 1000


@dataclass(frozen=True)
class Binding:
    role: str
    name: str
    width: int
    height: int


def _clamp(value: int) -> int:
    return max(MIN_SIZE, min(int(value), MAX_SIZE))


def terminal_size(width: object, height: object) -> tuple[int, int] | None:
    """A browser's `resize` (any JSON values) as a size within MIN_SIZE..MAX_SIZE; None
    when either is not a finite number (`1e400` is infinite in JSON: ignored)."""
    out = []
    for value in (width, height):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        if isinstance(value, float) and not math.isfinite(value):
            return None
        out.append(max(MIN_SIZE, min(int(value), MAX_SIZE)))
    return out[0], out[1]


def encode(role: str, name: str, width: int, height: int) -> bytes:
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    body = json.dumps({"role": role, "name": name, "width": _clamp(width),
                       "height": _clamp(height)}, ensure_ascii=True)  # one line, always
    line = PREFIX + body.encode("ascii") + b"\n"
    if len(line) > MAX_LINE:
        raise ValueError("binding too long")
    return line


def decode(line: bytes) -> Binding | None:
    """The binding of one line (with or without its newline); None when it is not one."""
    if not line.startswith(PREFIX):
        return None
    try:
        data = json.loads(line[len(PREFIX):].decode("ascii"))
        role, name = data["role"], data["name"]
        width, height = data["width"], data["height"]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    if role not in ROLES or not isinstance(name, str) or not name:
        return None
    if not (isinstance(width, int) and isinstance(height, int)):
        return None
    return Binding(role, name, _clamp(width), _clamp(height))


def read_binding(fd: int = 0) -> Binding | None:
    """Read one binding line from `fd`, one byte at a time so that nothing after it is taken
    from the session's input. None at end of file (the server closed the pipe: never bound)
    or on anything that is not a binding."""
    line = bytearray()
    while len(line) < MAX_LINE:
        byte = os.read(fd, 1)
        if not byte:
            return None
        if byte == b"\n":
            return decode(bytes(line))
        line += byte
    return None
