"""Keep freed array memory in the process (glibc only; a no-op elsewhere).

Why: glibc serves large blocks with mmap and returns them on free, so every large
temporary array faults in fresh zeroed pages; evaluating a million-line run makes dozens
of them. Serving them from the heap and not trimming it made whole evaluations up to ~2x
faster here. It changes the whole process, so only a short-lived command (`workbench
eval`) calls it; the engine itself never does.
"""

from __future__ import annotations

__all__ = ["tune_allocator"]


def tune_allocator() -> None:
    """No mmap-served blocks, and up to 1 GB of freed heap kept (glibc's mallopt)."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        # the process's own symbols, libc's among them: ctypes.util.find_library would
        # import subprocess and run ldconfig (0.03-0.1 s of `eval`'s start-up)
        libc = ctypes.CDLL(None)
        libc.mallopt(-4, 0)  # M_MMAP_MAX: no mmap-served blocks
        libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: keep up to 1 GB of freed heap
    except (OSError, AttributeError):
        pass
