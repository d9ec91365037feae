"""Scale benchmark (issue 6): a big campaign end to end, through the real commands.

    .venv/bin/python bench/scale_bench.py [--queries 10000 --systems 50 --depth 20
                                           --judged 100 --pool-depth 5] [--keep]

Builds (seeded) Q queries, S system runs of depth D per query and one assessor's qrels of
J judged documents per query (Q x J judgments), then times each step in its own process
(`python -m workbench ...`, as a user runs it) on a fresh SQLite database and reports wall
time and that process's peak RSS (os.wait4 rusage):

1. `workbench import run` for each of the S runs (Q x D results each),
2. `workbench import qrels` of the Q x J judgments,
3. `workbench pool --depth P --assessor bob` (assignments for the judging screen),
4. `workbench score` (default measures, consensus of the stored judgments),
5. TUI startup to the first screen, in a fresh process: the assessor's judging screen
   (`workbench judge --assessor bob`: queue loaded) and the lead's start screen,
6. one `workbench grade` on the full database (a user's single commit).

The issue's size, 10 000 queries x 50 systems x depth 1 000, is 500 000 000 result rows
(~25 GB of SQLite); the default here is depth 20 (10 000 000 rows), and the table gives
rows/s so that the full size can be extrapolated (see the report in issue 6).
Data goes to bench/data/scale/ (git-ignored); `--keep` keeps the database.

Measured 2026-11-22 on the shared 2-core / 24 GB machine (other benches running), default
size (10 000 queries x 50 systems x depth 20 = 10 M results, 1 M judgments, 0.96 GB file):

    step                                   before fixes       after fixes
    import 50 runs (200 000 rows each)     192 s,  329 MB     179 s,  329 MB  (~56 000 rows/s)
    import qrels (1 000 000 judgments)       9 s,  489 MB      11 s,  488 MB
    pool --depth 5 --assessor bob           48 s, 2138 MB      54 s, 1847 MB
    workbench score (default measures)     112 s, 9904 MB      32 s, 1057 MB
    workbench score -m ndcg_cut.10 -a X    111 s, 9720 MB      26 s, 1000 MB
    TUI judge: queue shown (from exec)     5.1 s,  462 MB     5.9 s,  397 MB
    TUI lead start screen (from exec)      1.4 s,   93 MB     0.7 s,   84 MB
    grade --batch, 10 grades (from exec)   1.1 s,   93 MB     0.5 s,   59 MB

2026-11-25, after issue 11 (stored runs as arrays, read without scores; the pool written
as arrays), quiet machine: import 50 runs 38.9 s (257 000 rows/s), 244 MB; import qrels
7.6 s; pool --depth 5 9.4 s, 537 MB (16.3 s, 1250 MB before the pool's arrays); score
(default measures) 1.75 s, 411 MB; score -m ndcg_cut.10 -a alice 1.52 s, 357 MB; TUI judge
queue 1.7 s; lead start screen 0.46 s; grade --batch 0.34 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "scale"
WORKBENCH = [sys.executable, "-m", "workbench"]


# ----------------------------------------------------------------------------- data


def make_data(q: int, s: int, depth: int, judged: int, seed: int = 6) -> tuple[list[Path], Path]:
    """Per query a candidate set of 2*depth documents (from a 1 000 000-id collection);
    each system ranks `depth` of them, so systems overlap like real ones; the qrels judge
    `judged` candidates per query with grades 0-3 (mostly 0)."""
    tag = f"q{q}_s{s}_d{depth}_j{judged}"
    folder = DATA / tag
    folder.mkdir(parents=True, exist_ok=True)
    runs = [folder / f"sys{i:02d}.run" for i in range(s)]
    qrels = folder / "judgments.qrels"
    if all(p.exists() for p in runs) and qrels.exists():
        return runs, qrels
    rng = np.random.default_rng(seed)
    cand_n = max(2 * depth, judged)
    # distinct per query: a random start plus strictly increasing steps (span < 10^6)
    steps = rng.integers(1, 50, size=(q, cand_n)).cumsum(axis=1)
    candidates = (rng.integers(0, 1_000_000, size=(q, 1)) + steps) % 1_000_000
    qids = np.char.add("Q", np.arange(1, q + 1).astype(str))
    for i, path in enumerate(runs):
        pick = np.argsort(rng.random((q, cand_n)), axis=1)[:, :depth]
        docs = np.take_along_axis(candidates, pick, axis=1)
        scores = np.sort(rng.random((q, depth)) * 30, axis=1)[:, ::-1]
        ranks = np.arange(1, depth + 1)
        with open(path, "w") as out:
            for qi in range(q):
                out.write("".join(
                    f"{qids[qi]} Q0 D{d:07d} {r} {sc:.5f} sys{i:02d}\n"
                    for d, r, sc in zip(docs[qi].tolist(), ranks.tolist(), scores[qi].tolist())
                ))
    grades = rng.choice(4, size=(q, judged), p=[0.6, 0.2, 0.12, 0.08])
    with open(qrels, "w") as out:
        for qi in range(q):
            docs = np.unique(candidates[qi])[:judged]
            out.write("".join(
                f"{qids[qi]} 0 D{d:07d} {g}\n" for d, g in zip(docs.tolist(), grades[qi].tolist())
            ))
    return runs, qrels


# ----------------------------------------------------------------------------- timing


def timed(argv: list[str], env: dict | None = None, ready: str | None = None) -> tuple[float, float, str]:
    """Run argv; return (wall seconds, peak RSS MB of that process, stdout). With `ready`,
    the wall time stops at the first stdout line starting with it."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env=env)
    wall = None
    out_lines = []
    for line in proc.stdout:
        out_lines.append(line)
        if ready and wall is None and line.startswith(ready):
            wall = time.perf_counter() - t
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if wall is None:
        wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, argv))} failed ({proc.returncode}):\n{err[-2000:]}")
    return wall, usage.ru_maxrss / 1024, "".join(out_lines)


