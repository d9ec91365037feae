"""Writing an output file without clobbering what is at its path.

`atomic_output(path)` is the one way the workbench writes a file a user named (`export -o`,
the TUI's export, the TREC writers given a path):

- a regular file, or a symlink to one, is replaced atomically: the text goes to a temporary
  file beside the link's *target*, which is then renamed onto the target. The link stays a
  link, a reader never sees half a file, and a failed write leaves the old file;
- a path that does not exist yet is created the same way (0666 & ~umask, as `open` would);
- anything else that can be opened for writing (a FIFO, a terminal, a character device) is
  written in place, never replaced: renaming a file over a FIFO left its reader with
  0 bytes, and over /dev/null replaced the system's device with a regular file;
- a path that cannot be written (missing folder, a directory, no permission) is an
  OutputError: one line, exit code 1, nothing written.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from workbench.errors import OutputError

__all__ = ["atomic_output", "json_number"]


def json_number(value: float | None) -> float | None:
    """A number for JSON output: NaN (undefined) and None become null, anything else a
    plain float (never numpy's). The one NaN -> null rule of every JSON writer."""
    return None if value is None or value != value else float(value)


@contextmanager
def atomic_output(path: str | os.PathLike) -> Iterator[TextIO]:
    """A UTF-8 text stream (no newline translation) for `path`, as the module says."""
    target = os.fspath(path)
    try:
        info = os.stat(target)  # follows symlinks: what a write to `target` would reach
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise _error(target, exc) from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise OutputError(f"cannot write {target}: it is a directory")
    if info is not None and not stat.S_ISREG(info.st_mode):
        with _opened(target) as fh:
            yield fh
        return
    real = os.path.realpath(target)  # through any symlink (a dangling one: its target)
    folder = os.path.dirname(real)
    if not os.path.isdir(folder):
        raise OutputError(f"cannot write {target}: no such directory {os.path.dirname(target) or folder}")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".~" + os.path.basename(real), dir=folder)
    except OSError as exc:
        raise _error(target, exc) from None
    try:
        # mkstemp makes 0600: keep the replaced file's mode, or give a new file the usual one
        os.chmod(tmp, stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, real)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError) and not isinstance(exc, BrokenPipeError):
            raise _error(target, exc) from None
        raise


@contextmanager
def _opened(target: str) -> Iterator[TextIO]:
    """Write in place (a FIFO, a device): no temporary file, no rename, no fsync."""
    try:
        fh = open(target, "w", encoding="utf-8", newline="")
    except OSError as exc:
        raise _error(target, exc) from None
    try:
        with fh:
            yield fh
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise
        raise _error(target, exc) from None


def _error(target: str, exc: OSError) -> OutputError:
    return OutputError(f"cannot write {target}: {(exc.strerror or str(exc)).lower()}")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
