"""Calibrate benchmark (issue 22): `workbench calibrate` at TREC-8 size, as a whole process.

    .venv/bin/python bench/calibrate_bench.py [--queries 50 --systems 100 --depth 1000
                                               --labels 60000] [--keep]

Builds (seeded) Q queries, S runs of depth D per query (Q x S x D results), a machine
assessor with L labels (L / Q pooled documents per query) and L human labels from two
people (alice judges 60 %, bob 40 % of the items, overlapping on a fifth of them) on a fresh
SQLite database, then runs `python -m workbench calibrate --machine llm --format json`
(1000 bootstrap resamples over items and over queries, map) in its own process and reports
its wall time and peak RSS (os.wait4 rusage). Target: <= 2 s and <= 500 MB.
Data goes to bench/data/calibrate/ (git-ignored); `--keep` keeps the database.

Measured 2026-11-27 on the shared 2-core machine with about 8 other sessions running (load
average 9.5), default size (50 queries x 100 runs x depth 1000 = 5 M results; 60 000
machine labels, 57 563 human labels, 50 365 common items; build 44 s):

    calibrate --format json   4.1-4.4 s wall, 1.75 s CPU (user+sys), peak RSS 216 MB

The wall time is the CPU time stretched by the load; on a quiet 2-core machine the process
takes about its CPU time (under the 2 s target, to be confirmed there). Before the batch
correlations (2 000 scalar tau/tau_AP/RBO calls for the bootstrap over queries) it was
7 s wall, 350 MB.

Re-measured after the issue 27 merge (load average 8.6-10.7): 4.0-4.2 s wall, 2.3-2.5 s CPU,
peak RSS 344 MB. Profile (cProfile, one run): importing SQLAlchemy and the models 1.1 s;
the three score tables of the rankings 1.1 s (three evaluations of the 5 M results, 0.63 s,
and their qrels reads); the qrels are read five times (reference, machine, then again for
each table and the hybrid: 0.5 s in all) - sharing those reads is the next cut, not made yet.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "calibrate"


def build(db_path: Path, queries: int, systems: int, depth: int, labels: int, seed: int = 1) -> dict:
    sys.path.insert(0, str(ROOT))
    from workbench.campaign.catalog.importing import import_qrels, import_runs
    from workbench.campaign.database import Database
    from workbench.campaign.machine.provenance import make_provenance

    rng = np.random.default_rng(seed)
    DATA.mkdir(parents=True, exist_ok=True)
    n_docs = max(depth * 2, labels // queries * 2)
    qids = [f"{400 + i}" for i in range(queries)]
    per_query = labels // queries
    truth = rng.choice(4, size=(queries, n_docs), p=[0.6, 0.2, 0.12, 0.08])
    t = time.perf_counter()
    paths = []
    for s in range(systems):
        skill = s / max(systems - 1, 1)
        lines = []
        for qi, q in enumerate(qids):
            score = skill * truth[qi] + rng.normal(0, 1.5, n_docs)
            top = np.argsort(-score, kind="stable")[:depth]
            lines.append("".join(f"{q} Q0 D{d:06d} {r} {score[d]:.5f} run{s:03d}\n"
                                 for r, d in enumerate(top.tolist(), 1)))
        path = DATA / f"run{s:03d}.txt"
        path.write_text("".join(lines))
        paths.append(path)
    items = [(qi, d) for qi in range(queries) for d in range(per_query)]
    machine = np.clip(truth[tuple(np.array(items).T)] + (rng.random(len(items)) < 0.3), 0, 3)
    machine = np.where(rng.random(len(items)) < 0.2, rng.integers(0, 4, len(items)), machine)
    alice = rng.random(len(items)) < 0.6
    bob = (~alice & (rng.random(len(items)) < 0.6)) | (alice & (rng.random(len(items)) < 0.2))
    files = {}
    for name, keep, noise in (("llm", np.ones(len(items), bool), None), ("alice", alice, 0.15), ("bob", bob, 0.2)):
        grades = machine if noise is None else np.where(
            rng.random(len(items)) < noise, rng.integers(0, 4, len(items)), truth[tuple(np.array(items).T)])
        text = "".join(f"{qids[qi]} 0 D{d:06d} {int(g)}\n"
                       for (qi, d), g, k in zip(items, grades.tolist(), keep.tolist()) if k)
        files[name] = DATA / f"{name}.qrels"
        files[name].write_text(text)
    db = Database.open(f"sqlite:///{db_path}")
    try:
        import_runs(db, paths)
        import_qrels(db, files["alice"], assessor="alice")
        import_qrels(db, files["bob"], assessor="bob")
        import_qrels(db, files["llm"], assessor="llm", machine=make_provenance("bench-model"))
    finally:
        db.close()
    return {"build_s": round(time.perf_counter() - t, 1), "results": queries * systems * depth,
            "machine_labels": len(items), "human_labels": int(alice.sum() + bob.sum())}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--systems", type=int, default=100)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--labels", type=int, default=60000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    db_path = DATA / f"calibrate-{args.queries}x{args.systems}x{args.depth}-{args.labels}.sqlite"
    if not db_path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        print("building", json.dumps(build(db_path, args.queries, args.systems, args.depth, args.labels)))
    argv = [sys.executable, "-m", "workbench", "calibrate", "--db", f"sqlite:///{db_path}",
            "--machine", "llm", "--format", "json"]
    for _ in range(args.repeat):
        wall, rss, cpu, out = _run(argv)
        report = json.loads(out)
        print(f"calibrate: {wall:.2f} s wall, {cpu:.2f} s CPU (user+sys), peak RSS {rss:.0f} MB; "
              f"load average {os.getloadavg()[0]:.1f}; items {report['items']}, "
              f"kappa_binary {report['kappa_binary']:.4f}, tau_b human/machine "
              f"{report['rankings']['human_vs_machine']['tau_b']:.4f}, "
              f"{report['rankings']['systems']} systems x {report['rankings']['queries']} queries")
    if not args.keep:
        db_path.unlink()


def _run(argv: list[str]) -> tuple[float, float, float, str]:
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"calibrate failed:\n{err.decode()[-2000:]}")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime, out.decode()


if __name__ == "__main__":
    main()
