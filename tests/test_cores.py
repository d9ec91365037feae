"""The usable CPU count (workbench.cores): cgroup quotas read from fixture trees of
/proc/self and /sys/fs/cgroup (v1 and v2: a quota, none, "max", a tighter parent, a
container's namespaced view), the cap on the affinity, WORKBENCH_THREADS, and a real
`taskset -c 0` run where taskset exists."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workbench import cores

FIXTURES = Path(__file__).parent / "data" / "cgroup"
ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("case, cpus", [
    ("v2_quota", 1.5),  # "150000 100000" on the job; "max" on its parent
    ("v2_max", None),  # "max" everywhere
    ("v2_none", None),  # no cpu.max file at all
    ("v2_parent", 3.0),  # child 8 CPUs, parent 3: the tighter one holds
    ("v2_container", 2.0),  # docker --cpus=2 as seen inside (cgroup namespace)
    ("v1_quota", 2.5),  # cpu,cpuacct joined; 250000 / 100000 on the cgroup, -1 above
    ("v1_none", None),  # -1: no quota
    ("v1_container", 1.0),  # the mount root is the container's own cgroup
])
def test_cgroup_quota_from_fixture_files(case, cpus):
    assert cores.cgroup_cpu_limit(str(FIXTURES / case)) == cpus


def test_no_proc_files_means_no_quota(tmp_path):
    assert cores.cgroup_cpu_limit(str(tmp_path)) is None


@pytest.mark.parametrize("text, cpus", [
    ("max 100000\n", None), ("max", None), ("200000 100000\n", 2.0), ("50000 100000", 0.5),
    ("150000", 1.5), ("", None), ("garbage 100000", None), ("0 100000", None),
])
def test_parse_cpu_max(text, cpus):
    assert cores.parse_cpu_max(text) == cpus


@pytest.mark.parametrize("quota, period, cpus", [
    ("-1\n", "100000\n", None), ("100000", "100000", 1.0), ("250000", "100000", 2.5),
    ("50000", "100000", 0.5), ("x", "100000", None), ("100000", "0", None),
])
def test_parse_cfs(quota, period, cpus):
    assert cores.parse_cfs(quota, period) == cpus


@pytest.mark.parametrize("affinity, quota, usable", [
    (16, None, 16), (16, 1.5, 2), (16, 0.5, 1), (16, 2.0, 2), (2, 8.0, 2), (4, 3.01, 4),
])
def test_usable_is_the_affinity_capped_by_the_quota_rounded_up(monkeypatch, affinity, quota,
                                                               usable):
    monkeypatch.setattr(cores, "affinity_cpus", lambda: affinity)
    monkeypatch.setattr(cores, "_cgroup_cap", lambda: quota)
    assert cores.usable_cpus() == usable


def test_workbench_threads_overrides_the_usable_count(monkeypatch):
    monkeypatch.setattr(cores, "usable_cpus", lambda: 3)
    monkeypatch.delenv("WORKBENCH_THREADS", raising=False)
    assert cores.default_jobs() == 3
    monkeypatch.setenv("WORKBENCH_THREADS", "7")
    assert cores.default_jobs() == 7
    monkeypatch.setenv("WORKBENCH_THREADS", "0")  # not a count: ignored
    assert cores.default_jobs() == 3


def test_affinity_matches_the_os():
    expected = (os.process_cpu_count() if hasattr(os, "process_cpu_count")
                else len(os.sched_getaffinity(0)))
    assert cores.affinity_cpus() == expected


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_THREADS"}
    env["PYTHONPATH"] = str(ROOT)
    return env


needs_taskset = pytest.mark.skipif(shutil.which("taskset") is None, reason="no taskset here")


@needs_taskset
def test_under_taskset_one_core_the_default_is_one_worker():
    """Pinned to CPU 0, the usable count is 1 and the default plan forks no worker even
    when workers cost nothing (so only the core count can stop them)."""
    code = (
        "from workbench.cores import usable_cpus, default_jobs\n"
        "from workbench.evaluation import strategy as s\n"
        "free = s.Costs(start_s=0.0, fixed_s=0.0)\n"
        "print(usable_cpus(), default_jobs(),"
        " s.plan_for_sizes([10**9], 10**9, None, costs=free).jobs,"
        " s.plan_for_sizes([10**9] * 4, 10**6, None, costs=free).jobs)\n"
    )
    out = subprocess.run(["taskset", "-c", "0", sys.executable, "-c", code], env=_env(),
                         capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "1", "1", "1"]


@needs_taskset
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs 2 cores to compare")
def test_without_taskset_free_workers_would_be_used():
    """The control for the test above: with 2 cores or more and free workers, the same
    plans use more than one (so the pinned test does test the pinning)."""
    code = (
        "from workbench.evaluation import strategy as s\n"
        "free = s.Costs(start_s=0.0, fixed_s=0.0)\n"
        "print(s.plan_for_sizes([10**9], 10**9, None, costs=free).jobs,"
        " s.plan_for_sizes([10**9] * 4, 10**6, None, costs=free).jobs)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True,
                         text=True, check=True)
    assert all(int(n) >= 2 for n in out.stdout.split())


@needs_taskset
def test_eval_under_taskset_reports_one_job_and_help_shows_it(tmp_path):
    qrels = tmp_path / "q.txt"
    run = tmp_path / "r.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 c 1 1.0 t\n")
    cmd = ["taskset", "-c", "0", sys.executable, "-m", "workbench", "eval"]
    out = subprocess.run([*cmd, str(qrels), str(run), "-m", "map", "--format", "json"],
                         env=_env(), capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["settings"]["jobs"] == 1
    out = subprocess.run([*cmd, "--help"], env=_env(), capture_output=True, text=True,
                         check=True)
    assert "1 usable core here" in " ".join(out.stdout.split())
