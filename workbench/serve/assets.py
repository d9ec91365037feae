"""The browser's static files: textual-serve's own assets, and nothing else.

The files are listed once at start-up; a request names one of them by its relative path or
gets 404, so no request path ever reaches the file system (no traversal, no listing).
"""

from __future__ import annotations

import mimetypes
from importlib.resources import files
from pathlib import Path


def package_assets() -> dict[str, tuple[bytes, str]]:
    """relative path ('js/textual.js') -> (content, content type)."""
    root = Path(str(files("textual_serve") / "static"))
    found: dict[str, tuple[bytes, str]] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            rel = path.relative_to(root).as_posix()
            kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            found[rel] = (path.read_bytes(), kind)
    return found
