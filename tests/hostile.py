"""The "hostile text" fixture: what a participant or an assessor may put into a
title, a text, a note, a run tag or a name, run through every import, screen and export.

- CONTROL: terminal escape sequences (ESC[2J blanks the screen, OSC 0 renames the window,
  ESC[H moves the cursor), C1 codes (U+009B is a one-byte CSI, U+0085 a line break), DEL and
  bidi overrides/isolates; free text may hold these, ids and names may not (workbench.names);
- MARKUP: Rich markup that crashed or recoloured screens;
- FORMULA: spreadsheet formulas (a cell starting with = + - @ tab or CR);
- HTML: a script tag for the Markdown export;
- SURROGATE: a lone surrogate as JSON writes it (no UTF-8 encoding exists for it).
"""

from __future__ import annotations

import re

CONTROL = "\x1b[2J\x1b]0;pwned\x07\x1b[H\x9b2J\x85\x7f\u202eevil\u2066"
MARKUP = "[/x][red]b"
FORMULA = "=HYPERLINK(\"http://x\",\"y\")"
HTML = "<script>alert(1)</script>"
SURROGATE_JSON = "\\ud83d"
# one free-text value with everything in it (starts with the formula)
TEXT = f"{FORMULA} {CONTROL} {MARKUP} {HTML}"
# what may go into an id or a name (no control characters, workbench.names)
NAME = "=cmd|' /C calc'!A0[/x]"
TAG = "@SUM(1+1)[/x]"

# what must never reach a terminal: C0 (but \n and \t), DEL, C1, bidi controls, surrogates
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# the visible forms of CONTROL's first characters
SHOWN = "\u241b[2J\u241b]0;pwned\u2407\u241b[H\ufffd2J\ufffd\u2421\ufffdevil\ufffd"
