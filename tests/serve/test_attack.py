"""The serve gate against an attacker: bad tokens never
delay a valid link and their queue is bounded, `resize` sizes are clamped, no token reaches
the log in any spelling, a WebSocket request without its key is a 400, and the page's own
requests carry no Referer with the token."""

from __future__ import annotations

import asyncio
import logging
import math
import time

import pytest
from aiohttp.test_utils import TestClient, TestServer

from tests.waits import eventually
from workbench.campaign.access import links as L
from workbench.serve import server as server_module
from workbench.serve.binding import MAX_SIZE, MIN_SIZE, terminal_size
from workbench.serve.log_redaction import TokenFilter, redact
from workbench.serve.page import PAGE_CSS_PATH
from workbench.serve.server import SERVED, RedactingAccessLogger, make_app
from workbench.serve.throttle import MAX_DELAY_S, Throttle


@pytest.fixture
async def client(sqlite_db):
    app = make_app(sqlite_db, None, pool=0)
    async with TestClient(TestServer(app, access_log_class=RedactingAccessLogger)) as c:
        c.served = app[SERVED]
        yield c


async def test_a_valid_link_never_waits_behind_bad_ones_from_its_address(client, sqlite_db):
    token = L.new_link(sqlite_db, assessor="alice")
    throttle = client.served.throttle
    for _ in range(12):  # one proxy address, 12 bad links already: the full 5 s delay
        throttle.failed("127.0.0.1")
    assert throttle.delay("127.0.0.1") == MAX_DELAY_S
    bad = [asyncio.create_task(client.get("/s/" + "A" * 43)) for _ in range(12)]
    await eventually(lambda: throttle.waiting == 12, "the 12 bad links waiting")
    started = time.monotonic()
    response = await client.get(f"/s/{token}")
    # answered before one throttle delay has passed: it waited on none of them (was 36 s);
    # the 12 are known to be waiting (polled above, where a 0.2 s sleep missed them under load)
    assert response.status == 200 and time.monotonic() - started < MAX_DELAY_S
    for task in bad:
        task.cancel()
    await asyncio.gather(*bad, return_exceptions=True)


async def test_the_waiting_refusals_are_bounded():
    throttle = Throttle(max_waiting=3)
    for _ in range(12):
        throttle.failed("a")
    tasks = [asyncio.create_task(throttle.refused("a")) for _ in range(10)]
    await eventually(lambda: sum(t.done() for t in tasks) == 7, "7 refusals answered at once")
    assert throttle.waiting == 3
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert throttle.waiting == 0


@pytest.mark.parametrize("width, height, size", [
    (80, 24, (80, 24)), (20000, 20000, (MAX_SIZE, MAX_SIZE)), (1, -5, (MIN_SIZE, MIN_SIZE)),
    (120.7, 40.2, (120, 40)), (math.inf, 24, None), (80, -math.inf, None), (math.nan, 24, None),
    ("80", 24, None), (True, 24, None), (None, 24, None), ([80], 24, None),
])
def test_every_resize_is_clamped_and_bad_values_ignored(width, height, size):
    assert terminal_size(width, height) == size


async def test_resize_messages_reach_the_app_clamped_and_1e400_is_ignored(monkeypatch):
    from aiohttp import WSMsgType

    class Message:
        type = WSMsgType.TEXT

        def __init__(self, text):
            self.text = text

        def json(self):
            import json
            return json.loads(self.text)

    class Socket:
        def __init__(self, texts):
            self.texts = texts

        def __aiter__(self):
            return self._gen()

        async def _gen(self):
            for t in self.texts:
                yield Message(t)

    class Service:
        sizes: list = []

        async def set_terminal_size(self, w, h):
            self.sizes.append((w, h))

    monkeypatch.setattr(server_module, "grant_for", lambda db, digest: object())
    service = Service()
    served = type("S", (), {"db": None})()
    grant = type("G", (), {"role": "assessor", "name": "ann", "digest": "x"})()
    await server_module._relay(served, grant, Socket([
        '["resize", {"width": 20000, "height": 20000}]',
        '["resize", {"width": 1e400, "height": 24}]',
        '["resize", {"width": 100, "height": 30}]',
    ]), service)
    assert service.sizes == [(MAX_SIZE, MAX_SIZE), (100, 30)]


