"""The token gate of `workbench serve`, in process (aiohttp's test client, no browser): what
a request without a valid token gets, that nothing is started for it, the throttle, the
static files, the app's fixed command line and token-free logs."""

from __future__ import annotations

import logging
import shlex
import sys

import pytest
from aiohttp.test_utils import TestClient, TestServer

from workbench.campaign.access import links as L
from workbench.serve import binding
from workbench.serve.app_process import app_command
from workbench.serve.server import SERVED, RedactingAccessLogger, make_app, redact
from workbench.serve.throttle import MAX_DELAY_S, Throttle


@pytest.fixture
async def client(sqlite_db):
    app = make_app(sqlite_db, None, pool=0)
    async with TestClient(TestServer(app, access_log_class=RedactingAccessLogger)) as c:
        c.served = app[SERVED]
        c.served.throttle = Throttle(clock=lambda: 0.0)  # no waiting in these tests
        c.served.throttle.delay = lambda address: 0.0
        yield c


async def test_missing_malformed_unknown_and_revoked_tokens_start_nothing(client, sqlite_db):
    token = L.new_link(sqlite_db, assessor="alice")
    revoked = L.new_link(sqlite_db, assessor="bob")
    L.revoke(sqlite_db, assessor="bob")
    unknown = L.new_link(sqlite_db, assessor="x")[::-1]  # well formed, not a link
    cases = [("/", 401), ("/s/", 404), ("/s/short", 401), ("/ws/short", 401),
             (f"/s/{unknown}", 403), (f"/ws/{unknown}", 403),
             (f"/s/{revoked}", 403), (f"/ws/{revoked}", 403)]
    for path, status in cases:
        response = await client.get(path)
        assert response.status == status, path
        if status != 404:
            assert "personal link" in (await response.text()) or "does not open" in (await response.text())
    assert client.served.bound == [] and client.served.sessions == {}
    assert client.served.pool.started == 0
    page = await client.get(f"/s/{token}")
    assert page.status == 200
    body = await page.text()
    assert f"/ws/{token}" in body and 'content="no-referrer"' in body
    assert "googleapis" not in body  # nothing fetched from another host
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert client.served.bound == [] and client.served.pool.started == 0  # the page alone
    # starts nothing


async def test_a_lead_link_needs_a_server_started_with_that_lead(client, sqlite_db):
    lead = L.new_link(sqlite_db, lead="lena")
    assert (await client.get(f"/s/{lead}")).status == 403
    client.served.lead = "lena"
    assert (await client.get(f"/s/{lead}")).status == 200
    client.served.lead = "someone else"
    assert (await client.get(f"/ws/{lead}")).status == 403
    assert client.served.bound == []


async def test_a_second_browser_of_one_assessor_takes_over(client, sqlite_db):
    """One lease policy (campaign/assessors/lease.py): a second browser is no longer refused
    with 409; its app takes the lease and the first one's app stops, saying so."""
    token = L.new_link(sqlite_db, assessor="alice")
    class Open:  # the first session, open
        async def close(self, **kwargs):
            pass

    client.served.sessions[("assessor", "alice", 0)] = Open()
    response = await client.get(f"/s/{token}")
    assert response.status == 200 and "data-session-websocket-url" in await response.text()


async def test_static_files_are_the_package_assets_only(client):
    ok = await client.get("/static/js/textual.js")
    assert ok.status == 200 and ok.content_type == "text/javascript"
    for path in ("/static/../server.py", "/static/%2e%2e/server.py", "/static/js/",
                 "/static/..%2f..%2fserver.py", "/static//etc/passwd", "/static/js/../../app_service.py",
                 "/download/x", "/static/"):
        assert (await client.get(path, allow_redirects=False)).status == 404, path


def test_the_throttle_doubles_per_bad_token_and_forgets():
    now = [0.0]
    throttle = Throttle(clock=lambda: now[0])
    assert throttle.delay("a") == 0.0
    waits = []
    for _ in range(8):
        throttle.failed("a")
        waits.append(throttle.delay("a"))
    assert waits == [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, MAX_DELAY_S, MAX_DELAY_S]
    assert throttle.delay("b") == 0.0  # per address
    now[0] = 601.0
    assert throttle.delay("a") == 0.0
    throttle.failed("a")
    assert throttle.delay("a") == 0.1


async def test_bad_tokens_are_slowed_down(sqlite_db):
    import time

    app = make_app(sqlite_db, None, pool=0)
    async with TestClient(TestServer(app)) as c:
        started = time.monotonic()
        for _ in range(4):  # waits 0, 0.1, 0.2, 0.4 before each check
            assert (await c.get("/s/" + "A" * 43)).status == 403
        assert time.monotonic() - started >= 0.7


@pytest.mark.parametrize("name", ["alice", "o'brien $(touch /tmp/x); rm -rf ~", "-rf", "a b",
                                  "é\u202e\"}\nbind"])
def test_the_command_line_is_fixed_and_the_name_reaches_the_app_only_in_its_binding(name):
    assert shlex.split(app_command()) == ["exec", sys.executable, "-m", "workbench.cli.served_app"]
    for role in ("assessor", "lead"):
        line = binding.encode(role, name, 133, 42)
        assert line.startswith(b"bind ") and line.index(b"\n") == len(line) - 1  # one line
        assert binding.decode(line) == binding.Binding(role, name, 133, 42)


def test_a_binding_is_exact_or_nothing():
    assert binding.decode(binding.encode("assessor", "ann", 5, 10**6)) == binding.Binding(
        "assessor", "ann", binding.MIN_SIZE, binding.MAX_SIZE)  # sizes clamped
    for line in (b"", b"bind", b"bind {}", b'bind {"role": "root", "name": "a", "width": 80, '
                 b'"height": 24}', b'bind {"role": "assessor", "name": "", "width": 80, '
                 b'"height": 24}', b'bind {"role": "assessor", "name": "a", "width": "80", '
                 b'"height": 24}', b'hello {"role": "assessor", "name": "a", "width": 80, '
                 b'"height": 24}', b"bind \xff"):
        assert binding.decode(line) is None, line
    with pytest.raises(ValueError):
        binding.encode("admin", "ann", 80, 24)


def test_reading_a_binding_leaves_the_sessions_input_in_the_pipe():
    import os

    read, write = os.pipe()
    try:
        os.write(write, binding.encode("assessor", "ann", 80, 24) + b"D\x00\x00\x00\x012")
        assert binding.read_binding(read) == binding.Binding("assessor", "ann", 80, 24)
        assert os.read(read, 100) == b"D\x00\x00\x00\x012"  # Textual's, untouched
        os.write(write, b"bind {")
        os.close(write)
        write = None
        assert binding.read_binding(read) is None  # end of file before a whole line
    finally:
        os.close(read)
        if write is not None:
            os.close(write)


async def test_logs_never_hold_a_token(client, sqlite_db, caplog):
    token = L.new_link(sqlite_db, assessor="alice")
    caplog.set_level(logging.DEBUG)
    await client.get(f"/s/{token}")
    await client.get(f"/s/{token[::-1]}")
    await client.get(f"/ws/{token[::-1]}?width=80")
    text = caplog.text
    assert "GET /s/…" in text and "GET /ws/…" in text and "refused" in text
    assert token not in text and token[::-1] not in text
    assert redact(f"/ws/{token}") == "/ws/…"
