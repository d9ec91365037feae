"""Judging TUI speed (issue 7): keystroke -> committed -> live panel updated, and startup.

    .venv/bin/python bench/tui_bench.py [--queries 50 --systems 20 --depth 100 --grades 200]

1. Builds a SQLite campaign of Q queries x S systems x depth D (pool = union of every
   system's top D per query, the whole pool assigned to one assessor).
2. Runs the real app headless (App.run_test) on its judging screen with the live panel
   open and presses grade keys one at a time, timing from the key press to the commit
   reported by the save worker and to the panel showing the recomputed scores.
   Target: p95 < 16 ms (one frame at 60 Hz).
3. Times the bare commit (`record_grade`) alone, the number behind "write in a worker".
4. Startup: wall time from launching a Python process to the first usable screen (the
   judging screen with its queue shown) on the sample database (a fresh copy), for a
   returning assessor and for a new one; target < 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(p / 100 * (len(values) - 1))))
    return values[k]


def row(name: str, ms: list[float]) -> str:
    return (f"{name:<34} n={len(ms):<5} p50={pct(ms, 50):7.2f} ms  p95={pct(ms, 95):7.2f} ms"
            f"  max={max(ms):7.2f} ms")


def build(path: Path, queries: int, systems: int, depth: int) -> None:
    from tests.tui.factory import build_campaign
    from workbench.campaign.database import Database

    db = Database.open(str(path))
    # Enough documents that pools are deep (about depth * 4 per query).
    build_campaign(db, n_queries=queries, n_systems=systems, depth=depth, n_docs=depth * 4,
                   assessors=("bench",), markup_doc=False)
    db.close()


async def keystrokes(path: Path, grades: int):
    from workbench.campaign.database import Database
    from workbench.tui.app import make_app
    from workbench.tui.screens.judge import JudgeScreen

    from workbench.campaign.judging import assessing
    from workbench.campaign.scoring.scores import ScoreTracker

    # Breakdown: wrap the two worker calls to time them (worker-side durations).
    stamps: dict[str, list[float]] = {"write": [], "scores": []}
    real_grade, real_refresh = assessing.grade_item, ScoreTracker.refresh

    def timed_grade(*a, **k):
        t = time.perf_counter()
        try:
            return real_grade(*a, **k)
        finally:
            stamps["write"].append((time.perf_counter() - t) * 1000)

    def timed_refresh(self):
        t = time.perf_counter()
        try:
            return real_refresh(self)
        finally:
            stamps["scores"].append((time.perf_counter() - t) * 1000)

    assessing.grade_item = timed_grade
    ScoreTracker.refresh = timed_refresh
    db = Database.open(str(path))
    app = make_app(db, assessor="bench")
    commit, panel, action_commit, action_panel = [], [], [], []
    async with app.run_test(size=(160, 48)) as pilot:
        for _ in range(200):
            await pilot.pause(0.01)
            if isinstance(app.screen, JudgeScreen) and app.screen.loaded:
                break
        screen = app.screen
        t0 = time.perf_counter()
        await pilot.press("s")  # open the panel: the first, full evaluation
        while not screen.query_one("#scores").query_one("#score-query").render():
            await asyncio.sleep(0.001)
        await app.workers.wait_for_complete()
        first_load = (time.perf_counter() - t0) * 1000
        for i in range(grades):
            n_before = len(screen.timings)
            start = time.perf_counter()
            await pilot.press(str(i % 4))
            while len(screen.timings) == n_before or not screen.timings[-1][2]:
                # the app stamps the times itself: a slow poll does not blur them, and a
                # busy one would steal the GIL from the app it measures
                await asyncio.sleep(0.005)
            t_key, t_commit, t_panel = screen.timings[-1]
            commit.append((t_commit - start) * 1000)
            panel.append((t_panel - start) * 1000)
            action_commit.append((t_commit - t_key) * 1000)
            action_panel.append((t_panel - t_key) * 1000)
            await app.workers.wait_for_complete()
    db.close()
    assessing.grade_item, ScoreTracker.refresh = real_grade, real_refresh
    keystrokes.stamps = stamps
    return commit, panel, action_commit, action_panel, first_load


def bare_commits(path: Path, n: int) -> list[float]:
    from workbench.campaign.judging import assessing
    from workbench.campaign.database import Database
    from workbench.campaign.judging.grades import record_grade

    db = Database.open(str(path))
    last = assessing.query_progress_page(db, "bench", limit=10**9)[0][-1].query
    queue = assessing.load_queue(db, "bench", last)
    items = [it for it in queue.items if not it.judged][:n]
    out = []
    for i, item in enumerate(items):
        t = time.perf_counter()
        record_grade(db, "bench2", queue.query.query, item.document, i % 4)
        out.append((time.perf_counter() - t) * 1000)
    db.close()
    return out


def startup_child(db: str, assessor: str) -> None:
    """Run in a fresh process: print READY when the judging screen shows its queue."""
    from workbench.tui.app import make_app
    from workbench.tui.screens.judge import JudgeScreen

    async def run() -> None:
        app = make_app(db, assessor=assessor)
        async with app.run_test(size=(160, 48)) as pilot:
            while not (isinstance(app.screen, JudgeScreen) and app.screen.loaded):
                await asyncio.sleep(0.002)
            print("READY", flush=True)
            await pilot.pause()

    asyncio.run(run())


def startup(sample: Path, runs: int = 5, assessor: str = "bench-startup") -> list[float]:
    times = []
    for _ in range(runs):
        tmp = Path(tempfile.mkdtemp(prefix="tui-bench-"))
        copy = tmp / "sample.sqlite"
        shutil.copyfile(sample, copy)
        t = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, __file__, "--startup-child", str(copy), "--assessor", assessor],
            stdout=subprocess.PIPE, text=True, env={**os.environ, "XDG_CONFIG_HOME": str(tmp)},
        )
        for line in proc.stdout:
            if line.startswith("READY"):
                times.append((time.perf_counter() - t) * 1000)
                break
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--grades", type=int, default=200)
    ap.add_argument("--startup-child")
    ap.add_argument("--assessor", default="bench-startup")
    ap.add_argument("--startup-only", action="store_true", help="only the startup timings")
    args = ap.parse_args()
    if args.startup_child:
        startup_child(args.startup_child, args.assessor)
        return
    tmp = Path(tempfile.mkdtemp(prefix="tui-bench-"))
    os.environ["XDG_CONFIG_HOME"] = str(tmp)
    sample = ROOT / "sample_db" / "sample.sqlite"
    if args.startup_only:
        print(row("startup, returning assessor (carol)", startup(sample, 7, "carol")))
        print(row("startup, new assessor (whole pool)", startup(sample, 7, "bench-startup")))
        return
    path = tmp / "bench.sqlite"
    t = time.perf_counter()
    build(path, args.queries, args.systems, args.depth)
    print(f"campaign: {args.queries} queries x {args.systems} systems x depth {args.depth} "
          f"(built in {time.perf_counter() - t:.1f} s)")
    commit, panel, a_commit, a_panel, first = asyncio.run(keystrokes(path, args.grades))
    print("from the grade action (key dispatched) to:")
    print(row("  committed (save worker reported)", a_commit))
    print(row("  committed -> panel updated", a_panel))
    print("from Pilot.press (includes the test driver's own waits) to:")
    print(row("  committed", commit))
    print(row("  committed -> panel updated", panel))
    print("inside the workers:")
    print(row("  grade write + commit (worker)", keystrokes.stamps["write"]))
    print(row("  scores, one query (worker)", keystrokes.stamps["scores"][1:]))
    print(f"{'first panel load (all queries)':<34} {first:7.1f} ms")
    print(row("record_grade alone (SQLite WAL)", bare_commits(path, 100)))
    if sample.is_file() and sample.stat().st_size:
        # a returning assessor (resumes in the middle) and a new one (the pool is
        # assigned to them first)
        print(row("startup, returning assessor (carol)", startup(sample, 5, "carol")))
        print(row("startup, new assessor (whole pool)", startup(sample, 5, "bench-startup")))
    else:
        print("startup: sample_db/sample.sqlite is empty; timing on the bench campaign instead")
        print(row("startup to judging screen (bench db)", startup(path, 3)))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
