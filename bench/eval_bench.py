"""Benchmark `workbench eval` against pytrec-eval-terrier (and ranx, if installed).

    .venv/bin/python bench/eval_bench.py [--sizes small,large] [--systems 20] [--repeat 1]

Generates (seeded, once, cached in bench/data/, which git ignores) graded qrels and runs:
- "small": 1 000 queries × depth 1 000 (≈1 M run lines per system, ≈0.9 M qrels lines),
  with --systems runs;
- "large": 10 000 queries × depth 1 000 (≈10 M run lines, ≈9 M qrels lines), one run.

Times, side by side, for the measures map ndcg ndcg_cut.10 P.10 recall.100 recip_rank
bpref Rprec:
- `workbench eval QRELS RUN...` as a whole process (start-up, reading, evaluating, printing);
- pytrec-eval-terrier with parsing (pytrec_eval.parse_qrel/parse_run + evaluate) and
  without (evaluate on already-built dicts);
- workbench from loaded arrays (files already read: encode qrels + rank + measures);
- ranx warm (Qrels/Run already loaded, evaluate after a first JIT-compiling call).
Then prints the ratios against the issue's targets (whole process >= 4x faster than
pytrec_eval with parsing; from arrays >= 2x faster than pytrec_eval's evaluate).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
DATA = ROOT / "data"
MEASURES = ["map", "ndcg", "ndcg_cut.10", "P.10", "recall.100", "recip_rank", "bpref", "Rprec"]
PYTREC_MEASURES = {"map", "ndcg", "ndcg_cut.10", "P.10", "recall.100", "recip_rank", "bpref", "Rprec"}
RANX_METRICS = ["map", "ndcg", "ndcg@10", "precision@10", "recall@100", "mrr", "bpref", "r-precision"]
POOL = 2_000  # distinct documents per query in the collection


def _write_lines(path: Path, chunks) -> None:
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w") as fh:
        for text in chunks:
            fh.write(text)
    os.replace(tmp, path)


def generate(nq: int, depth: int, systems: int, seed: int) -> tuple[Path, list[Path]]:
    """Seeded qrels (≈0.9·depth judged per query, grades 0–3) and `systems` runs."""
    DATA.mkdir(parents=True, exist_ok=True)
    name = f"q{nq}_d{depth}"
    qrels = DATA / f"{name}.qrels"
    runs = [DATA / f"{name}.sys{s:02d}.run" for s in range(systems)]
    if qrels.exists() and all(r.exists() for r in runs):
        return qrels, runs
    rng = np.random.default_rng(seed)
    judged = int(depth * 0.9)
    print(f"generating {name}: qrels {nq * judged:,} lines, {systems} runs of {nq * depth:,} lines",
          file=sys.stderr)
    # per query: a pool of POOL documents, the first `judged` of a permutation judged
    perms = [rng.permutation(POOL) for _ in range(nq)]

    def qrels_chunks():
        for q in range(nq):
            grades = rng.choice(4, size=judged, p=[0.6, 0.2, 0.12, 0.08])
            docs = perms[q][:judged]
            yield "".join(f"{q + 1} 0 doc-{q + 1}-{d} {g}\n" for d, g in zip(docs.tolist(), grades.tolist()))

    _write_lines(qrels, qrels_chunks())
    for s, run in enumerate(runs):
        if run.exists():
            continue
        srng = np.random.default_rng(seed * 1000 + s)

        def run_chunks():
            for q in range(nq):
                docs = srng.choice(POOL, size=depth, replace=False)
                scores = np.sort(srng.random(depth) * 30.0)[::-1]
                yield "".join(
                    f"{q + 1} Q0 doc-{q + 1}-{d} {i + 1} {sc:.6f} sys{s:02d}\n"
                    for i, (d, sc) in enumerate(zip(docs.tolist(), scores.tolist()))
                )

        _write_lines(run, run_chunks())
    return qrels, runs


def best_of(repeat: int, fn):
    best = float("inf")
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def time_workbench_process(qrels: Path, runs: list[Path], repeat: int) -> float:
    cmd = [str(ROOT.parent / ".venv" / "bin" / "workbench"), "eval", str(qrels), *map(str, runs)]
    for m in MEASURES:
        cmd += ["-m", m]

    def go():
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if proc.returncode:
            raise SystemExit(proc.stderr)

    return best_of(repeat, go)[0]


def time_pytrec(qrels: Path, runs: list[Path], repeat: int) -> tuple[float, float, dict]:
    import pytrec_eval

    def with_parsing():
        with open(qrels) as fh:
            q = pytrec_eval.parse_qrel(fh)
        ev = pytrec_eval.RelevanceEvaluator(q, PYTREC_MEASURES)
        out = None
        for r in runs:
            with open(r) as fh:
                out = ev.evaluate(pytrec_eval.parse_run(fh))
        return out

    t_parse, _ = best_of(repeat, with_parsing)
    with open(qrels) as fh:
        q = pytrec_eval.parse_qrel(fh)
    loaded = []
    for r in runs:
        with open(r) as fh:
            loaded.append(pytrec_eval.parse_run(fh))
    ev = pytrec_eval.RelevanceEvaluator(q, PYTREC_MEASURES)

    def evaluate_only():
        return [ev.evaluate(run) for run in loaded]

    t_eval, res = best_of(repeat, evaluate_only)
    return t_parse, t_eval, res[-1]


def time_workbench_arrays(qrels: Path, runs: list[Path], repeat: int):
    sys.path.insert(0, str(ROOT.parent))
    from workbench.formats.trec import read_qrels, read_run
    from workbench.metrics.evaluate import RunArrays, evaluate_many

    q = read_qrels(qrels)
    loaded = [read_run(r) for r in runs]
    arrays = [RunArrays(r.qid, r.docno, r.score, r.tag) for r in loaded]

    def go():
        return evaluate_many(q.qid, q.docno, q.rel, arrays, MEASURES)

    t, evs = best_of(repeat, go)

    def read_all():
        read_qrels(qrels)
        for r in runs:
            read_run(r)

    t_read, _ = best_of(repeat, read_all)
    return t, t_read, evs[-1]


def time_ranx(qrels: Path, runs: list[Path], repeat: int):
    try:
        from ranx import Qrels, Run, evaluate
    except ImportError:
        return None, None
    t0 = time.perf_counter()
    q = Qrels.from_file(str(qrels), kind="trec")
    loaded = [Run.from_file(str(r), kind="trec") for r in runs]
    t_load = time.perf_counter() - t0
    evaluate(q, loaded[0], RANX_METRICS)  # JIT compile
    t, _ = best_of(repeat, lambda: [evaluate(q, r, RANX_METRICS) for r in loaded])
    return t, t_load


def check_agreement(ours, pytrec_last) -> float:
    """Largest |difference| between our per-query values and pytrec_eval's (last run)."""
    worst = 0.0
    for m in ours.measures:
        vals = dict(zip(ours.qids, ours.per_query[m]))
        for qid, row in pytrec_last.items():
            worst = max(worst, abs(vals[qid] - row[m.label]))
    return worst


