"""Issue 37 #44: `eval` with the default job count against `-j 1`, side by side.

    python bench/default_jobs_bench.py [--repeat 5] [--measures map,P.10] [--sizes 1000x1000]
                                       [--jobs 2]

For each size (queries x documents per query; default the issue's 1 000 x 1 000, a 1 M-line
run of 39 MB against 0.9 M qrels lines, from bench/eval_bench.py's seeded data in
bench/data/), it times whole `workbench eval -m ...` processes: the default (no -j, the cost
model's choice), `-j 1` and, with --jobs N, `-j N`, in rounds (one of each per round, in an
order that turns from round to round, so that other people's load falls on all alike), and
prints the median and best wall time and the median CPU time (user + system, workers
included) of --repeat rounds, the default's ratio to `-j 1`, and the plan the default chose
(settings.jobs of --format json). The target: the default's median at most 5 % above
`-j 1`'s.

The load average (and `uptime`'s line) before and after is printed: on a shared machine
wall times follow other people's load; CPU times much less.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
PY = sys.executable
# bytecode cached in a private prefix, as an installed package has it (speed_bench.py)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV.update(PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=tempfile.mkdtemp(prefix="jobs_bench_pyc_"))


def _timed(args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children)."""
    before = os.times()
    t = time.perf_counter()
    subprocess.run(args, check=True, env=ENV, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = os.times()
    return wall, (after.children_user - before.children_user
                  + after.children_system - before.children_system)


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return f"load average {os.getloadavg()[0]:.2f}"


def bench(nq: int, depth: int, measures: list[str], repeat: int, jobs: int | None) -> float:
    """Prints one size's table; returns the default's median wall over -j 1's."""
    from eval_bench import generate

    qrels, (run,) = generate(nq, depth, 1, 0)
    ms = [a for m in measures for a in ("-m", m)]
    base = [PY, "-m", "workbench", "eval", *ms, str(qrels), str(run)]
    cmds = {"default": base, "-j 1": base + ["-j", "1"]}
    if jobs:
        cmds[f"-j {jobs}"] = base + ["-j", str(jobs)]
    chosen = json.loads(subprocess.run(base + ["--format", "json"], env=ENV, check=True,
                                       capture_output=True).stdout)["settings"]["jobs"]
    outs = {name: subprocess.run(args, env=ENV, check=True, capture_output=True).stdout
            for name, args in cmds.items()}
    same = len(set(outs.values())) == 1
    print(f"\n{nq} queries x {depth} ({run.stat().st_size / 1e6:.0f} MB run, "
          f"{qrels.stat().st_size / 1e6:.0f} MB qrels), -m {' -m '.join(measures)}, "
          f"{repeat} rounds; the default uses {chosen} process{'es' if chosen > 1 else ''}; "
          f"outputs {'identical' if same else 'DIFFERENT'}")
    print(f"  before: {_uptime()}")
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
    names = list(cmds)
    for k in range(repeat):  # the order turns each round: no command always runs first
        for name in names[k % len(names):] + names[:k % len(names)]:
            times[name].append(_timed(cmds[name]))
    print(f"  after:  {_uptime()}")
    one = statistics.median(w for w, _ in times["-j 1"])
    print(f"  {'':8} {'median wall':>12} {'best wall':>10} {'median CPU':>11}   vs -j 1 (median)")
    for name, t in times.items():
        med = statistics.median(w for w, _ in t)
        print(f"  {name:8} {med:11.3f}s {min(w for w, _ in t):9.3f}s "
              f"{statistics.median(c for _, c in t):10.3f}s   {med / one:.3f}x")
    ratio = statistics.median(w for w, _ in times["default"]) / one
    cpu = (statistics.median(c for _, c in times["default"])
           / statistics.median(c for _, c in times["-j 1"]))
    print(f"  default / -j 1 = {ratio:.3f} wall, {cpu:.3f} CPU (target <= 1.05): "
          f"{'ok' if ratio <= 1.05 else 'OVER'}"
          + ("; the default ran what -j 1 runs (one process): the difference is the machine's"
             " noise" if chosen == 1 else ""))
    return ratio


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--measures", default="map,P.10")
    p.add_argument("--sizes", default="1000x1000",
                   help="comma-separated QUERIESxDEPTH (default the issue's 1000x1000)")
    p.add_argument("--jobs", type=int, default=None, help="also time -j N")
    a = p.parse_args(argv)
    from workbench.cores import default_jobs

    print(f"{os.cpu_count()} CPUs visible, {default_jobs()} usable by default")
    for size in a.sizes.split(","):
        nq, depth = (int(x) for x in size.lower().split("x"))
        bench(nq, depth, a.measures.split(","), a.repeat, a.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
