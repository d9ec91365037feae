"""Start-up of the database commands, whole processes, this tree against another checkout.

    python bench/startup_bench.py [--baseline /path/to/other/checkout] [--repeat 7] [--imports 10]

Each round runs every command once with this tree's `workbench` and once with the
baseline's (PYTHONPATH), alternating, on one fresh copy of the sample database, so that
load from other users falls on both; prints medians and the ratios. Bytecode is cached
(PYTHONDONTWRITEBYTECODE removed, a private pycache prefix), as an installed package has it.
`--imports N`: N `import run --name` processes at TREC-8 size (50 x 1 000 lines) each way.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
MAIN = "import sys; from workbench.cli import main; sys.exit(main())"


def env_for(tree: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cache = Path(tempfile.gettempdir()) / ("startup_bench_pyc" + str(tree).replace(os.sep, "_"))
    env.update(PYTHONPATH=str(tree), PYTHONPYCACHEPREFIX=str(cache))
    return env


def timed(args: list[str], env: dict) -> float:
    t = time.perf_counter()
    # cwd: not a checkout (`python -c` puts the current folder first on sys.path)
    subprocess.run(args, check=True, env=env, stdout=subprocess.DEVNULL, cwd=tempfile.gettempdir())
    return time.perf_counter() - t


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", type=Path, default=None, help="another checkout to compare with")
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--imports", type=int, default=0)
    a = p.parse_args(argv)
    trees = {"ours": ROOT} | ({"base": a.baseline.resolve()} if a.baseline else {})
    tmp = Path(tempfile.mkdtemp(prefix="startup_bench_"))
    db = tmp / "sample.sqlite"
    shutil.copy(ROOT / "sample_db" / "sample.sqlite", db)
    (tmp / "one.qrels").write_text("1 0 d1 1\n")
    (tmp / "one.run").write_text("1 Q0 d1 1 1.0 r\n")
    cases = {
        "python -c 'import numpy'": [PY, "-c", "import numpy"],
        "list runs": [PY, "-c", MAIN, "--db", str(db), "list", "runs"],
        "score": [PY, "-c", MAIN, "--db", str(db), "score"],
        "score --format trec": [PY, "-c", MAIN, "--db", str(db), "score", "--format", "trec"],
        "list queries": [PY, "-c", MAIN, "--db", str(db), "list", "queries"],
        "export qrels": [PY, "-c", MAIN, "--db", str(db), "export", "qrels"],
        "eval one line": [PY, "-c", MAIN, "eval", str(tmp / "one.qrels"), str(tmp / "one.run")],
    }
    envs = {name: env_for(tree) for name, tree in trees.items()}
    times = {(c, t): [] for c in cases for t in trees}
    for c, args in cases.items():  # warm-up: bytecode and page caches
        for t in trees:
            timed(args, envs[t])
    for _ in range(a.repeat):
        for c, args in cases.items():
            for t in trees:
                times[c, t].append(timed(args, envs[t]))
    print(f"load average {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f}; medians of {a.repeat}")
    for c in cases:
        cells = "  ".join(f"{t} {statistics.median(times[c, t]):6.3f}s (min {min(times[c, t]):.3f})"
                          for t in trees)
        ratio = (f"  base/ours {statistics.median(times[c, 'base']) / statistics.median(times[c, 'ours']):.2f}x"
                 if "base" in trees else "")
        print(f"  {c:<26} {cells}{ratio}")
    if a.imports:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from speed_bench import trec8_runs

        runs = trec8_runs(tmp, a.imports)
        took = {t: 0.0 for t in trees}
        for i, path in enumerate(runs):  # alternating, one database each way
            for t in trees:
                tdb = tmp / f"imports-{t}.sqlite"
                if i == 0:
                    shutil.copy(db, tdb)
                took[t] += timed([PY, "-c", MAIN, "--db", str(tdb), "import", "run", str(path),
                                  "--name", f"bench-{i}"], envs[t])
        print(f"  load average {os.getloadavg()[0]:.1f}")
        for t in trees:
            print(f"  {a.imports} `import run --name` processes, {t}: {took[t]:.2f}s, "
                  f"{took[t] / a.imports:.3f}s each, 100 -> {took[t] / a.imports * 100:.1f}s (target <= 20s)")
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
