"""No token in the server's log (docs/serve.md promises none).

A token is 43 URL-safe characters. Whatever carries it into a log line (a path such as
`/s/TOKEN`, `/S/TOKEN`, `//s/TOKEN` or `/static/TOKEN`, the raw request line aiohttp quotes
in "Error handling request" and its traceback when the HTTP version is bad, a control byte
is in it or the URL is over 8 KB, an exception's repr), the rule is one: every run of
URL-safe characters that could be a token or a piece of one is replaced by `…` — a run of
MIN_RUN or more holding a digit, or any run of LONG_RUN or more. Words and Python names in
tracebacks are shorter or hold no digit, and stay readable.

TokenFilter applies the rule to a record's message and to its formatted exception and
stack, installed on every logger the server's requests reach.
"""

from __future__ import annotations

import logging
import re

MIN_RUN = 16
LONG_RUN = 24
_RUN = re.compile(r"[A-Za-z0-9_-]{%d,}" % MIN_RUN)
LOGGERS = ("aiohttp.access", "aiohttp.server", "aiohttp.web", "aiohttp.websocket",
           "aiohttp.client", "aiohttp.internal", "asyncio", "textual-serve", "workbench.serve")


def _mask(match: re.Match) -> str:
    run = match.group(0)
    if len(run) >= LONG_RUN or any(ch.isdigit() for ch in run):
        return "…"
    return run


def redact(text: str) -> str:
    """`text` fit for a log: anything that could be a token replaced by '…'."""
    return _RUN.sub(_mask, text) if text else text


class TokenFilter(logging.Filter):
    """Rewrites a record with the rule applied to its message, exception and stack: no
    runner, format or error message can log a token."""

    _formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        if record.exc_info:
            if not record.exc_text:
                record.exc_text = self._formatter.formatException(record.exc_info)
            record.exc_info = None  # formatted once, here: handlers print exc_text
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def install_token_filter() -> None:
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, TokenFilter) for f in logger.filters):
            logger.addFilter(TokenFilter())
