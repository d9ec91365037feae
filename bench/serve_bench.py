"""`workbench serve`: how fast a link opens, how long a grade's round trip takes, and 16
assessors judging at once through one server.

    python bench/serve_bench.py [--mode both|ws|chromium] [--pace both|closed|human]
                                [--assessors 16] [--each 10] [--grades 50] [--pool 4]

Two kinds of client, each run against the same server code:

- `chromium`: the system's Chromium driven by Playwright, one page per assessor, as a person
  would use it. On one 2-core machine the 16 pages' rendering competes with the server for
  the same cores, so this measures Chromium as much as the server.
- `ws`: light protocol-level clients (aiohttp), one per assessor, speaking textual-serve's
  page protocol as textual.js does: GET the page, open `/ws/TOKEN?width=W&height=H`, send
  `["resize", {...}]` and `["ping", ...]`, then `["stdin", KEY]` per key; the app's frames
  come back as binary messages. In production the browsers run on the assessors' machines:
  this is what the server itself costs.

Round trip of a grade: from the key sent to the first frame that shows the next screen (the
document panel's position `N/M` changed, or "query done"), with the grade's event checked
in the database at that moment (the app writes it before it moves on; a screen that moved
first is counted and reported as such).

Paces: `closed` sends the next key as soon as the next screen is shown (as fast as
possible); `human` waits 1 to 2 s (uniform, seeded per assessor) before each key, a fast
person reading a short document. The 16-assessor target applies to the human pace.

Targets (issue 25): first document <= 2 s, median round trip <= 150 ms over 50 grades, 16
at once on 2 cores: no grade lost, median <= 300 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
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

try:  # a checkout from before the pool runs this benchmark too (for comparisons)
    from workbench.serve.pool import DEFAULT_SIZE  # noqa: E402
except ImportError:
    DEFAULT_SIZE = 0

_ESCAPES = re.compile(rb"\x1b(\[[0-9;?<=>$]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78M])")
_POSITION = re.compile(rb"(\d+)/(\d+)  \S")  # the document panel's head: "6/31  Title"
CHROMIUM = os.environ.get("WORKBENCH_CHROMIUM", "/usr/bin/chromium")
VIEWPORT = {"width": 1280, "height": 800}
WS_SIZE = (133, 42)  # the terminal Chromium's page fits in VIEWPORT at font size 16
TICK = os.sysconf("SC_CLK_TCK")

# every grade appends an event (a hidden repeat's second grade is only an event)
_COUNT = ("SELECT count(*) FROM judgment_event e JOIN assessor a ON a.id = e.assessor_id "
          "WHERE a.name = ?")


def count(path: Path, assessor: str) -> int:
    with sqlite3.connect(path, timeout=30) as conn:
        return conn.execute(_COUNT, (assessor,)).fetchone()[0]


def cpu_of(pid: int) -> float:
    """User + system CPU seconds of a process so far (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine, all cores."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


class Screen:
    """The frames one assessor's app sent, whichever client received them."""

    def __init__(self, path: Path, assessor: str, send) -> None:
        self.path, self.assessor, self._send = path, assessor, send
        self.frames = 0
        self.tail, self.shown = b"", False
        self.position: bytes | None = None
        self.overlap = b""  # the end of the last frame's text: a head split over two frames
        self.done = False  # "query done" shown since the key
        self.timed_out = 0  # grades whose next screen was not seen in 120 s
        self.moved_early = 0  # screens that moved on before the grade was in the database
        self.conn = sqlite3.connect(path, timeout=30)

    def count(self) -> int:
        self.conn.rollback()  # a fresh read snapshot
        return self.conn.execute(_COUNT, (self.assessor,)).fetchone()[0]

    def frame(self, payload) -> None:
        data = payload if isinstance(payload, bytes) else payload.encode()
        self.frames += 1
        text = _ESCAPES.sub(b"", data)
        self.tail = (self.tail + text)[-16384:]
        if not self.shown:
            self.shown = b"not judged yet" in self.tail
        seen = self.overlap + text  # only the new text is searched: cheap per frame
        self.overlap = text[-64:]
        found = _POSITION.findall(seen)
        if found:
            self.position = b"/".join(found[-1])
        if b"query done" in seen:
            self.done = True

    async def wait(self, done, what: str, timeout: float = 60.0) -> None:
        started = time.perf_counter()
        while not done():
            if time.perf_counter() - started > timeout:
                raise RuntimeError(f"{self.assessor}: {what} not shown in {timeout:.0f} s "
                                   f"({self.frames} frames: {self.tail[-300:]!r})")
            await asyncio.sleep(0.002)

    async def opened(self, started: float) -> float:
        await self.wait(lambda: self.shown, "first document", 120)
        return time.perf_counter() - started

    async def next_query_if_done(self) -> None:
        """At the end of a query the screen says so and waits for `]` (not a grade)."""
        if self.done:
            self.tail, self.shown, self.done = b"", False, False
            await self._send("]")
            await self.wait(lambda: self.shown, "the next query", 60)

    async def grade(self, key: str) -> float:
        await self.next_query_if_done()
        before, position = self.count(), self.position
        self.done = False
        started = time.perf_counter()
        await self._send(key)

        def moved() -> bool:
            return (self.position is not None and self.position != position) or self.done

        try:
            await self.wait(moved, "the next document", 120)
        except RuntimeError:
            self.timed_out += 1
        took = time.perf_counter() - started
        if self.count() == before:
            self.moved_early += 1
            while self.count() == before:
                if time.perf_counter() - started > 60:
                    raise RuntimeError(f"{self.assessor}: grade not stored in 60 s")
                await asyncio.sleep(0.005)
        return took


# ---- the two kinds of client ---------------------------------------------------------------

class ChromiumClients:
    name = "chromium"

    def __init__(self, playwright) -> None:
        self._p = playwright
        self.browser = None

    async def __aenter__(self):
        self.browser = await self._p.chromium.launch(executable_path=CHROMIUM,
                                                     args=["--no-sandbox"])
        return self

    async def __aexit__(self, *exc) -> None:
        await self.browser.close()

    async def open(self, url: str, path: Path, assessor: str) -> tuple[Screen, float, object]:
        context = await self.browser.new_context(viewport=VIEWPORT)
        page = await context.new_page()
        screen = Screen(path, assessor, page.keyboard.press)
        page.on("websocket", lambda ws: ws.on("framereceived", screen.frame))
        started = time.perf_counter()
        await page.goto(url)
        shown = await screen.opened(started)
        await page.click("#terminal")
        return screen, shown, context

    async def close(self, handle) -> None:
        await handle.close()


class WsClients:
    """textual-serve's page protocol without a page (static/js/textual.js: connect(),
    sendSize(), sendPing(), onData())."""

    name = "ws"

    def __init__(self) -> None:
        self.http = None

    async def __aenter__(self):
        import aiohttp

        self.http = aiohttp.ClientSession()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.http.close()

    async def open(self, url: str, path: Path, assessor: str) -> tuple[Screen, float, object]:
        width, height = WS_SIZE
        started = time.perf_counter()
        async with self.http.get(url) as page:  # the page, as a browser loads it first
            body = await page.text()
            if page.status != 200:
                raise RuntimeError(f"{assessor}: {page.status}")
        ws_url = re.search(r'data-session-websocket-url="([^"]+)"', body).group(1)
        ws = await self.http.ws_connect(f"{ws_url}?width={width}&height={height}")

        async def send(key: str) -> None:
            await ws.send_str(json.dumps(["stdin", key]))

        screen = Screen(path, assessor, send)
        await ws.send_str(json.dumps(["resize", {"width": width, "height": height}]))
        await ws.send_str(json.dumps(["ping", str(int(time.time() * 1000))]))

        async def read() -> None:
            async for message in ws:
                screen.frame(message.data)

        reader = asyncio.create_task(read())
        shown = await screen.opened(started)
        await ws.send_str(json.dumps(["focus"]))  # the page's click on the terminal
        return screen, shown, (ws, reader)

    async def close(self, handle) -> None:
        ws, reader = handle
        await ws.close()
        reader.cancel()


# ---- the runs ------------------------------------------------------------------------------

def quantiles(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    p90 = statistics.quantiles(ms, n=10, method="inclusive")[-1] if len(ms) > 1 else ms[0]
    return f"median {statistics.median(ms):.0f} ms, p90 {p90:.0f} ms, max {ms[-1]:.0f} ms"


def start_server(db, path: Path, pool: int) -> BackgroundServer:
    if not hasattr(BackgroundServer, "wait_pool"):  # before the pool: one app per session
        server = BackgroundServer(db, str(path)).start()
        server.wait_pool = lambda: True
        return server
    return BackgroundServer(db, str(path), pool=pool).start()


def bound(server: BackgroundServer) -> list[int]:
    served = server.served
    return served.bound if hasattr(served, "bound") else served.spawned


async def wait_closed(server: BackgroundServer) -> None:
    while server.served.sessions:
        await asyncio.sleep(0.05)


async def one_assessor(clients, server, db, path: Path, args) -> None:
    opens, screen = [], None
    for i in range(3):
        server.wait_pool()
        screen, shown, handle = await clients.open(
            f"{server.url}/s/{new_link(db, assessor='carol')}", path, "carol")
        opens.append(shown)
        if i < 2:
            await clients.close(handle)
            await wait_closed(server)
    trips = [await screen.grade("0123"[i % 4]) for i in range(args.grades)]
    await clients.close(handle)
    await wait_closed(server)
    print(f"  [{clients.name}] link -> first document: median {statistics.median(opens):.2f} s "
          f"(runs {', '.join(f'{t:.2f}' for t in opens)}); one assessor, {args.grades} grades: "
          f"{quantiles(trips)}  ({load()})", flush=True)


async def many(clients, server, db, path: Path, names: list[str], args, pace: str) -> None:
    server.wait_pool()
    before = {n: count(path, n) for n in names}
    started = time.perf_counter()
    results = await asyncio.gather(*(clients.open(f"{server.url}/s/{new_link(db, assessor=n)}",
                                                  path, n) for n in names))
    screens = [r[0] for r in results]
    opened = [r[1] for r in results]
    open_wall = time.perf_counter() - started
    pids = list(bound(server)[-len(names):])
    app_cpu = {pid: cpu_of(pid) for pid in pids}
    busy0 = machine_busy()

    async def judge(i: int, screen: Screen) -> list[float]:
        rng = random.Random(i)
        trips = []
        for g in range(args.each):
            if pace == "human":
                await asyncio.sleep(rng.uniform(1.0, 2.0))
            trips.append(await screen.grade("0123"[(g + i) % 4]))
        return trips

    started = time.perf_counter()
    trips = await asyncio.gather(*(judge(i, s) for i, s in enumerate(screens)))
    wall = time.perf_counter() - started
    busy1 = machine_busy()
    app_seconds = sum(cpu_of(pid) - app_cpu[pid] for pid in pids)
    together = [t for r in trips for t in r]
    lost = sum(before[n] + args.each - count(path, n) for n in names)
    early = sum(s.moved_early for s in screens)
    timed_out = sum(s.timed_out for s in screens)
    grades = len(together)
    cores = os.cpu_count() or 1
    print(f"  [{clients.name}, {pace}] {len(names)} assessors x {args.each} grades: lost {lost}, "
          f"moved before disk {early}, next screen unseen in 120 s {timed_out}; round trip {quantiles(together)}; "
          f"{grades / wall:.1f} grades/s; apps' CPU {app_seconds / grades * 1000:.0f} ms a grade; "
          f"machine busy {(busy1[0] - busy0[0]) / max(busy1[1] - busy0[1], 1) * 100:.0f}% of "
          f"{cores} cores; first documents, all opening at once: median "
          f"{statistics.median(opened):.2f} s, last {max(opened):.2f} s (wall {open_wall:.1f} s)"
          f"  ({load()})", flush=True)
    for screen, result in zip(screens, results):
        await clients.close(result[2])
        screen.conn.close()
    await wait_closed(server)


async def main_async(args) -> None:
    work = Path(tempfile.mkdtemp(prefix="serve-bench-"))
    path = work / "campaign.sqlite"
    shutil.copy(ROOT / "sample_db" / "sample.sqlite", path)
    names = [f"b{i:02d}" for i in range(args.assessors)]
    subprocess.run([sys.executable, "-m", "workbench", "--db", str(path), "pool",
                    *[a for n in names for a in ("--assessor", n)]],
                   check=True, capture_output=True, cwd=ROOT,
                   env=dict(os.environ, PYTHONPATH=str(ROOT)))
    db = Database.open(str(path), create=False)
    server = start_server(db, path, args.pool)
    modes = ["ws", "chromium"] if args.mode == "both" else [args.mode]
    paces = ["closed", "human"] if args.pace == "both" else [args.pace]
    try:
        for mode in modes:
            if mode == "chromium":
                from playwright.async_api import async_playwright

                async with async_playwright() as p, ChromiumClients(p) as clients:
                    await run_mode(clients, server, db, path, names, paces, args)
            else:
                async with WsClients() as clients:
                    await run_mode(clients, server, db, path, names, paces, args)
    finally:
        server.stop()
        db.close()
        shutil.rmtree(work, ignore_errors=True)


async def run_mode(clients, server, db, path, names, paces, args) -> None:
    if args.grades:
        await one_assessor(clients, server, db, path, args)
    for pace in paces:
        await many(clients, server, db, path, names, args, pace)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("both", "ws", "chromium"), default="both")
    parser.add_argument("--pace", choices=("both", "closed", "human"), default="both")
    parser.add_argument("--grades", type=int, default=50, help="one assessor's grades (0: skip)")
    parser.add_argument("--assessors", type=int, default=16)
    parser.add_argument("--each", type=int, default=10)
    parser.add_argument("--pool", type=int, default=DEFAULT_SIZE,
                        help="the server's warm apps (serve --pool)")
    args = parser.parse_args()
    print(f"{ROOT}: cores {os.cpu_count()}, python {sys.version.split()[0]}, pool "
          f"{args.pool if DEFAULT_SIZE else 'none'}, {load()}", flush=True)
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
