"""CPU time of building the qrels index and of evaluating one run from loaded arrays.

    .venv/bin/python bench/index_bench.py [--repeat 3] [--sizes 10000,1000] [--profile] [--read]

Reads bench/data/q10000_d1000.{qrels,sys00.run} (see eval_bench.py); the 1 000-query case
is the first 1 000 queries of the same files. The arrays are cached as .npy files in
bench/data after a first read (--read: read the files with the readers every time). Each repeat is a fresh process (as
`workbench eval` is: first calls fault in fresh memory) timing QrelsIndex(...) then
per_query_values(...) with time.process_time; the best of --repeat is printed, and the
best user time alone (system time here is mostly first touches of fresh memory, which
varies from run to run).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data"
MEASURES = "map ndcg ndcg_cut.10 P.10 recall.100 recip_rank bpref Rprec".split()


def _user() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def _first_rows(qid: np.ndarray, nq: int) -> int:
    """Rows of the first nq query groups (the file is grouped by query)."""
    heads = np.flatnonzero(qid[1:] != qid[:-1]) + 1
    return int(heads[nq - 1]) if heads.size >= nq else qid.size


def _load(read: bool):
    """The qrels and run arrays, from a .npy cache in bench/data once the files were read
    (the cache keeps the timings independent of changes to the readers)."""
    names = ["qrels.qid", "qrels.docno", "qrels.rel", "run.qid", "run.docno", "run.score"]
    paths = [DATA / f"q10000_d1000.cache.{n}.npy" for n in names]
    if read or not all(p.exists() for p in paths):
        from workbench.formats.trec import read_qrels, read_run

        q = read_qrels(DATA / "q10000_d1000.qrels", check_duplicates=False, threads=1)
        r = read_run(DATA / "q10000_d1000.sys00.run", check_duplicates=False, all_tags=False, threads=1)
        arrays = (q.qid, q.docno, q.rel, r.qid, r.docno, r.score)
        if read:
            return arrays[:3], arrays[3:]
        for p, a in zip(paths, arrays):
            np.save(p, a)
    arrays = [np.load(p) for p in paths]
    return tuple(arrays[:3]), tuple(arrays[3:])


def child(size: int, profile: bool, read: bool) -> None:
    from workbench.evaluation.allocator import tune_allocator
    from workbench.metrics.evaluate import RunArrays, per_query_values
    from workbench.metrics.measures import parse_measures
    from workbench.metrics.ranking import QrelsIndex

    tune_allocator()
    ms = parse_measures(MEASURES)
    qa, ra = _load(read)
    if size < 10000:
        nq, nr = _first_rows(qa[0], size), _first_rows(ra[0], size)
        qa = tuple(a[:nq].copy() for a in qa)
        ra = tuple(a[:nr].copy() for a in ra)
    run = RunArrays(*ra, "")
    if profile:
        import cProfile
        import pstats

        pr = cProfile.Profile()
        pr.enable()
    t, u = time.process_time(), _user()
    idx = QrelsIndex(*qa)
    t_index, u_index = time.process_time() - t, _user() - u
    t, u = time.process_time(), _user()
    v, _ = per_query_values(idx, run, ms)
    t_eval, u_eval = time.process_time() - t, _user() - u
    if profile:
        pr.disable()
        pstats.Stats(pr, stream=sys.stderr).sort_stats("tottime").print_stats(30)
    sig = [repr(float(np.sum(v[m]))) for m in ms]
    print(json.dumps({"nq": idx.nq, "qrels": qa[0].size, "run": ra[0].size,
                      "index": t_index, "eval": t_eval, "index_user": u_index, "eval_user": u_eval,
                      "sig": sig}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", default="10000,1000")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--read", action="store_true", help="read the files in each process (no .npy cache)")
    ap.add_argument("--child", type=int)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.profile, args.read)
        return
    for size in [int(s) for s in args.sizes.split(",")]:
        res = []
        for _ in range(1 if args.profile else args.repeat):
            cmd = [sys.executable, __file__, "--child", str(size)] + (["--profile"] if args.profile else []) \
                + (["--read"] if args.read else [])
            out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
            res.append(json.loads(out))
        assert all(x["sig"] == res[0]["sig"] for x in res)
        r0 = res[0]
        print(f"{r0['nq']} queries, {r0['qrels']:,} qrels, {r0['run']:,} run rows: "
              f"index {min(x['index'] for x in res):.3f} s  eval {min(x['eval'] for x in res):.3f} s"
              f"  (CPU, best of {len(res)} fresh processes; user only: index "
              f"{min(x['index_user'] for x in res):.3f} s  eval {min(x['eval_user'] for x in res):.3f} s)"
              f"\n  sums {' '.join(r0['sig'])}")


if __name__ == "__main__":
    main()
