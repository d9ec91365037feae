"""Judging screen at scale (issue 27 item 16): the first screen with 10^6 queries, and a
50 MB document.

    .venv/bin/python bench/judge_scale_bench.py [--queries 1000000] [--doc-mb 50] [--keep]

Builds (once, kept in bench/data/judge_scale/ with --keep) a SQLite campaign of Q queries
with one pooled document each, assigned to assessor `bob` (depth 1, as `pool --depth 1`
would), some of them judged, and one document of D MB; then, in this process, times:

1. `JudgingSession.read` + `show`: what the judging screen needs for its first screen;
2. the app (`workbench judge --assessor bob`, in run_test) from start to the judging
   screen's first queue shown;
3. the document view showing the D MB document (first piece laid out and drawn).

Targets: (2) within 2 s at 10^6 queries, (3) within 0.5 s whatever the size.

Measured 2026-11-27 on the shared 2-core machine (other developers' tests running), SQLite:

    10^5 queries, before (session read every query's progress; the query list under
    the judging screen filled a DataTable of every query):
        session read 2.7 s; first screen 67.9 s
    10^5 queries, after: session read + show 0.25 s; first screen 0.99 s; 50 MB doc 0.35 s
    10^6 queries, after: session read + show 0.36 s; first screen 1.18 s (0.68 s CPU, app
        start included); 50 MB document, first piece 0.05 s (36 s in the issue's report)

4. the query list after Esc from the judging screen (issue 27 #16 leftover): before, it
   read every query's progress into a DataTable; now a page of 500 from SQL, the totals
   summed after it in the background (the header says "counting…" meanwhile):
        10^5 queries, before: first rows 18.85 s (rows and totals together)
        10^5 queries, after:  first rows and totals 0.78 s (Pilot-timed)
        10^6 queries, after:  first rows 0.29 s; totals 4.56 s (handler-timed, 1 MB document)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT / "bench" / "data" / "judge_scale"


def build(path: Path, n: int, doc_mb: int) -> None:
    from workbench.campaign.database import Database

    Database.open(str(path)).close()  # the schema
    con = sqlite3.connect(str(path))
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=OFF")
    with con:
        con.executemany("INSERT INTO query (id, ext_id, title, description, narrative) "
                        "VALUES (?, ?, ?, '', '')",
                        ((i, f"q{i:07d}", f"Query {i}") for i in range(1, n + 1)))
        big = "".join(f"line {i:>9} of a very long document about nothing in particular\n"
                      for i in range(doc_mb * 1_000_000 // 63))
        con.executemany("INSERT INTO document (id, ext_id, title, text) VALUES (?, ?, ?, ?)",
                        ((i, f"d{i:07d}", f"Document {i}", big if i == 1 else f"Text of {i}.")
                         for i in range(1, n + 1)))
        con.executemany("INSERT INTO pool_entry (query_id, document_id, best_rank) "
                        "VALUES (?, ?, 1)", ((i, i) for i in range(1, n + 1)))
        con.execute("INSERT INTO assessor (id, name, created_at) VALUES (1, 'bob', "
                    "'2026-11-27 00:00:00')")
        con.executemany("INSERT INTO assignment (assessor_id, query_id, document_id, position, "
                        "repeat) VALUES (1, ?, ?, 0, 0)", ((i, i) for i in range(1, n + 1)))
        # the first few queries judged: the screen opens on the first unjudged one
        con.executemany("INSERT INTO judgment (query_id, document_id, assessor_id, grade, note, "
                        "seconds, created_at, updated_at) VALUES (?, ?, 1, 1, '', 0, "
                        "'2026-11-27 00:00:00', '2026-11-27 00:00:00')",
                        ((i, i) for i in range(2, 11)))
    con.close()


async def first_screen(db) -> float:
    from workbench.tui.app import make_app
    from workbench.tui.screens.judge import JudgeScreen

    t0 = time.perf_counter()
    app = make_app(db, assessor="bob", lead=False)
    async with app.run_test(size=(150, 44)) as pilot:
        while not (isinstance(app.screen, JudgeScreen) and app.screen.loaded):
            await pilot.pause(0.01)
        await pilot.pause()
        took = time.perf_counter() - t0
        assert app.screen.query_ext == "q0000001", app.screen.query_ext
    return took


async def query_list(db) -> tuple[float, float]:
    """Esc from the judging screen: seconds to the query list's first page of rows put in
    its table, and to its totals (the header's counts) shown. Timed in the screen's own
    handlers: Pilot.press returns only once every worker is idle."""
    from workbench.tui.app import make_app
    from workbench.tui.screens import query_list as ql
    from workbench.tui.screens.judge import JudgeScreen

    marks: dict[str, float] = {}
    rows_shown, totals_shown = ql.QueryListScreen.on_progress_loaded, ql.QueryListScreen.on_progress_summed

    def on_rows(screen, message):
        rows_shown(screen, message)
        marks.setdefault("rows", time.perf_counter())

    def on_totals(screen, message):
        totals_shown(screen, message)
        marks.setdefault("totals", time.perf_counter())

    ql.QueryListScreen.on_progress_loaded, ql.QueryListScreen.on_progress_summed = on_rows, on_totals
    try:
        app = make_app(db, assessor="bob", lead=False)
        async with app.run_test(size=(150, 44)) as pilot:
            while not (isinstance(app.screen, JudgeScreen) and app.screen.loaded):
                await pilot.pause(0.01)
            t0 = time.perf_counter()
            await pilot.press("escape")
            while "totals" not in marks:
                await pilot.pause(0.01)
            await pilot.pause()
    finally:
        ql.QueryListScreen.on_progress_loaded, ql.QueryListScreen.on_progress_summed = rows_shown, totals_shown
    return marks["rows"] - t0, marks["totals"] - t0


async def big_document(db) -> float:
    from workbench.tui.app import make_app
    from workbench.tui.screens.judge import JudgeScreen
    from workbench.tui.widgets.document_view import DocumentView

    app = make_app(db, assessor="bob", lead=False)
    async with app.run_test(size=(150, 44)) as pilot:
        while not (isinstance(app.screen, JudgeScreen) and app.screen.loaded):
            await pilot.pause(0.01)
        screen = app.screen
        view = screen.query_one(DocumentView)
        item = screen.items[0]
        assert len(item.text) > 1_000_000
        t0 = time.perf_counter()
        view.show(item, 1, 1)
        await pilot.pause()
        return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--doc-mb", type=int, default=50)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"judge_{args.queries}_{args.doc_mb}.sqlite"
    if not path.exists():
        t0 = time.perf_counter()
        build(path, args.queries, args.doc_mb)
        print(f"built {path.name} in {time.perf_counter() - t0:.1f} s "
              f"({path.stat().st_size / 1e6:.0f} MB)")
    from workbench.campaign.database import Database
    from workbench.campaign.judging.session import JudgingSession

    db = Database.open(str(path))
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        session = JudgingSession(db, "bob")
        session.show(session.read())
        print(f"session read + show:            {time.perf_counter() - t0:6.2f} s "
              f"(cpu {time.process_time() - c0:.2f} s)")
        session.release()
        c0 = time.process_time()
        print(f"judging screen, first screen:   {asyncio.run(first_screen(db)):6.2f} s "
              f"(cpu {time.process_time() - c0:.2f} s, app start included)")
        rows, totals = asyncio.run(query_list(db))
        print(f"query list after Esc, first rows: {rows:6.2f} s; totals shown {totals:6.2f} s")
        print(f"{args.doc_mb} MB document, first piece: {asyncio.run(big_document(db)):6.2f} s")
    finally:
        db.close()
        if not args.keep:
            shutil.rmtree(DATA, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("TEXTUAL", "")
    main()
