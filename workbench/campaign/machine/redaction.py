"""The API key: checked once, and hidden in every form it can take in a text.

`clean_key`: white space around the key is dropped (a `.env` written with CRLF line ends
gives `sk-...\\r`); a key that still holds a control character or a character outside
printable ASCII is refused, naming the variable and never the key (an HTTP header cannot
carry it: the HTTP library would raise with the key in its message).

`Redactor`: replaces the key in a text by `***`, in each form a text can hold it: bare,
as Python's repr writes it (a `b'Bearer sk-...\\r'` in an exception), JSON-escaped and
percent-encoded. Everything kept or printed from a call (answer, body, error) passes it.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from workbench.errors import UsageError

MASK = "***"


def key_problem(key: str) -> str | None:
    """Why `key` (already stripped) cannot be sent in a header; None when it can."""
    if not key:
        return "is empty"
    for i, ch in enumerate(key):
        if ord(ch) < 0x20 or ord(ch) == 0x7F:
            return f"holds a control character (U+{ord(ch):04X}) at character {i + 1}"
        if ord(ch) > 0x7E:
            return f"holds a non-ASCII character (U+{ord(ch):04X}) at character {i + 1}"
    return None


def clean_key(raw: str, variable: str) -> str:
    """The key from `raw` (the variable's value) without surrounding white space; refused
    (UsageError, the variable named, the key never shown) when it cannot be a header."""
    key = raw.strip()
    problem = key_problem(key)
    if problem is not None:
        raise UsageError(f"the API key in {variable} (--api-key-env) {problem}; "
                         "fix the variable's value")
    return key


def forms(secret: str) -> list[str]:
    """Every spelling of `secret` a text may hold, longest first."""
    found = {secret, secret.strip(), repr(secret)[1:-1], json.dumps(secret)[1:-1],
             quote(secret, safe=""), repr(secret.encode("utf-8", "backslashreplace"))[2:-1]}
    return sorted((f for f in found if f), key=len, reverse=True)


class Redactor:
    def __init__(self, *secrets: str | None) -> None:
        self._forms = sorted({f for s in secrets if s for f in forms(s)}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        if not text:
            return text
        for form in self._forms:
            text = text.replace(form, MASK)
        return text
