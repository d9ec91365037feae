"""Keep freed array memory in the process (glibc only; a no-op elsewhere).

Why: glibc serves large blocks with mmap and returns them on free, so every large
temporary array faults in fresh zeroed pages; evaluating a million-line run makes dozens
of them. Serving them from the heap and not trimming it made whole evaluations up to ~2x
faster here. The reading threads would each get an arena of their own, whose heaps are
mapped afresh and given back (~15 000 more page faults for a million-line run); with one
arena they reuse the main heap's kept pages (sys time 0.15 -> 0.09 s). numpy's request for
transparent huge pages is turned off too (see `_no_huge_pages`). It changes the whole
process, so only a short-lived command (`workbench eval`) calls it; the engine itself
never does.
"""

from __future__ import annotations

__all__ = ["tune_allocator"]


def tune_allocator() -> None:
    """No mmap-served blocks, one arena for every thread, and up to 1 GB of freed heap
    kept (glibc's mallopt); no transparent huge pages asked for numpy's arrays. Call it
    before any thread allocates."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return
    _no_huge_pages()
    try:
        # the process's own symbols, libc's among them (ctypes.util.find_library would
        # import subprocess and run ldconfig: ~15 ms)
        libc = ctypes.CDLL(None)
        libc.mallopt(-4, 0)  # M_MMAP_MAX: no mmap-served blocks
        libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: keep up to 1 GB of freed heap
        libc.mallopt(-8, 1)  # M_ARENA_MAX: the threads share the main heap
    except (OSError, AttributeError):
        pass


def _no_huge_pages() -> None:
    """numpy asks the kernel for transparent huge pages (madvise) on every array of 4 MB or
    more. Where the kernel then compacts memory to find 2 MB pages on the fault (THP
    `defrag` set to `madvise`, the default of many distributions), each fault can stall:
    a million-line `eval` spent 0.09-0.20 s of system time with them, a steady 0.12 s
    without (median of 5). The kept heap is reused, so 4 kB pages cost
    little. (numpy's own switch, also set by NUMPY_MADVISE_HUGEPAGE=0.)"""
    try:
        from numpy._core import multiarray
    except ImportError:  # numpy 1.x
        try:
            from numpy.core import multiarray  # type: ignore[no-redef]
        except ImportError:
            return
    switch = getattr(multiarray, "_set_madvise_hugepage", None)
    if switch is not None:
        switch(False)
