"""Issue 24 section 4: the speed ratios, each measured in one run, peers and ours alternately.

    .venv/bin/python bench/speed_bench.py [--repeat 3] [--trec-eval /tmp/trec_eval/trec_eval]
                                          [--imports 10] [--skip-eval]
                                          [--only kendall,kappa,startup,grading,eval,eval-summary]

1. Kendall tau-b (workbench.metrics.correlation) against scipy.stats.kendalltau at 1e5 and
   1e6 items, with and without ties; target: ratio >= 1 (ours at least as fast).
2. Cohen's kappa against sklearn.metrics.cohen_kappa_score at 1e6 labels; target >= 2x.
3. Start-up, whole processes on a fresh copy of the sample database: `list runs`, `score`,
   `eval` on a one-line run (targets 0.25 s, 0.25 s, 0.15 s), next to `python -c "import
   numpy"` (the floor on this machine now); and N `import run --name` processes of TREC-8
   size (50 queries x 1 000), extrapolated to 100 (target 20 s).
   Grading in the TUI (headless app, `--grades N`, `--only grading`): digit key -> grade
   committed -> next document drawn, on the sample; targets median 25 ms, p95 40 ms
   (bench/tmux_grading.py measures the same in a real terminal).
4. `eval` at 1 M run lines (1 000 queries x 1 000, bench/data/ from eval_bench.py) as a whole
   process against trec_eval (built from source; give its path) and pytrec_eval (parse + evaluate
   in its own process); targets >= 3x and >= 4x. `eval-summary`: the same without -q (the
   summary only, the common case; issue 37 #45), same targets.

Times are the best of --repeat (medians for start-up), peers and ours interleaved so that
load from other users of the machine falls on both.
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

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
PY = sys.executable
WORKBENCH = [PY, "-c", "import sys; from workbench.cli import main; sys.exit(main())"]
# Processes run with bytecode caching on (in a private prefix, nothing written to the tree),
# as an installed package has it: with PYTHONDONTWRITEBYTECODE=1 (set on the development
# machine) every run compiled the workbench's ~45 modules again, 0.1-0.2 s of each start-up.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV.update(PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=tempfile.mkdtemp(prefix="speed_bench_pyc_"))


def trec8_runs(tmp: Path, n: int) -> list[Path]:
    """n run files of TREC-8 size (50 topics x 1 000 documents) under tmp, the same each time."""
    rng = np.random.default_rng(8)
    runs = []
    for i in range(n):
        path = tmp / f"r{i}.run"
        lines = []
        for q in range(401, 451):
            docs = rng.choice(500_000, size=1000, replace=False)
            lines += [f"{q} Q0 FBIS-{d} {k + 1} {1000 - k} r{i}\n" for k, d in enumerate(docs)]
        path.write_text("".join(lines))
        runs.append(path)
    return runs


def interleaved(repeat: int, *fns):
    """Best wall time of each fn over `repeat` rounds, the fns alternating in each round."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t)
    return best


