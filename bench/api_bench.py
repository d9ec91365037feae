"""The Python API (issue 38, speed): `workbench.evaluate` from dicts against ranx and
ir_measures on the same dicts, and from DataFrames against from files.

    .venv/bin/python bench/api_bench.py [--queries 1000 --docs 1000 --judged 200 --repeat 3]

A synthetic collection: `--queries` queries, a run of `--docs` documents each (distinct
scores), qrels of `--judged` documents per query (grades 0-2). Eight measures, timed from
the dicts to the numbers (best of `--repeat`):
- workbench.evaluate(qrels_dict, run_dict, 8 measures);
- ranx: Qrels(dict) + Run(dict) + evaluate(...), after one untimed call on the same input so
  that numba has compiled everything;
- ir_measures.calc_aggregate(8 measures, qrels_dict, run_dict) (pytrec_eval underneath);
- workbench.evaluate from two pandas DataFrames (ir_measures' column names) and from the
  same data as TREC files.
The values are checked equal (largest difference printed). Targets: >= 3x ranx, >= 5x
ir_measures, DataFrames at least as fast as files.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

OURS = ["AP", "nDCG@10", "P@10", "R@100", "RR", "Rprec", "nDCG", "P@20"]
RANX = ["map", "ndcg@10", "precision@10", "recall@100", "mrr", "r-precision", "ndcg",
        "precision@20"]


def collection(n_q: int, n_d: int, judged: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_q):
        qid = f"q{q}"
        docs = [f"doc{q}-{i}" for i in range(n_d)]
        scores = rng.permutation(n_d * 10)[:n_d] / 7.0
        run[qid] = dict(zip(docs, scores.tolist()))
        pick = rng.choice(n_d * 2, size=judged, replace=False)  # half of them retrieved
        grades = rng.choice([0, 0, 0, 1, 2], size=judged)
        grades[0] = 1
        qrels[qid] = {f"doc{q}-{i}": int(g) for i, g in zip(pick.tolist(), grades.tolist())}
    return qrels, run


def best(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def floor(qrels, run, repeat: int) -> None:
    """What reading the dicts costs before any evaluating: the three walks over Python
    objects that evaluate(dicts) cannot skip (every score; every judged document looked up
    in its query's run, done in C by dict.update; every id's type checked, since the
    arrays path matches 5 with "5"): pure Python + numpy, no numpy work counted."""
    import itertools

    import numpy as np

    chain = itertools.chain.from_iterable
    inner = list(run.values())
    n = sum(map(len, inner))

    def scores():
        return np.fromiter(chain(v.values() for v in inner), dtype=np.float64, count=n)

    def lookups():
        for q, docs in run.items():
            c = docs.copy()
            c.update(qrels[q])
            np.fromiter(c.values(), dtype=np.float64, count=len(docs))

    def types():
        for v in inner:
            "".join(v)

    parts = [("every score read", best(scores, repeat)[0]),
             ("judged documents found (copy+update)", best(lookups, repeat)[0]),
             ("every id checked a str", best(types, repeat)[0])]
    print("  the Python object walks alone (in evaluate(dicts) above):")
    for name, t in parts:
        print(f"    {name:<40} {t * 1000:7.1f} ms")
    print(f"    {'sum':<40} {sum(t for _, t in parts) * 1000:7.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--judged", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    import workbench

    qrels, run = collection(args.queries, args.docs, args.judged)
    print(f"{args.queries} queries x {args.docs} documents, {args.judged} judged per query, "
          f"{len(OURS)} measures: {' '.join(OURS)}")
    t_ours, ours = best(lambda: workbench.evaluate(qrels, run, OURS), args.repeat)
    rows = [("workbench.evaluate(dicts)", t_ours)]

    diffs = {}
    try:
        import ranx

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), RANX)  # numba compiles here
            t_ranx, ref = best(lambda: ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), RANX),
                               args.repeat)
        rows.append(("ranx Qrels+Run+evaluate", t_ranx))
        diffs["ranx"] = max(abs(ours[o] - ref[r]) for o, r in zip(OURS, RANX))
    except ImportError:
        print("ranx not installed")
    try:
        import ir_measures

        ms = [ir_measures.parse_measure(n) for n in OURS]
        t_irm, ref = best(lambda: ir_measures.calc_aggregate(ms, qrels, run), args.repeat)
        rows.append(("ir_measures.calc_aggregate", t_irm))
        diffs["ir_measures"] = max(abs(ours[str(m)] - ref[m]) for m in ms)
    except ImportError:
        print("ir_measures not installed")

    try:
        import pandas as pd

        qf = pd.DataFrame([(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
                          columns=["query_id", "doc_id", "relevance"])
        rf = pd.DataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()],
                          columns=["query_id", "doc_id", "score"])
        t_frames, from_frames = best(lambda: workbench.evaluate(qf, rf, OURS), args.repeat)
        rows.append(("workbench.evaluate(DataFrames)", t_frames))
        diffs["DataFrames"] = max(abs(ours[m] - from_frames[m]) for m in OURS)
    except ImportError:
        print("pandas not installed")
    with tempfile.TemporaryDirectory() as tmp:
        qp, rp = Path(tmp) / "qrels", Path(tmp) / "run"
        qp.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                              for d, g in docs.items()))
        rp.write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} bench\n" for q, docs in run.items()
                              for i, (d, s) in enumerate(docs.items())))
        t_files, from_files = best(lambda: workbench.evaluate(qp, rp, OURS), args.repeat)
        rows.append(("workbench.evaluate(files)", t_files))
        diffs["files"] = max(abs(ours[m] - from_files[m]) for m in OURS)

    for name, t in rows:
        print(f"  {name:<34} {t * 1000:9.1f} ms   {t / t_ours:6.2f}x workbench(dicts)")
    floor(qrels, run, args.repeat)
    for name, d in diffs.items():
        print(f"  largest difference from {name}: {d:.2e}")


if __name__ == "__main__":
    main()
