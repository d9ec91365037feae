"""The endpoint client: one chat-completions call per item, on any OpenAI-compatible server
(OpenAI, vLLM, Ollama, llama.cpp's server), over httpx (the optional `[llm]` extra).

- The call goes to `ENDPOINT/chat/completions` with `Authorization: Bearer KEY` when a key
  is given; the key lives in this object only: it is never stored, printed or logged, and
  any echo of it in an answer or an error is replaced by `***` before anything keeps it.
- Every call has a bounded timeout. A timeout, a lost connection, 429 and 5xx are retried
  with exponential backoff (a server's Retry-After is honoured, up to MAX_BACKOFF_S); after
  the last retry the call is an error (no answer: a rerun asks again).
- Another 4xx (401, 404: a wrong key, a wrong model) stops the run: every call would fail.
- A 200 whose body is not a chat completion is an answer with no grade in it: kept raw
  (never read for a grade). So is an answer that did not finish (`finish_reason` other
  than `stop`, e.g. `length`: cut at max tokens), and a body over MAX_BODY_BYTES (read up
  to there, then the connection is dropped: an endless 200 stops at the cap).
- The key is checked (redaction.clean_key) before the client exists, and every text kept
  from a call passes redaction.Redactor (every spelling of the key).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass

from workbench.campaign.machine.redaction import Redactor
from workbench.errors import WorkbenchError

EXTRA_HINT = "pip install 'workbench[llm]'"
BACKOFF_S = 0.25  # the first retry's wait; doubled each time
MAX_BACKOFF_S = 30.0
RAW_LIMIT = 20_000  # characters of an answer or a body kept (a runaway answer is cut)
MAX_BODY_BYTES = 4 * 1024 * 1024  # a response body read beyond this is a failure
FINISHED = (None, "stop")  # finish_reason values of an answer that ended by itself


class EndpointError(WorkbenchError):
    """The endpoint refuses every call (wrong key, unknown model, wrong URL): stop."""


def require_httpx():
    try:
        import httpx
    except ModuleNotFoundError:
        raise WorkbenchError(
            f"autojudge needs the optional `llm` extra (httpx): {EXTRA_HINT}"
        ) from None
    return httpx


@dataclass(frozen=True)
class CallResult:
    """One item's call. `answered`: the endpoint said 200; `answer` is the model's text
    (None when there is none: `error` says why); `raw` is what is kept for audit: the
    model's text, or the last response body when there is no such text."""

    answered: bool
    answer: str | None
    raw: str
    error: str
    attempts: int
    seconds: float


class ChatClient:
    """`async with ChatClient(...) as client: result = await client.ask(prompt, worker)`."""

    def __init__(self, endpoint: str, model: str, *, api_key: str | None = None,
                 timeout: float = 60.0, retries: int = 4, concurrency: int = 8,
                 parameters: dict | None = None, backoff: float = BACKOFF_S,
                 max_body: int = MAX_BODY_BYTES) -> None:
        self.url = endpoint.rstrip("/") + "/chat/completions"
        self.model = model
        self._key = api_key or None
        self._redact = Redactor(self._key)
        self.max_body = max_body
        self.timeout = timeout
        self.retries = retries
        self.concurrency = concurrency
        self.parameters = dict(parameters or {})
        self.backoff = backoff
        self._clients: list = []

    async def __aenter__(self) -> "ChatClient":
        httpx = require_httpx()
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        # One connection per worker, each its own client: httpcore's shared pool rescans
        # every connection for every request (2.4x the CPU per call at 32 in flight, measured).
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        # One TLS context for all of them: each client would load the CA bundle again
        # (47 ms of CPU each, 1.5 s at 32 workers, measured).
        tls = httpx.create_ssl_context(trust_env=False)
        self._clients = [
            httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(self.timeout),
                              limits=limits, trust_env=False, verify=tls)
            for _ in range(self.concurrency)
        ]
        return self

    async def __aexit__(self, *exc) -> None:
        for client in self._clients:
            await client.aclose()

    def redact(self, text: str) -> str:
        return self._redact(text)

    async def ask(self, prompt: str, worker: int = 0) -> CallResult:
        """One call for worker number `worker` (< concurrency: each has its connection)."""
        httpx = require_httpx()
        body = {"model": self.model, "messages": [{"role": "user", "content": prompt}],
                **self.parameters}
        start = time.monotonic()
        raw, error = "", ""
        for attempt in range(1, self.retries + 2):
            wait = None
            try:
                # httpx's timeout is per phase (a slow trickle resets it): bound the whole call
                async with asyncio.timeout(self.timeout):
                    async with self._clients[worker].stream("POST", self.url, json=body) as response:
                        data, too_big = await _read_capped(response, self.max_body)
            except (httpx.TimeoutException, TimeoutError):
                error = f"timed out after {self.timeout:g} s"
            except httpx.HTTPError as exc:  # TransportError and the rest: a message, redacted
                error = self.redact(f"connection failed: {type(exc).__name__}: {exc}")
            else:
                body_text = self.redact(data.decode("utf-8", errors="replace"))
                raw = body_text[:RAW_LIMIT]
                status = response.status_code
                if status == 200:
                    took = time.monotonic() - start
                    if too_big:
                        return CallResult(True, None, raw, f"the response is larger than "
                                          f"{self.max_body} bytes (not read further)", attempt, took)
                    answer, finish = _content(body_text)  # the whole body: a cut one is not JSON
                    if answer is None:
                        return CallResult(True, None, raw, "the response is not a chat completion",
                                          attempt, took)
                    if finish not in FINISHED:
                        return CallResult(True, None, answer[:RAW_LIMIT],
                                          f"the answer did not finish (finish_reason {finish!r})",
                                          attempt, took)
                    return CallResult(True, answer, answer[:RAW_LIMIT], "", attempt, took)
                error = f"HTTP {status}"
                if status != 429 and status < 500:
                    raise EndpointError(
                        f"{self.url} answered HTTP {status} (check --endpoint, --model and the "
                        f"key's variable): {_short(raw)}"
                    )
                wait = _retry_after(response.headers.get("retry-after"))
            if attempt > self.retries:
                break
            delay = wait if wait is not None else self.backoff * 2 ** (attempt - 1) * random.uniform(0.5, 1.0)
            await asyncio.sleep(min(delay, MAX_BACKOFF_S))
        return CallResult(False, None, raw, f"{error} (after {self.retries + 1} attempts)",
                          self.retries + 1, time.monotonic() - start)


async def _read_capped(response, cap: int) -> tuple[bytes, bool]:
    """The body, up to `cap` bytes; (what was read, True) when there was more."""
    chunks, size = [], 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > cap:
            return b"".join(chunks)[:cap], True
    return b"".join(chunks), False


def _content(raw: str) -> tuple[str | None, object]:
    """(the first choice's message content, its finish_reason); content None when the body
    is not a chat completion."""
    try:
        choice = json.loads(raw)["choices"][0]
        content = choice["message"]["content"]
        finish = choice.get("finish_reason")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None, None
    return (content, finish) if isinstance(content, str) else (None, None)


def _retry_after(value: str | None) -> float | None:
    try:
        return max(float(value), 0.0) if value is not None else None
    except ValueError:
        return None


def _short(text: str) -> str:
    one = " ".join(text.split())
    return one[:200] + ("…" if len(one) > 200 else "")
