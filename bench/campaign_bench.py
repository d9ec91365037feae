"""A TREC-8-sized campaign, stored path against file path (issue 11).

    .venv/bin/python bench/campaign_bench.py [--queries 50 --runs 100 --depth 1000
                                              --judged 1200 --overlap 0.2] [--trec-eval PATH]

Builds (seeded) Q queries and R runs of depth D; assessor alice judges about J documents per
query (the union of the runs' tops, as a depth pool would), and bob re-judges a share of
alice's documents (`--overlap`) with about 70 % agreement. Every step then runs in its own
process, as a user runs it, on a fresh SQLite database, and is timed beside the same
evaluation from text files (score, compare and eval: the median of `--repeat` runs):

- `import run` of every run file in one command, `import qrels` for alice and bob;
- `score -m map -m ndcg_cut.10 -m P.10 -m bpref` (majority consensus of the stored grades);
- `compare -m map --by-assessor`;
- the TUI scoreboard's first load (a fresh lead app, F2, until the table holds scores);
- `eval CONSENSUS_QRELS run0..runR` with the same measures (`-j 1` and the default), and
  trec_eval once per run file when `--trec-eval` names its binary.

Data go to bench/data/campaign/ (git-ignored) and are reused across runs.
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
DATA = ROOT / "bench" / "data" / "campaign"
WORKBENCH = [sys.executable, "-m", "workbench"]
MEASURES = ["-m", "map", "-m", "ndcg_cut.10", "-m", "P.10", "-m", "bpref"]


# ----------------------------------------------------------------------------- data


def make_data(q: int, r: int, depth: int, judged: int, overlap: float, seed: int = 11
              ) -> tuple[list[Path], Path, Path]:
    """Per query a candidate set of 4*depth documents with latent grades (about 6 % relevant);
    each run scores candidates by latent grade times its own quality plus noise and keeps its
    top `depth`, so runs overlap at the top like real ones. alice judges the `judged`
    candidates that the most runs put in their top 100 (a depth pool); bob re-judges a share
    `overlap` of them, agreeing with alice about 70 % of the time."""
    folder = DATA / f"q{q}_r{r}_d{depth}_j{judged}_o{overlap}"
    folder.mkdir(parents=True, exist_ok=True)
    runs = [folder / f"run{i:03d}.txt" for i in range(r)]
    alice, bob = folder / "alice.qrels", folder / "bob.qrels"
    if all(p.exists() for p in runs) and alice.exists() and bob.exists():
        return runs, alice, bob
    rng = np.random.default_rng(seed)
    n_cand = 4 * depth
    latent = rng.choice(4, size=(q, n_cand), p=[0.94, 0.03, 0.02, 0.01])
    doc_ids = np.arange(q * n_cand).reshape(q, n_cand) + 1_000_000
    qids = [f"{401 + i}" for i in range(q)]
    quality = rng.uniform(0.2, 3.0, size=r)
    popularity = np.zeros((q, n_cand), dtype=np.int64)
    ranks = np.arange(1, depth + 1)
    for i, path in enumerate(runs):
        scores = latent * quality[i] + rng.normal(0, 1.5, size=(q, n_cand))
        top = np.argsort(-scores, axis=1, kind="stable")[:, :depth]
        np.add.at(popularity, (np.repeat(np.arange(q), 100), top[:, :100].ravel()), 1)
        top_scores = np.take_along_axis(scores, top, axis=1)
        top_docs = np.take_along_axis(doc_ids, top, axis=1)
        lines = []
        for qi in range(q):
            lines.extend(
                f"{qids[qi]} Q0 FT{d} {k} {s:.4f} run{i:03d}\n"
                for d, k, s in zip(top_docs[qi].tolist(), ranks.tolist(), top_scores[qi].tolist())
            )
        path.write_text("".join(lines))
    pooled = np.argsort(-popularity, axis=1, kind="stable")[:, :judged]
    with open(alice, "w") as a_out, open(bob, "w") as b_out:
        for qi in range(q):
            for c in np.sort(pooled[qi]).tolist():
                grade = int(latent[qi, c])
                a_out.write(f"{qids[qi]} 0 FT{doc_ids[qi, c]} {grade}\n")
                if rng.random() < overlap:
                    other = grade if rng.random() < 0.7 else int(rng.integers(0, 4))
                    b_out.write(f"{qids[qi]} 0 FT{doc_ids[qi, c]} {other}\n")
    return runs, alice, bob


# ----------------------------------------------------------------------------- timing


def timed(argv: list[str], env: dict, ready: str | None = None) -> tuple[float, str]:
    """Run argv; return (wall seconds, stdout). With `ready`, the wall time is the number
    that the child prints after that word (its own measurement)."""
    t = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=env)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, argv))} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    if ready:
        for line in proc.stdout.splitlines():
            if line.startswith(ready):
                wall = float(line.split()[1])
    return wall, proc.stdout


def scoreboard_child(db: str) -> None:
    """In a fresh process: open the lead app, press F2, print the seconds until the
    scoreboard holds its scores."""
    from workbench.tui.app import make_app
    from workbench.tui.screens.scoreboard import ScoreboardScreen

    async def run() -> None:
        app = make_app(db, lead=True)
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.pause()
            t = time.perf_counter()
            await pilot.press("f2")
            while not (isinstance(app.screen, ScoreboardScreen) and app.screen.data is not None):
                await asyncio.sleep(0.002)
            print(f"READY {time.perf_counter() - t:.3f}", flush=True)
            # one grade, then the board's tracker recomputes that query for every system
            from workbench.campaign.judging.grades import record_grade

            tracker = app.screen.data.tracker
            query = tracker.table().queries[0]
            doc = _a_judged_document(app.db, query)
            record_grade(app.db, "alice", query, doc, 3)
            t = time.perf_counter()
            tracker.mark_dirty(query)
            tracker.refresh()
            print(f"UPDATE {time.perf_counter() - t:.4f}", flush=True)

    asyncio.run(run())


def _a_judged_document(db, query: str) -> str:
    from sqlalchemy import select

    from workbench.store.models import Document, Judgment, Query

    with db.read() as s:
        return s.scalar(
            select(Document.ext_id).join(Judgment, Judgment.document_id == Document.id)
            .join(Query, Query.id == Judgment.query_id).where(Query.ext_id == query).limit(1)
        )


# ----------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--judged", type=int, default=1200, help="alice's judgments per query")
    ap.add_argument("--overlap", type=float, default=0.2, help="share of alice's items bob re-judges")
    ap.add_argument("--trec-eval", help="path of a trec_eval binary, timed once per run file")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--repeat", type=int, default=5,
                    help="runs of each score, compare and eval step (the median is reported)")
    ap.add_argument("--scoreboard-child", metavar="DB", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.scoreboard_child:
        scoreboard_child(args.scoreboard_child)
        return

    t = time.perf_counter()
    runs, alice, bob = make_data(args.queries, args.runs, args.depth, args.judged, args.overlap)
    n_alice = sum(1 for _ in open(alice))
    n_bob = sum(1 for _ in open(bob))
    print(f"data: {args.queries} queries x {args.runs} runs x depth {args.depth} = "
          f"{args.queries * args.runs * args.depth:,} results; alice {n_alice:,} judgments, "
          f"bob {n_bob:,} ({time.perf_counter() - t:.1f} s)", flush=True)
    work = Path(tempfile.mkdtemp(prefix="campaign-bench-"))
    db = str(work / "campaign.sqlite")
    env = {**os.environ, "XDG_CONFIG_HOME": str(work / "config")}
    env.pop("WORKBENCH_DB", None)
    # as on a user's machine, modules are compiled once (some sandboxes turn this off, and
    # then every process recompiles what it imports)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    rows: list[tuple[str, float, str]] = []

    def step(name: str, argv: list[str], note: str = "", ready: str | None = None,
             repeat: int = 1) -> str:
        """The median wall time of `repeat` runs (the machine's noise is tens of ms)."""
        walls, out = [], ""
        for _ in range(max(repeat, 1)):
            wall, out = timed(argv, env, ready)
            walls.append(wall)
        wall = float(np.median(walls))
        if repeat > 1:
            note = f"median of {repeat} ({min(walls):.2f}-{max(walls):.2f}) {note}".strip()
        rows.append((name, wall, note))
        print(f"  {name:<48} {wall:8.2f} s  {note}", flush=True)
        return out

    timed([*WORKBENCH, "init", "--db", db], env)
    t = time.perf_counter()
    timed([*WORKBENCH, "import", "run", *map(str, runs), "--db", db], env)  # one transaction
    total = time.perf_counter() - t
    rows.append((f"import run (all {len(runs)} files, one command)", total,
                 f"{args.queries * args.runs * args.depth / total:,.0f} rows/s"))
    print(f"  {rows[-1][0]:<48} {total:8.2f} s  {rows[-1][2]}", flush=True)
    step("import qrels (alice)", [*WORKBENCH, "import", "qrels", str(alice), "--assessor", "alice", "--db", db])
    step("import qrels (bob)", [*WORKBENCH, "import", "qrels", str(bob), "--assessor", "bob", "--db", db])
    consensus = work / "consensus.qrels"
    timed([*WORKBENCH, "export", "qrels", "--consensus", "majority", "-o", str(consensus), "--db", db], env)

    n = args.repeat
    score_out = step("score (4 measures, consensus)",
                     [*WORKBENCH, "score", *MEASURES, "--format", "trec", "--db", db], repeat=n)
    step("compare -m map --by-assessor", [*WORKBENCH, "compare", "-m", "map", "--by-assessor", "--db", db],
         repeat=n)
    me = [sys.executable, str(Path(__file__).resolve()), "--scoreboard-child", db]
    out = step("TUI scoreboard first load (F2 -> scores)", me, "in-app, after start-up", ready="READY")
    update = next(float(line.split()[1]) for line in out.splitlines() if line.startswith("UPDATE"))
    rows.append(("after a grade: its query rescored, every system", update, "in-app"))
    print(f"  {rows[-1][0]:<48} {update:8.4f} s  in-app", flush=True)
    eval_out = step("eval consensus.qrels run x R (-j 1)",
                    [*WORKBENCH, "eval", str(consensus), *map(str, runs), *MEASURES, "-j", "1"], "file path",
                    repeat=n)
    step("eval consensus.qrels run x R (default -j)",
         [*WORKBENCH, "eval", str(consensus), *map(str, runs), *MEASURES], "file path", repeat=n)
    if args.trec_eval:
        t = time.perf_counter()
        for run in runs:
            subprocess.run([args.trec_eval, "-m", "map", "-m", "ndcg_cut.10", "-m", "P.10", "-m", "bpref",
                            str(consensus), str(run)], check=True, capture_output=True)
        total = time.perf_counter() - t
        rows.append(("trec_eval once per run file", total, "C binary"))
        print(f"  {rows[-1][0]:<48} {total:8.2f} s", flush=True)
    def values(out: str) -> list[str]:  # score names each run on a runid line; eval does not
        return sorted(line for line in out.splitlines() if not line.startswith("runid"))

    same = values(score_out) == values(eval_out)
    print()
    print(f"campaign bench: {args.queries} queries x {args.runs} runs x depth {args.depth}; "
          f"alice {n_alice:,} + bob {n_bob:,} judgments; {os.cpu_count()} cores; "
          f"score output {'equals' if same else 'DIFFERS FROM'} eval output")
    print(f"| {'step':<48} | {'wall s':>8} | note")
    print(f"|{'-' * 50}|{'-' * 10}|------")
    for name, wall, note in rows:
        print(f"| {name:<48} | {wall:8.2f} | {note}")
    if args.keep:
        print(f"database kept: {db}")
    else:
        for p in work.glob("campaign.sqlite*"):
            p.unlink()


if __name__ == "__main__":
    main()