def test_the_log_rule_catches_every_spelling_of_a_token():
    token = "Qm9yZWQ_-abcDEF0123456789xyzXYZ0123456789a"  # 43 URL-safe characters
    for text in (f"/s/{token}", f"/S/{token}", f"//s/{token}", f"/static/{token}",
                 f"GET /s/{token} HTTP/9.9", f"/ws/{token[:20]}\x01{token[20:]}",
                 f"BadStatusLine('GET /s/{token}?x=1 HTTP/1.1')"):
        assert token[:16] not in redact(text) and token[-16:] not in redact(text), text
    # words and Python names stay readable
    kept = "Error handling request from 127.0.0.1: aiohttp.http_exceptions.BadStatusLine"
    assert redact(kept) == kept
    record = logging.LogRecord("aiohttp.server", logging.ERROR, __file__, 1,
                               "Error handling request %s", (f"/S/{token}",), None)
    try:
        raise ValueError(f"Bad request line b'GET //s/{token} HTTP/9.9'")
    except ValueError:
        import sys
        record.exc_info = sys.exc_info()
    TokenFilter().filter(record)
    shown = logging.Formatter().format(record)
    assert "ValueError" in shown and "Error handling request" in shown
    assert token[:16] not in shown and token[-16:] not in shown


@pytest.mark.parametrize("request_line", [
    "GET /s/{t} HTTP/9.9", "GET /s/{t}\x01 HTTP/1.1", "GET /s/{t}?" + "x" * 9000 + " HTTP/1.1",
    "GET /S/{t} HTTP/1.1", "GET //s/{t} HTTP/1.1", "GET /static/{t} HTTP/1.1",
])
async def test_no_request_puts_a_token_in_the_log(client, sqlite_db, caplog, request_line):
    token = L.new_link(sqlite_db, assessor="alice")
    caplog.set_level(logging.DEBUG)
    reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
    writer.write(request_line.replace("{t}", token).encode("latin-1") + b"\r\nHost: x\r\n\r\n")
    await writer.drain()
    await asyncio.wait_for(reader.read(65536), 10)
    writer.close()
    await asyncio.sleep(0.05)
    text = caplog.text + "".join(str(r.exc_text or "") for r in caplog.records)
    assert token not in text and token[:16] not in text and token[-16:] not in text, text[-3000:]


async def test_a_websocket_request_without_its_key_is_a_400(client, sqlite_db, caplog):
    token = L.new_link(sqlite_db, assessor="alice")
    caplog.set_level(logging.DEBUG)
    response = await client.get(f"/ws/{token}")  # a plain GET: no Upgrade, no key
    assert response.status == 400 and "Not a WebSocket request" in await response.text()
    assert "Traceback" not in caplog.text and "failed" not in caplog.text
    assert client.served.sessions == {} and client.served.bound == []


async def test_the_page_sends_no_referer_and_loads_its_font_from_a_stylesheet(client, sqlite_db):
    token = L.new_link(sqlite_db, assessor="alice")
    page = await client.get(f"/s/{token}")
    html = await page.text()
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert '<meta name="referrer" content="no-referrer">' in html
    assert "@font-face" not in html and "url(" not in html  # no request from the page's CSS
    for tag in ('href="/static/css/xterm.css"', f'href="/static/{PAGE_CSS_PATH}"',
                'src="/static/js/textual.js"'):
        assert f'{tag} referrerpolicy="no-referrer"' in html
    css = await client.get(f"/static/{PAGE_CSS_PATH}")
    assert css.status == 200 and "@font-face" in await css.text()
    font = await client.get("/static/fonts/RobotoMono-VariableFont_wght.ttf")
    assert font.status == 200


async def test_a_lead_export_is_downloaded_under_its_key_and_unknown_keys_are_404(client):
    """The browser's export is a download through /download/KEY."""
    downloads = client.served.downloads

    class App:
        app_service_id = "app-1"
        chunks = [b"| system |\n", b""]

        async def send_meta(self, meta):
            await downloads.chunk_received(meta["key"], self.chunks.pop(0))
            return True

    await downloads.create_download(app_service=App(), delivery_key="k" * 32,
                                    file_name='board"; x=.md', open_method="download",
                                    mime_type="text/markdown", encoding="utf-8")
    response = await client.get("/download/" + "k" * 32)
    assert response.status == 200 and await response.text() == "| system |\n"
    assert response.headers["Content-Disposition"] == 'attachment; filename="boardx.md"'
    assert response.headers["Cache-Control"] == "no-store"
    assert (await client.get("/download/" + "k" * 32)).status == 404  # single use
    assert (await client.get("/download/nope")).status == 404
