"""`eval`'s process tuning (workbench.evaluation.allocator): numpy's request for transparent
huge pages is turned off (system time of a million-line eval 0.09-0.20 s with it, 0.12 s
without). In a child process: the tuning changes the whole process."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc and Linux only")
def test_tune_allocator_turns_numpy_huge_pages_off():
    code = (
        "from numpy._core import multiarray as m\n"
        "m._set_madvise_hugepage(True)\n"
        "from workbench.evaluation.allocator import tune_allocator\n"
        "tune_allocator()\n"
        "print(m._set_madvise_hugepage(False))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
