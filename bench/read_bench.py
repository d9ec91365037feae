"""CPU time of the TREC readers as `workbench eval` calls them (one thread).

    .venv/bin/python bench/read_bench.py [RUN] [QRELS] [--repeat N] [--chunk BYTES]

Reports the best of N of time.process_time() (CPU, not wall: the machine is shared),
for read_run(check_duplicates=False, all_tags=False) and read_qrels(check_duplicates=False)
(line numbers kept, as eval reads; --no-lines drops them), after the same allocator
tuning the eval command does.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

HERE = Path(__file__).parent


def best_cpu(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("run", nargs="?", default=str(HERE / "data" / "q10000_d1000.sys00.run"))
    ap.add_argument("qrels", nargs="?", default=str(HERE / "data" / "q10000_d1000.qrels"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--chunk", type=int, default=None)
    ap.add_argument("--only", choices=("run", "qrels"), default=None)
    ap.add_argument("--no-lines", action="store_true", help="line_numbers=False")
    args = ap.parse_args()

    from workbench.evaluation.allocator import tune_allocator
    from workbench.formats import trec

    tune_allocator()
    kw = {} if args.chunk is None else {"chunk_bytes": args.chunk}
    kw["line_numbers"] = not args.no_lines
    if args.only != "qrels":
        t = best_cpu(lambda: trec.read_run(args.run, threads=1, check_duplicates=False,
                                           all_tags=False, **kw), args.repeat)
        print(f"read_run   {t:6.2f} s CPU (best of {args.repeat})")
    if args.only != "run":
        t = best_cpu(lambda: trec.read_qrels(args.qrels, threads=1, check_duplicates=False, **kw), args.repeat)
        print(f"read_qrels {t:6.2f} s CPU (best of {args.repeat})")


if __name__ == "__main__":
    main()
