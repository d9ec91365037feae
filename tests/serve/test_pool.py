"""The pool of warm apps of `workbench serve` (workbench/serve/pool.py): real app processes
on a copy of the sample database, no browser (the websocket spoken as textual-serve's page
speaks it). An app is started before any token is checked, with a command line that names
nobody, and is bound to the person a checked token maps to, or to nobody."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from tests.serve.conftest import grades
from tests.waits import eventually
from workbench.campaign.access import links as L
from workbench.serve.binding import READY
from workbench.serve.server import SERVED, make_app

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
_ESCAPES = re.compile(rb"\x1b(\[[0-9;?<=>$]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78M])")


@pytest.fixture
async def pooled(campaign):
    path, db = campaign
    app = make_app(db, str(path), pool=1)
    async with TestClient(TestServer(app)) as client:
        client.served = app[SERVED]
        assert await client.served.pool.wait_full(120)
        yield client


def cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


async def read_until(ws, needles: tuple[str, ...], timeout: float = 60.0) -> str:
    shown = b""

    async def read() -> None:
        nonlocal shown
        async for message in ws:
            data = message.data
            shown += data if isinstance(data, bytes) else data.encode()
            text = _ESCAPES.sub(b"", shown).decode("utf-8", "replace")
            if all(n in text for n in needles):
                return

    await asyncio.wait_for(read(), timeout)
    return _ESCAPES.sub(b"", shown).decode("utf-8", "replace")


def env_for(path: Path) -> dict[str, str]:
    return dict(os.environ, WORKBENCH_DB=str(path), PYTHONPATH=str(ROOT),
                TEXTUAL_DRIVER="textual.drivers.web_driver:WebDriver")


@pytest.mark.parametrize("then", [b"", b"bind {\"role\": \"assessor\"}\n", b"GET / HTTP/1.1\n"])
def test_an_app_that_is_never_bound_exits_without_opening_anything(campaign, then):
    path, _ = campaign
    app = subprocess.Popen([sys.executable, "-m", "workbench.cli.served_app"], cwd=ROOT,
                           env=env_for(path), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    try:
        assert app.stdout.readline() == READY  # warm, waiting for its binding
        out, err = app.communicate(then, timeout=60)  # then its stdin closes
    finally:
        if app.poll() is None:
            app.kill()
    assert app.returncode == 0, err
    assert out == b""  # no Textual app started (it would say __GANGLION__ first)


async def test_the_pool_binds_the_assessor_of_the_checked_token(pooled, campaign):
    path, db = campaign
    token = L.new_link(db, assessor="carol")
    (pid,) = pooled.served.pool.idle_pids
    assert "carol" not in " ".join(cmdline(pid))  # started before any token, for nobody
    before = grades(path, "carol")
    ws = await pooled.ws_connect(f"/ws/{token}?width=133&height=42")
    shown = await read_until(ws, ("not judged yet", "carol"))
    assert pooled.served.bound == [pid]  # the warm app, not a new one
    assert "alice" not in shown and "bob" not in shown
    await ws.send_str(json.dumps(["stdin", "2"]))
    await eventually(lambda: {d for d in grades(path, "carol") if d not in before}, "carol's new grade")
    new = {d: g for d, g in grades(path, "carol").items() if d not in before}
    assert list(new.values()) == [2]
    assert "carol" not in " ".join(cmdline(pid))
    assert await pooled.served.pool.wait_full(120)  # the pool started the next one
    (refill,) = pooled.served.pool.idle_pids
    assert refill != pid and pooled.served.pool.started == 2
    await ws.close()


async def test_bad_and_revoked_links_get_no_app_from_the_pool(pooled, campaign):
    path, db = campaign
    revoked = L.new_link(db, assessor="carol")
    L.revoke(db, assessor="carol")
    pooled.served.throttle.delay = lambda address: 0.0
    (pid,) = pooled.served.pool.idle_pids
    for link, status in ((f"/ws/{revoked}", 403), (f"/ws/{revoked[::-1]}", 403),
                         ("/ws/short", 401), (f"/s/{revoked}", 403)):
        response = await pooled.get(link)
        assert response.status == status, link
    assert pooled.served.bound == [] and pooled.served.pool.idle_pids == [pid]
    assert pooled.served.pool.started == 1 and alive(pid)


async def test_a_revoked_link_ends_a_pooled_session_at_its_next_message(pooled, campaign):
    path, db = campaign
    token = L.new_link(db, assessor="carol")
    before = grades(path, "carol")
    ws = await pooled.ws_connect(f"/ws/{token}?width=133&height=42")
    await read_until(ws, ("not judged yet",))
    (pid,) = pooled.served.bound
    L.revoke(db, assessor="carol")
    await ws.send_str(json.dumps(["stdin", "2"]))
    message = await asyncio.wait_for(ws.receive(), 30)
    while message.type not in (1257, 8, 256, 258):  # CLOSE, CLOSING, CLOSED, ERROR
        message = await asyncio.wait_for(ws.receive(), 30)
    await eventually(lambda: not alive(pid), "the revoked session's app ended")
    assert grades(path, "carol") == before


async def test_the_pool_ends_its_unbound_apps_when_the_server_stops(campaign):
    path, db = campaign
    app = make_app(db, str(path), pool=2)
    async with TestClient(TestServer(app)) as client:
        pool = app[SERVED].pool
        assert await pool.wait_full(120)
        pids = pool.idle_pids
        assert len(pids) == 2 and all(alive(p) for p in pids)
        await client.close()
    assert not any(alive(p) for p in pids)


async def test_an_idle_judging_screen_sends_next_to_nothing(pooled, campaign):
    """Nothing animates under the judging screen: an idle session is not redrawn 15 times a
    second (the query list's indeterminate progress bar did that, 17 KB a frame)."""
    path, db = campaign
    ws = await pooled.ws_connect(f"/ws/{L.new_link(db, assessor='carol')}?width=133&height=42")
    await read_until(ws, ("not judged yet",))
    await asyncio.sleep(1.0)  # the first screen settles (the overall counts come at 0.5 s)
    frames = 0

    async def count() -> None:
        nonlocal frames
        async for _ in ws:
            frames += 1

    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(count(), 3.0)
    assert frames <= 15  # the 2 s poll's redraws (7 here); it was 67 in 3 s
    await ws.close()
