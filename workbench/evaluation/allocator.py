"""Keep freed array memory in the process (glibc only; a no-op elsewhere)."""

from __future__ import annotations


def tune_allocator() -> None:
    """Why: glibc serves large blocks with mmap and returns them on free, so every large
    temporary array faults in fresh zeroed pages; evaluating a million-line run makes
    dozens of them. Serving them from the heap and not trimming it made whole evaluations
    up to ~2x faster here. Only short-lived commands (eval) call this.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-4, 0)  # M_MMAP_MAX: no mmap-served blocks
        libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: keep up to 1 GB of freed heap
    except (OSError, AttributeError):
        pass
