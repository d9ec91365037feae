"""Outside text made visible and harmless on a terminal: the one sanitiser of
docs/architecture.md#rules-that-hold-everywhere.

Documents, queries, run tags, names and notes come from files a participant or an assessor
wrote. Sent raw to a terminal, `ESC[2J` blanks the screen, OSC 0 renames the window, `ESC[H`
moves the cursor, and a C1 code (U+009B is a one-byte CSI) does the same; bidi overrides
reorder what the reader sees. Rich strips only BEL, BS, VT, FF and CR, so the rest is ours to neutralise.

`visible(text)` maps each such character to exactly one visible character, so that a Rich
Text keeps its styles (its spans stay on the same characters):

- C0 controls (but the line feed and the tab, which lay text out) become the Control Pictures
  U+2400–U+241F (ESC shows as ␛, CR as ␍), DEL becomes ␡ (U+2421);
- C1 controls (U+0080–U+009F), the bidi embeddings, overrides and isolates (U+202A–U+202E,
  U+2066–U+2069) and lone surrogates (which no terminal can encode) become U+FFFD.

Every screen and the CLI's plain tables call it; CSV and JSON outputs keep the text as stored.
"""

from __future__ import annotations

import re

__all__ = ["visible", "UNSAFE"]

UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _shown(ch: str) -> str:
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return "\ufffd"


def visible(text: str) -> str:
    """`text` with every unsafe character replaced by one visible character (see above)."""
    if UNSAFE.search(text) is None:  # the common case: no copy
        return text
    return UNSAFE.sub(lambda m: _shown(m.group()), text)