def process(args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(args, check=True, env=ENV, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def kendall(repeat: int) -> None:
    from scipy.stats import kendalltau

    from workbench.metrics.correlation import kendall_tau

    rng = np.random.default_rng(24)
    print("Kendall tau-b          ours      scipy     ratio (target >= 1)")
    # ties: integral values (grades, rounded scores: codes without a sort); ties/100: the
    # same ties on non-integral values (one float sort per vector)
    for n in (100_000, 1_000_000):
        for ties in ("no ties", "ties", "ties/100"):
            x = rng.random(n)
            y = x + rng.random(n)
            if ties != "no ties":
                x, y = np.round(x * 100), np.round(y * 50)
            if ties == "ties/100":
                x, y = x / 100, y / 100
            assert abs(kendall_tau(x, y) - kendalltau(x, y).statistic) < 1e-12
            ours, peer = interleaved(repeat, lambda: kendall_tau(x, y), lambda: kendalltau(x, y))
            label = f"{n:>9,} {ties}"
            print(f"{label:<20} {ours:8.3f}s {peer:8.3f}s {peer / ours:7.2f}x")


def kappa(repeat: int) -> None:
    from sklearn.metrics import cohen_kappa_score

    from workbench.metrics.agreement import cohen_kappa

    rng = np.random.default_rng(24)
    a = rng.integers(0, 4, 1_000_000)
    b = np.clip(a + rng.integers(-1, 2, a.size), 0, 3)
    assert abs(cohen_kappa(a, b) - cohen_kappa_score(a, b)) < 1e-12
    ours, peer = interleaved(repeat, lambda: cohen_kappa(a, b), lambda: cohen_kappa_score(a, b))
    print(f"Cohen's kappa 1e6      {ours:8.4f}s {peer:8.4f}s {peer / ours:7.2f}x (target >= 2)")


def startup(repeat: int, imports: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="speed_bench_"))
    db = tmp / "sample.sqlite"
    shutil.copy(ROOT / "sample_db" / "sample.sqlite", db)
    qrels, run = tmp / "one.qrels", tmp / "one.run"
    qrels.write_text("1 0 d1 1\n")
    run.write_text("1 Q0 d1 1 1.0 r\n")
    cases = {
        "python -c 'import numpy'": [PY, "-c", "import numpy"],
        "list runs": [*WORKBENCH, "--db", str(db), "list", "runs"],
        "score": [*WORKBENCH, "--db", str(db), "score"],
        "eval one line": [*WORKBENCH, "eval", str(qrels), str(run)],
    }
    times: dict[str, list[float]] = {k: [] for k in cases}
    for args in cases.values():  # warm-up: the bytecode cache and the page cache
        process(args)
    for _ in range(max(repeat, 5)):
        for name, args in cases.items():
            times[name].append(process(args))
    targets = {"list runs": 0.25, "score": 0.25, "eval one line": 0.15}
    print("Start-up (median of runs, whole process)")
    for name, ts in times.items():
        target = f"target <= {targets[name]:.2f}s" if name in targets else "floor"
        print(f"  {name:<26} {statistics.median(ts):6.3f}s  min {min(ts):6.3f}s  {target}")
    print("  (bytecode cached; with PYTHONDONTWRITEBYTECODE=1 add the compile time)")
    if imports:
        runs = trec8_runs(tmp, imports)
        t = time.perf_counter()
        for i, path in enumerate(runs):
            subprocess.run([*WORKBENCH, "--db", str(db), "import", "run", str(path), "--name",
                            f"bench-{i}"], check=True, env=ENV, stdout=subprocess.DEVNULL)
        took = time.perf_counter() - t
        print(f"  {imports} `import run --name` processes (50 x 1 000 lines): {took:.2f}s, "
              f"{took / imports:.3f}s each, 100 -> {took / imports * 100:.1f}s (target <= 20s)")
    shutil.rmtree(tmp)


def _timed(args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the process and its children)."""
    before = os.times()
    t = time.perf_counter()
    subprocess.run(args, check=True, env=ENV, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = os.times()
    return wall, (after.children_user - before.children_user
                  + after.children_system - before.children_system)


def eval_1m(repeat: int, trec_eval: str | None, per_query: bool = True) -> None:
    """`eval` at 1 M run lines as the user runs it (default jobs), against trec_eval and
    pytrec_eval, alternating in each round: best and median wall, and median CPU.
    per_query False: the summary only (no -q; pytrec_eval averages its per-query values,
    as it gives no summary of its own)."""
    import shlex

    from eval_bench import generate

    qrels, runs = generate(1000, 1000, 1, 0)
    run = runs[0]
    measures = ["map", "ndcg", "ndcg_cut.10", "P.10", "recall.100", "recip_rank", "bpref", "Rprec"]
    ms = [a for m in measures for a in ("-m", m)]
    q = ["-q"] if per_query else []
    cmds = {"workbench eval": [PY, "-m", "workbench", "eval", *q, *ms, str(qrels), str(run)]}
    write = ("sys.stdout.write(''.join(f'{m}\\t{k}\\t{v}\\n' for k, d in r.items() "
             "for m, v in d.items()))\n" if per_query else
             "ms = next(iter(r.values()))\n"
             "sys.stdout.write(''.join(f'{m}\\tall\\t{sum(d[m] for d in r.values()) / len(r):.4f}\\n' "
             "for m in ms))\n")
    cmds["pytrec_eval"] = [PY, "-c", (
        "import sys, pytrec_eval\n"
        f"q = pytrec_eval.parse_qrel(open({str(qrels)!r}))\n"
        f"ev = pytrec_eval.RelevanceEvaluator(q, {sorted(measures)!r})\n"
        f"r = ev.evaluate(pytrec_eval.parse_run(open({str(run)!r})))\n" + write)]
    if trec_eval:
        cmds["trec_eval"] = [trec_eval, *q, *ms, str(qrels), str(run)]
        ours = subprocess.run(cmds["workbench eval"], env=ENV, capture_output=True, check=True).stdout
        theirs = subprocess.run(cmds["trec_eval"], capture_output=True, check=True).stdout
        same = "byte-identical" if ours == theirs else "DIFFERENT"
    print(f"eval at 1 M run lines ({run.stat().st_size / 1e6:.0f} MB run, "
          f"{qrels.stat().st_size / 1e6:.0f} MB qrels), whole process, 8 measures, "
          f"{'-q' if per_query else 'summary only (no -q)'}, "
          f"{repeat} rounds alternating, load average before {os.getloadavg()[0]:.1f}:")
    for name, args in cmds.items():
        if name == "pytrec_eval":  # (its script, line by line)
            print(f"  {name}: {shlex.quote(PY)} -c SCRIPT, SCRIPT:")
            print("".join(f"      {line}\n" for line in args[2].splitlines()), end="")
        else:
            print(f"  {name}: {shlex.join(args)}")
    if trec_eval:
        print(f"  output of workbench eval and trec_eval: {same}")
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
    for _ in range(repeat):
        for name, args in cmds.items():
            times[name].append(_timed(args))
    stat = {name: (min(w for w, _ in t), statistics.median(w for w, _ in t),
                   statistics.median(c for _, c in t)) for name, t in times.items()}
    print(f"  load average after {os.getloadavg()[0]:.1f}")
    print(f"  {'':16} {'best wall':>10} {'median wall':>12} {'median CPU':>11}   ratios (best, median wall; CPU)")
    ob, om, oc = stat["workbench eval"]
    for name, (b, m, c) in stat.items():
        ratio = "" if name == "workbench eval" else (
            f"   {b / ob:.2f}x, {m / om:.2f}x; {c / oc:.2f}x (target >= "
            f"{4 if name == 'pytrec_eval' else 3})")
        print(f"  {name:16} {b:9.2f}s {m:11.2f}s {c:10.2f}s{ratio}")


async def _grading(db_path: Path, assessor: str, grades: int, read_s: float):
    """Each grade: the digit key handed to the app as the terminal driver hands it over, then
    the clock stops at the first frame composed after the screen applied the committed
    grade (GradeSaved: the save worker commits before it posts it), once that frame shows
    the next document. No Pilot.press in the timed part: it sleeps in wait_for_idle (at
    least 20 ms, twice) after each key, which the old figure (127 ms) included."""
    from textual import events

    from workbench.campaign.database import Database
    from workbench.campaign.judging.assessing import first_unjudged
    from workbench.tui.app import make_app
    from workbench.tui.screens.judge import JudgeScreen

    db = Database.open(str(db_path))
    app = make_app(db, assessor=assessor)
    took: list[float] = []
    phases: dict[str, list[float]] = {"commit": [], "cpu": []}
    state: dict = {}
    drawn = asyncio.Event()
    real_display = app._display

    def display(screen, update):  # called once a frame is composed (headless: not written)
        real_display(screen, update)
        if "saved" in state and "frame" not in state:
            state["frame"] = time.perf_counter()
            drawn.set()

    app._display = display
    async with app.run_test(size=(160, 48)) as pilot:
        for _ in range(500):
            await pilot.pause(0.01)
            if isinstance(app.screen, JudgeScreen) and app.screen.loaded:
                break
        screen = app.screen
        session = screen.session
        real_save, real_drain = session.save_grade, screen._drain

        def save_grade(*a, **k):
            t = time.perf_counter()
            try:
                return real_save(*a, **k)
            finally:
                phases["commit"].append((time.perf_counter() - t) * 1000)

        def drain():  # the last step of on_grade_saved
            real_drain()
            if len(screen.timings) > state.get("n", 1 << 30):
                state["saved"] = True

        session.save_grade, screen._drain = save_grade, drain
        await pilot.pause(0.3)
        i = 0
        while len(took) < grades and i < 4 * grades:
            i += 1
            if first_unjudged(screen.items, 0) is None:  # query done: to the next (untimed)
                query = screen.query_ext
                await pilot.press("]")
                for _ in range(500):
                    await pilot.pause(0.01)
                    if screen.query_ext != query and screen.loaded:
                        break
                else:
                    break  # nothing left to grade
                await pilot.pause(read_s)
                continue
            graded = screen.cursor
            state.clear()
            state["n"] = len(screen.timings)
            drawn.clear()
            key = str(i % 4)
            event = events.Key(key, key)
            event.set_sender(app)
            c0, t0 = time.process_time(), time.perf_counter()
            app._driver.send_message(event)
            await asyncio.wait_for(drawn.wait(), 30)
            took.append((state["frame"] - t0) * 1000)
            phases["cpu"].append((time.process_time() - c0) * 1000)
            shown = str(screen.query_one("#doc-title").content)
            current = screen.session.current
            assert screen.items[graded].judged, "the grade was not applied"
            assert current is not None and current.document in shown, "next document not drawn"
            await pilot.pause(read_s)  # the assessor reads the next document
    db.close()
    return took, phases


def grading(grades: int, read_s: float = 0.2) -> None:
    """Digit key -> grade on disk -> the next document on screen, on the sample (carol has
    about 100 documents left), headless (App.run_test)."""
    tmp = Path(tempfile.mkdtemp(prefix="speed_bench_tui_"))
    db = tmp / "sample.sqlite"
    shutil.copy(ROOT / "sample_db" / "sample.sqlite", db)
    load = os.getloadavg()[0]
    took, phases = asyncio.run(_grading(db, "carol", grades, read_s))
    shutil.rmtree(tmp)

    def p95(values: list[float]) -> float:
        values = sorted(values)
        return values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]

    print(f"Grading, key -> grade committed -> next document drawn ({len(took)} grades, "
          f"headless, load average {load:.1f} -> {os.getloadavg()[0]:.1f}): "
          f"median {statistics.median(took):.1f} ms, p95 {p95(took):.1f} ms "
          f"(targets 25 ms and 40 ms)")
    print(f"  of it: the commit (worker) median {statistics.median(phases['commit']):.1f} ms; "
          f"CPU of the process key -> frame median {statistics.median(phases['cpu']):.1f} ms, "
          f"p95 {p95(phases['cpu']):.1f} ms")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--trec-eval", default=None, help="path of a trec_eval binary built from source")
    p.add_argument("--imports", type=int, default=10, help="`import run` processes (0: skip)")
    p.add_argument("--skip-eval", action="store_true")
    p.add_argument("--grades", type=int, default=60, help="grades given in the TUI (0: skip)")
    parts = ("kendall", "kappa", "startup", "grading", "eval", "eval-summary")
    p.add_argument("--only", default=",".join(parts),
                   help=f"comma-separated parts to run, of {', '.join(parts)} (default: all)")
    a = p.parse_args(argv)
    only = set(a.only.split(","))
    if only - set(parts):
        p.error(f"--only: unknown part {', '.join(sorted(only - set(parts)))}")
    print(f"{os.cpu_count()} CPUs visible, load average {os.getloadavg()[0]:.1f}")
    if "kendall" in only:
        kendall(a.repeat)
    if "kappa" in only:
        kappa(a.repeat)
    if "startup" in only:
        startup(a.repeat, a.imports)
    if a.grades and "grading" in only:
        grading(a.grades)
    if not a.skip_eval and "eval" in only:
        eval_1m(a.repeat, a.trec_eval)
    if not a.skip_eval and "eval-summary" in only:
        eval_1m(a.repeat, a.trec_eval, per_query=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
