"""Nugget scores and assignment imports at TREC RAG size (issue 33):

    .venv/bin/python bench/nugget_bench.py [--runs 300 --topics 100 --nuggets 30] [--pg URL]

Writes a create-output file (topics × nuggets) and an assign-output file (runs × topics,
every nugget labelled: runs × topics × nuggets assignments), then times, each as a whole
`workbench` process: `import nuggets`, `import assignments -a ann` (on SQLite, and on
PostgreSQL through COPY when --pg gives a URL of an empty schema), and
`score --nuggets --source assessor:ann --format json` with its peak memory (ru_maxrss).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORKBENCH = [sys.executable, "-m", "workbench"]
LABELS = ("support", "partial_support", "not_support")


def make_files(folder: Path, runs: int, topics: int, nuggets: int) -> tuple[Path, Path]:
    rnd = random.Random(1)
    banks = {f"t{t}": [{"text": f"nugget {t}.{i}", "importance": "vital" if i % 3 == 0 else "okay"}
                       for i in range(nuggets)] for t in range(topics)}
    create = folder / "nuggets.jsonl"
    with create.open("w") as out:
        for t, bank in banks.items():
            out.write(json.dumps({"qid": t, "query": f"topic {t}", "nuggets": bank}) + "\n")
    assign = folder / "assign.jsonl"
    with assign.open("w") as out:
        for t, bank in banks.items():
            for r in range(runs):
                out.write(json.dumps({"qid": t, "query": f"topic {t}", "run_id": f"run{r:03d}",
                                      "nuggets": [{**n, "assignment": rnd.choice(LABELS)} for n in bank]}) + "\n")
    return create, assign


# The process reports its own peak (RUSAGE_CHILDREN would be the largest of every child).
_PEAK = ("import atexit, resource, runpy, sys; "
         "atexit.register(lambda: sys.stderr.write('peak-kb %d\\n' % "
         "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)); "
         "sys.argv = ['workbench'] + sys.argv[1:]; runpy.run_module('workbench', run_name='__main__')")


def timed(*args: str) -> tuple[float, float]:
    """(seconds, peak MB) of one workbench process."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _PEAK, *args], check=True, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    kb = [int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("peak-kb ")]
    return seconds, (kb[-1] / 1024 if kb else float("nan"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--nuggets", type=int, default=30)
    parser.add_argument("--pg", default=None, help="PostgreSQL URL of an empty database/schema")
    a = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        create, assign = make_files(folder, a.runs, a.topics, a.nuggets)
        n = a.runs * a.topics * a.nuggets
        urls = [f"sqlite:///{folder / 'bench.sqlite'}"] + ([a.pg] if a.pg else [])
        for url in urls:
            backend = url.split(":")[0]
            subprocess.run([*WORKBENCH, "--db", url, "init"], check=True, stdout=subprocess.DEVNULL)
            s, _ = timed("--db", url, "import", "nuggets", str(create))
            print(f"{backend:12} import nuggets ({a.topics * a.nuggets}):        {s:6.2f} s")
            s, mb = timed("--db", url, "import", "assignments", str(assign), "-a", "ann")
            print(f"{backend:12} import assignments ({n}): {s:6.2f} s  (target <= 10 s)")
            s, mb = timed("--db", url, "score", "--nuggets", "--source", "assessor:ann", "--format", "json")
            print(f"{backend:12} score --nuggets ({n}):    {s:6.2f} s, peak {mb:.0f} MB "
                  "(targets <= 1.5 s, <= 500 MB)")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONPATH", str(Path(__file__).resolve().parent.parent))
    main()