def tui_child(db: str, lead: bool) -> None:
    """In a fresh process: print READY when the first usable screen is drawn."""
    from workbench.tui.app import make_app
    from workbench.tui.screens.judge import JudgeScreen

    async def run() -> None:
        app = make_app(db, assessor=None if lead else "bob", lead=lead)
        async with app.run_test(size=(160, 48)) as pilot:
            if lead:
                await pilot.pause()
                while app.screen.__class__.__name__ != "AssessorScreen" or not app.screen.names:
                    await asyncio.sleep(0.002)
            else:
                while not (isinstance(app.screen, JudgeScreen) and app.screen.loaded):
                    await asyncio.sleep(0.002)
            print("READY", flush=True)
            await pilot.pause()

    asyncio.run(run())


# ----------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--systems", type=int, default=50)
    ap.add_argument("--depth", type=int, default=20)
    ap.add_argument("--judged", type=int, default=100, help="judgments per query")
    ap.add_argument("--pool-depth", type=int, default=5)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--tui-child", nargs=2, metavar=("DB", "MODE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.tui_child:
        tui_child(args.tui_child[0], args.tui_child[1] == "lead")
        return

    q, s, d, j = args.queries, args.systems, args.depth, args.judged
    t = time.perf_counter()
    runs, qrels = make_data(q, s, d, j)
    print(f"data: {q} queries x {s} systems x depth {d} = {q * s * d:,} results; "
          f"{q * j:,} judgments ({time.perf_counter() - t:.1f} s to generate)", flush=True)
    work = Path(tempfile.mkdtemp(prefix="scale-bench-"))
    db = str(work / "scale.sqlite")
    env = {**os.environ, "XDG_CONFIG_HOME": str(work / "config")}
    env.pop("WORKBENCH_DB", None)
    rows: list[tuple[str, float, float, str]] = []

    def step(name: str, argv: list[str], note: str = "", ready: str | None = None) -> str:
        wall, rss, out = timed(argv, env, ready)
        rows.append((name, wall, rss, note))
        print(f"  {name:<44} {wall:9.2f} s  {rss:8.0f} MB  {note}", flush=True)
        return out

    step("workbench init", [*WORKBENCH, "init", "--db", db])
    walls, rss_max = [], 0.0
    for i, run in enumerate(runs):
        wall, rss, _ = timed([*WORKBENCH, "import", "run", str(run), "--db", db], env)
        walls.append(wall)
        rss_max = max(rss_max, rss)
        if i in (0, len(runs) - 1):
            print(f"  import run {i + 1}/{len(runs)}: {wall:.2f} s, {rss:.0f} MB", flush=True)
    total = sum(walls)
    rows.append((f"import {s} runs ({q * d:,} rows each)", total, rss_max,
                 f"{q * s * d / total:,.0f} rows/s; first {walls[0]:.1f} s, last {walls[-1]:.1f} s"))
    print(f"  {rows[-1][0]:<44} {total:9.2f} s  {rss_max:8.0f} MB  {rows[-1][3]}", flush=True)
    step(f"import qrels ({q * j:,} judgments)",
         [*WORKBENCH, "import", "qrels", str(qrels), "--assessor", "alice", "--db", db])
    rows[-1] = (*rows[-1][:3], f"{q * j / rows[-1][1]:,.0f} judgments/s")
    step(f"pool --depth {args.pool_depth} --assessor bob",
               [*WORKBENCH, "pool", "--depth", str(args.pool_depth), "--assessor", "bob", "--db", db])
    step("workbench score (default measures)", [*WORKBENCH, "score", "--db", db],
         f"{s} systems x {q:,} queries")
    step("workbench score -m ndcg_cut.10 --assessor alice",
         [*WORKBENCH, "score", "-m", "ndcg_cut.10", "--assessor", "alice", "--db", db])
    me = [sys.executable, str(Path(__file__).resolve()), "--tui-child", db]
    step("TUI judge --assessor bob: queue shown", [*me, "judge"], "from process start", ready="READY")
    step("TUI lead start screen shown", [*me, "lead"], "from process start", ready="READY")
    # carol has no assignment once bob's pool exists: --anywhere grades outside it
    step("workbench grade --batch (10 grades)",
         [*WORKBENCH, "grade", "--db", db, "--assessor", "carol", "--batch", str(qrels_head(qrels, work)),
          "--anywhere"],
         "one commit each, incl. process startup")
    size = sum(p.stat().st_size for p in work.glob("scale.sqlite*")) / 1e9
    print()
    print(f"scale bench: {q:,} queries, {s} systems x depth {d} = {q * s * d:,} results, "
          f"{q * j:,} judgments; SQLite file {size:.2f} GB; machine: {os.cpu_count()} cores")
    print(f"| {'step':<46} | {'wall s':>8} | {'peak RSS MB':>11} | note")
    print(f"|{'-' * 48}|{'-' * 10}|{'-' * 13}|------")
    for name, wall, rss, note in rows:
        print(f"| {name:<46} | {wall:8.2f} | {rss:11.0f} | {note}")
    if args.keep:
        print(f"database kept: {db}")
    else:
        for p in work.glob("scale.sqlite*"):
            p.unlink()


def qrels_head(qrels: Path, work: Path, n: int = 10) -> Path:
    """The first n judged pairs as a `query doc grade` batch for `workbench grade`."""
    out = work / "grades.batch"
    with open(qrels) as src, open(out, "w") as dst:
        for _, line in zip(range(n), src):
            qid, _, doc, grade = line.split()
            dst.write(f"{qid} {doc} {(int(grade) + 1) % 4}\n")
    return out


if __name__ == "__main__":
    main()
