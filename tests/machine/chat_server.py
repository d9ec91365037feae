"""A chat-completions server for the tests, on 127.0.0.1 (port 0: the system picks one).

It answers from a seeded table: (query, document) -> the answer's text, the item read from
the prompt ("Title of q1", "Document d001" in tests/tui/factory.py's campaigns). Faults are
injected per item, one per call, in order: `429` (with Retry-After: 0), `500`, `timeout`
(sleeps past the client's timeout, then answers), `slow` (answers after `slow_s`), `json`
(a 200 that is not a chat completion), `401`, `trickle` (the answer 10 bytes at a time,
`slow_s` apart: each read is quick, the whole call is not), `endless` (a 200 whose body never
ends), `length` (an answer cut at max tokens: finish_reason "length"), `echo-auth` (a 500
whose body quotes the Authorization header as Python's repr writes it). Every request is logged with the item and
the Authorization header it carried.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_QUERY = re.compile(r"Title of (\S+)")
_DOC = re.compile(r"Document (d\d+)")


@dataclass
class Logged:
    query: str
    document: str
    status: int
    authorization: str | None
    body: dict
    at: float


@dataclass
class ChatServer:
    table: dict[tuple[str, str], str]
    faults: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    delay_s: float = 0.0
    slow_s: float = 0.3
    hang_s: float = 2.0
    log: list[Logged] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._faults = defaultdict(list, {k: list(v) for k, v in self.faults.items()})
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                server.handle(self, body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "ChatServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def calls_for(self, query: str, document: str) -> int:
        with self._lock:
            return sum(1 for e in self.log if (e.query, e.document) == (query, document))

    def handle(self, h: BaseHTTPRequestHandler, body: dict) -> None:
        prompt = body["messages"][-1]["content"]
        q, d = _QUERY.search(prompt), _DOC.search(prompt)
        item = (q.group(1) if q else "?", d.group(1) if d else "?")
        with self._lock:
            fault = self._faults[item].pop(0) if self._faults[item] else None
        status = 200
        if h.path != "/v1/chat/completions":
            status, fault = 404, None
        elif fault in ("429", "500", "401"):
            status = int(fault)
        with self._lock:
            self.log.append(Logged(item[0], item[1], status, h.headers.get("Authorization"),
                                   body, time.monotonic()))
        if fault == "timeout":
            time.sleep(self.hang_s)
        elif fault == "slow":
            time.sleep(self.slow_s)
        elif self.delay_s:
            time.sleep(self.delay_s)
        if status != 200:
            payload = json.dumps({"error": {"message": f"injected {status}"}}).encode()
        elif fault == "json":
            payload = b"<html>502 Bad Gateway from a proxy</html>"
        else:
            answer = self.table.get(item, "I cannot tell.")
            payload = json.dumps({
                "id": "x", "object": "chat.completion", "model": body.get("model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": answer},
                             "finish_reason": "stop"}],
            }).encode()
        if fault == "echo-auth":
            status = 500
            payload = repr(h.headers.get("Authorization", "").encode()).encode()
        elif fault == "length":
            payload = payload.replace(b'"finish_reason": "stop"', b'"finish_reason": "length"')
        try:
            if fault == "endless":
                h.send_response(200)
                h.send_header("Content-Length", str(10 ** 12))
                h.end_headers()
                chunk = b"x" * 65536
                for _ in range(100_000):  # 6 GB at most: the client stops long before
                    h.wfile.write(chunk)
                return
            h.send_response(status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(payload)))
            if status == 429:
                h.send_header("Retry-After", "0")
            h.end_headers()
            if fault == "trickle":
                for i in range(0, len(payload), 10):
                    h.wfile.write(payload[i:i + 10])
                    h.wfile.flush()
                    time.sleep(self.slow_s)
            else:
                h.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout)
            pass
