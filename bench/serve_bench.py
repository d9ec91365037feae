"""`workbench serve` in the system's Chromium (Playwright): how fast a link opens, how long a
grade's round trip takes, and 16 assessors judging at once through one server.

    python bench/serve_bench.py [--grades 50] [--assessors 16] [--each 10]

Round trip: from the key press in the page to the grade's event in the database (polled every 5 ms
with sqlite3) and the screen redrawn (a frame from the app after the grade landed).
The targets of issue 25: first document <= 2 s, median round trip <= 150 ms over 50 grades,
16 at once on 2 cores: no grade lost, median <= 300 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.campaign.access.links import new_link  # noqa: E402
from workbench.campaign.database import Database  # noqa: E402
from workbench.serve.background import BackgroundServer  # noqa: E402

_ESCAPES = re.compile(rb"\x1b(\[[0-9;?<=>$]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78M])")
CHROMIUM = os.environ.get("WORKBENCH_CHROMIUM", "/usr/bin/chromium")


# every grade appends an event (a hidden repeat's second grade is only an event)
_COUNT = ("SELECT count(*) FROM judgment_event e JOIN assessor a ON a.id = e.assessor_id "
          "WHERE a.name = ?")


def count(path: Path, assessor: str) -> int:
    with sqlite3.connect(path, timeout=30) as conn:
        return conn.execute(_COUNT, (assessor,)).fetchone()[0]


class Session:
    def __init__(self, page, path: Path, assessor: str) -> None:
        self.page, self.path, self.assessor = page, path, assessor
        self.frames = 0
        self.tail, self.shown = b"", False
        self.conn = sqlite3.connect(path, timeout=30)  # one per session: polling stays cheap
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def count(self) -> int:
        self.conn.rollback()  # a fresh read snapshot
        return self.conn.execute(_COUNT, (self.assessor,)).fetchone()[0]

    def _frame(self, payload) -> None:
        self.frames += 1
        self.tail = (self.tail + (payload if isinstance(payload, bytes) else payload.encode()))[-262144:]
        if not self.shown:
            self.shown = b"not judged yet" in _ESCAPES.sub(b"", self.tail)

    async def next_query_if_done(self) -> None:
        """At the end of a query the screen says so and waits for `]` (not a grade)."""
        if b"query done" in _ESCAPES.sub(b"", self.tail[-65536:]):
            self.tail, self.shown = b"", False
            await self.page.keyboard.press("]")
            started = time.perf_counter()
            while not self.shown and time.perf_counter() - started < 30:
                await asyncio.sleep(0.01)

    async def open(self, url: str) -> float:
        started = time.perf_counter()
        await self.page.goto(url)
        # the first document is drawn with the queue beside it ("not judged yet" rows)
        while not self.shown:
            if time.perf_counter() - started > 120:
                raise RuntimeError(f"{self.assessor}: no document shown in 120 s ({self.frames} "
                                   f"frames: {_ESCAPES.sub(b'', self.tail)[-300:]!r})")
            await asyncio.sleep(0.005)
        shown = time.perf_counter() - started
        await self.page.click("#terminal")
        return shown

    async def grade(self, key: str) -> float:
        await self.next_query_if_done()
        before = self.count()
        started = time.perf_counter()
        await self.page.keyboard.press(key)
        while self.count() == before:
            if time.perf_counter() - started > 60:
                raise RuntimeError(f"{self.assessor}: grade not stored in 60 s")
            await asyncio.sleep(0.005)
        landed = self.frames
        while self.frames == landed:  # the screen moves on: the app draws the next document
            if time.perf_counter() - started > 30:
                break
            await asyncio.sleep(0.002)
        return time.perf_counter() - started


async def main_async(args) -> None:
    from playwright.async_api import async_playwright

    work = Path(tempfile.mkdtemp(prefix="serve-bench-"))
    path = work / "campaign.sqlite"
    shutil.copy(ROOT / "sample_db" / "sample.sqlite", path)
    names = [f"b{i:02d}" for i in range(args.assessors)]
    subprocess.run([sys.executable, "-m", "workbench", "--db", str(path), "pool",
                    *[a for n in names for a in ("--assessor", n)]],
                   check=True, capture_output=True, cwd=ROOT,
                   env=dict(os.environ, PYTHONPATH=str(ROOT)))
    db = Database.open(str(path), create=False)
    server = BackgroundServer(db, str(path)).start()
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            # 1. link -> first document, and 2. one assessor's round trips
            opens = []
            for i in range(3):
                page = await browser.new_page(viewport={"width": 1280, "height": 800})
                s = Session(page, path, "carol")
                opens.append(await s.open(f"{server.url}/s/{new_link(db, assessor='carol')}"))
                if i < 2:
                    await page.close()
                    while server.served.sessions:
                        await asyncio.sleep(0.05)
            trips = [await s.grade("0123"[i % 4]) for i in range(args.grades)]
            await page.close()
            while server.served.sessions:
                await asyncio.sleep(0.05)
            print(f"link -> first document shown: median {statistics.median(opens):.2f} s "
                  f"(runs: {', '.join(f'{t:.2f}' for t in opens)})")
            print(f"grade round trip, one assessor, {args.grades} grades: median "
                  f"{statistics.median(trips) * 1000:.0f} ms, p90 "
                  f"{statistics.quantiles(trips, n=10)[-1] * 1000:.0f} ms")

            # 3. many assessors at once through one server
            before = {n: count(path, n) for n in names}
            sessions = []
            for n in names:
                context = await browser.new_context(viewport={"width": 1280, "height": 800})
                sessions.append(Session(await context.new_page(), path, n))
            opened = await asyncio.gather(*(s.open(f"{server.url}/s/{new_link(db, assessor=s.assessor)}")
                                            for s in sessions))

            async def judge(s: Session) -> list[float]:
                return [await s.grade("0123"[i % 4]) for i in range(args.each)]

            started = time.perf_counter()
            results = await asyncio.gather(*(judge(s) for s in sessions))
            wall = time.perf_counter() - started
            together = [t for r in results for t in r]
            lost = sum(before[n] + args.each - count(path, n) for n in names)
            print(f"{args.assessors} assessors at once, {args.each} grades each: "
                  f"grades lost {lost}, median round trip {statistics.median(together) * 1000:.0f} ms, "
                  f"p90 {statistics.quantiles(together, n=10)[-1] * 1000:.0f} ms, "
                  f"{len(together) / wall:.1f} grades/s; first document median "
                  f"{statistics.median(opened):.2f} s with all opening at once")
            await browser.close()
    finally:
        server.stop()
        db.close()
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grades", type=int, default=50)
    parser.add_argument("--assessors", type=int, default=16)
    parser.add_argument("--each", type=int, default=10)
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, python {sys.version.split()[0]}")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