def bench(label: str, nq: int, depth: int, systems: int, repeat: int, seed: int) -> list[tuple]:
    qrels, runs = generate(nq, depth, systems, seed)
    print(f"\n== {label}: {nq:,} queries × depth {depth:,} × {systems} system(s) ==", file=sys.stderr)
    t_wb = time_workbench_process(qrels, runs, repeat)
    print(f"workbench eval (process): {t_wb:.2f}s", file=sys.stderr)
    t_arr, t_read, ours = time_workbench_arrays(qrels, runs, repeat)
    print(f"workbench from arrays: {t_arr:.2f}s (reading: {t_read:.2f}s)", file=sys.stderr)
    t_pp, t_pe, ref = time_pytrec(qrels, runs, repeat)
    print(f"pytrec_eval: {t_pp:.2f}s with parsing, {t_pe:.2f}s evaluate", file=sys.stderr)
    t_rx, t_rx_load = time_ranx(qrels, runs, repeat) if nq <= 1000 else (None, None)
    diff = check_agreement(ours, ref)
    return [(label, t_wb, t_arr, t_read, t_pp, t_pe, t_rx, t_rx_load, diff)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="small,large")
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args(argv)
    rows = []
    sizes = args.sizes.split(",")
    if "small" in sizes:
        rows += bench("1k×1k", 1000, 1000, args.systems, args.repeat, args.seed)
    if "large" in sizes:
        rows += bench("10k×1k", 10000, 1000, 1, args.repeat, args.seed)
    fmt = lambda x: "—" if x is None else f"{x:.2f}s"  # noqa: E731
    header = ("case", "workbench eval (process)", "pytrec_eval +parse", "ratio (target ≥4×)",
              "workbench arrays", "pytrec_eval evaluate", "ratio (target ≥2×)", "ranx warm",
              "ratio vs ranx", "max |Δ| vs pytrec")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for label, t_wb, t_arr, t_read, t_pp, t_pe, t_rx, t_rx_load, diff in rows:
        print("| " + " | ".join([
            label, fmt(t_wb), fmt(t_pp), f"{t_pp / t_wb:.1f}×", fmt(t_arr), fmt(t_pe),
            f"{t_pe / t_arr:.1f}×", fmt(t_rx), "—" if t_rx is None else f"{t_rx / t_arr:.1f}×",
            f"{diff:.1e}",
        ]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
