"""autojudge's own overhead (issue 22): labels per second at concurrency 32 against a local
chat-completions server that answers every call in 20 ms.

    .venv/bin/python bench/autojudge_bench.py [--items 2000 --concurrency 32 --delay-ms 20]
                                              [--db postgresql+psycopg://...]

The server runs in its own process (asyncio, keep-alive, no work but the sleep), so what is
measured is the workbench's side: building prompts, the httpx calls, reading the grades
and committing the labels (grade + history event + audit row; group commit: the answers
waiting when the writer is free share one transaction) on a
fresh SQLite campaign (or the --db given; TMPDIR=/dev/shm puts the SQLite file in memory,
without the disk's flush per commit). The whole command runs as users run it
(`python -m workbench autojudge`, stdout to /dev/null); reported: wall time, labels/s, the
ceiling the server allows (concurrency / delay), and the CPU seconds per label less the
start-up (on a shared machine the wall time says more about the neighbours).

Measured (2 294 items, concurrency 32, 20 ms answers; 2 cores shared, load average 10-15):
- SQLite file on disk: 105-172 labels/s (each label's commit waits for its flush), 409-430
  labels per CPU second;
- SQLite in memory (TMPDIR=/dev/shm): 170-339 labels/s, 529-549 labels per CPU second;
- PostgreSQL (4 writer threads): 137-177 labels/s, 243-347 labels per CPU second (one writer:
  48 labels/s).

After the group commit and one shared TLS context (issue 22 #1), same machine, SQLite file on
disk, 2 294 items: 159-163 labels/s at load average 8-12 (391-447 labels per CPU second);
main before it, run alongside at load 7.5: 80 labels/s, 284 labels per CPU second. The
commit no longer bounds the rate: the CPU does (about 2.3 ms per label, most of it in
httpx/httpcore and asyncio), so 300 labels/s needs about 0.7 of the 2 cores to itself; on
this shared machine it got about a third. Not confirmed on a quiet 2-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def serve(port_out, delay: float) -> None:
    """A minimal HTTP/1.1 chat-completions server: grade = document number mod 4."""
    doc = re.compile(rb"Document (d\d+)")

    async def handle(reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
                body = await reader.readexactly(length)
                await asyncio.sleep(delay)
                m = doc.search(body)
                grade = int(m.group(1)[1:]) % 4 if m else 0
                payload = json.dumps({"choices": [{"index": 0, "message": {
                    "role": "assistant", "content": f"##final score: {grade}"}}]}).encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionResetError):
            writer.close()

    async def main():
        server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
        port_out.put(server.sockets[0].getsockname()[1])
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def make_campaign(url: str, items: int) -> int:
    from tests.tui.factory import build_campaign
    from workbench.campaign.database import Database
    from workbench.store.queues import pool_size

    db = Database.open(url)
    try:
        depth = 40
        n_queries = max(1, items // 60)
        build_campaign(db, n_queries=n_queries, n_systems=3, depth=depth, n_docs=80,
                       assessors=("alice",), markup_doc=False)
        with db.read() as s:
            return pool_size(s)
    finally:
        db.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--delay-ms", type=float, default=20.0)
    ap.add_argument("--db", default=None)
    args = ap.parse_args()

    ports = multiprocessing.Queue()
    server = multiprocessing.Process(target=serve, args=(ports, args.delay_ms / 1000), daemon=True)
    server.start()
    port = ports.get(timeout=10)
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db or f"sqlite:///{tmp}/bench.sqlite"
        n = make_campaign(url, args.items)
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        argv = [sys.executable, "-m", "workbench", "--db", url, "autojudge", "--model", "bench",
                "--endpoint", f"http://127.0.0.1:{port}/v1", "--concurrency", str(args.concurrency)]
        # the start-up's CPU (interpreter, imports, the plan): a dry run does all of it
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv + ["--dry-run"], check=True, stdout=subprocess.DEVNULL, env=env, cwd=ROOT)
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        startup = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
        start = time.perf_counter()
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
        )
        wall = time.perf_counter() - start
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    server.terminate()
    if done.returncode != 0:
        sys.exit(done.stderr)
    ceiling = args.concurrency / (args.delay_ms / 1000)
    print(f"{n} items, concurrency {args.concurrency}, server {args.delay_ms:g} ms per answer "
          f"(ceiling {ceiling:.0f}/s)")
    print(f"autojudge: {wall:.2f} s as a whole process, {n / wall:.0f} labels/s; "
          f"{cpu:.2f} CPU s; less the start-up ({startup:.2f} CPU s, a dry run): "
          f"{n / (cpu - startup):.0f} labels per CPU second")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(done.stderr.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
