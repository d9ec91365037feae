"""How many cores this process may use: the one answer every parallel path asks for.

Why not `os.cpu_count()`: it counts the machine's cores. A process pinned with `taskset`
or `numactl`, a Slurm allocation, or a container limited with `docker --cpus` or a
Kubernetes CPU limit may use fewer, granted either by affinity (the CPUs it may run on)
or by a cgroup quota (CPU time per period). Starting 16 workers on 2 granted cores made
`workbench eval` slower than one worker.

The usable count is the affinity (`os.process_cpu_count()` on Python 3.13+,
`os.sched_getaffinity(0)` before), capped by the cgroup CPU quota rounded up: cgroup v2
`cpu.max` ("max" or "QUOTA PERIOD") and v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`
(-1: none), the smallest along the process's cgroup and its ancestors. `WORKBENCH_THREADS`
replaces it (`default_jobs`); an explicit `-j` replaces both.
"""

from __future__ import annotations

import math
import os
from functools import lru_cache

__all__ = ["affinity_cpus", "cgroup_cpu_limit", "default_jobs", "parse_cfs", "parse_cpu_max",
           "usable_cpus"]


def affinity_cpus() -> int:
    """The CPUs this process may run on (at least 1)."""
    count = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if count is not None:
        return count() or 1
    if hasattr(os, "sched_getaffinity"):  # not on macOS or Windows
        try:
            return len(os.sched_getaffinity(0)) or 1
        except OSError:
            pass
    return os.cpu_count() or 1


def parse_cpu_max(text: str) -> float | None:
    """cgroup v2 `cpu.max` ("QUOTA PERIOD", QUOTA "max" for none) as CPUs, or None."""
    parts = text.split()
    if not parts or parts[0] == "max":
        return None
    try:
        quota = int(parts[0])
        period = int(parts[1]) if len(parts) > 1 else 100_000
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def parse_cfs(quota_text: str, period_text: str) -> float | None:
    """cgroup v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us` as CPUs, or None (-1: none)."""
    try:
        quota, period = int(quota_text.strip()), int(period_text.strip())
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def _mounts(mountinfo: str) -> list[tuple[int, str, str]]:
    """(cgroup version, mount root, mount point) of each cgroup hierarchy holding the
    cpu controller (v1) or of the unified hierarchy (v2), from /proc/self/mountinfo."""
    out = []
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 3:
            continue
        root, point = _unescape(fields[3]), _unescape(fields[4])
        if tail[0] == "cgroup2":
            out.append((2, root, point))
        elif tail[0] == "cgroup" and "cpu" in tail[2].split(","):
            out.append((1, root, point))
    return out


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    for esc, ch in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(esc, ch)
    return field


def _cgroup_paths(cgroup: str) -> dict[int, str]:
    """This process's cgroup path in the v2 hierarchy (key 2) and in the v1 hierarchy
    holding the cpu controller (key 1), from /proc/self/cgroup."""
    out: dict[int, str] = {}
    for line in cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hid, controllers, path = parts
        if hid == "0" and controllers == "":
            out[2] = path
        elif "cpu" in controllers.split(","):
            out[1] = path
    return out


def _dirs(root: str, point: str, mount_root: str, path: str) -> list[str]:
    """The folders of the process's cgroup and of its ancestors up to the mount point
    (inside `root`); only the mount point when the path is not under the mount's root
    (a cgroup namespace shows the process's own cgroup as the mount root)."""
    top = os.path.join(root, point.lstrip("/"))
    rel = os.path.relpath(path, mount_root) if path.startswith(mount_root) else "."
    if rel == "." or rel.startswith(".."):
        return [top]
    here = os.path.join(top, rel)
    if not os.path.isdir(here):
        return [top]
    out = [here]
    while os.path.normpath(here) != os.path.normpath(top):
        here = os.path.dirname(here)
        out.append(here)
    return out


def cgroup_cpu_limit(root: str = "/") -> float | None:
    """The tightest cgroup CPU quota over this process's cgroup and its ancestors, in
    CPUs (1.5 for 150 ms per 100 ms), or None where there is none or none can be read.
    root: where /proc and /sys are found (tests give a folder of fixture files)."""
    mountinfo = _read(os.path.join(root, "proc/self/mountinfo"))
    cgroup = _read(os.path.join(root, "proc/self/cgroup"))
    if mountinfo is None or cgroup is None:
        return None
    paths = _cgroup_paths(cgroup)
    limits = []
    for version, mount_root, point in _mounts(mountinfo):
        if version not in paths:
            continue
        for folder in _dirs(root, point, mount_root, paths[version]):
            if version == 2:
                text = _read(os.path.join(folder, "cpu.max"))
                limit = parse_cpu_max(text) if text is not None else None
            else:
                quota = _read(os.path.join(folder, "cpu.cfs_quota_us"))
                period = _read(os.path.join(folder, "cpu.cfs_period_us"))
                limit = parse_cfs(quota, period) if quota and period else None
            if limit is not None:
                limits.append(limit)
    return min(limits) if limits else None


@lru_cache(maxsize=1)
def _cgroup_cap() -> float | None:
    """The quota of this process's cgroup, read once (it seldom changes in a process)."""
    return cgroup_cpu_limit()


def usable_cpus() -> int:
    """The cores this process may use: its affinity, capped by the cgroup CPU quota
    rounded up (2 for a 1.5-CPU quota); at least 1."""
    n = affinity_cpus()
    cap = _cgroup_cap()
    if cap is not None:
        n = min(n, max(1, math.ceil(cap)))
    return max(1, n)


def default_jobs() -> int:
    """Worker processes or threads by default: WORKBENCH_THREADS if set to a positive
    integer, else the usable cores."""
    env = os.environ.get("WORKBENCH_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    return usable_cpus()
