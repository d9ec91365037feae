"""Small per-user TUI state kept outside the database (no schema change): the last
assessor used with each database, in $XDG_CONFIG_HOME/workbench/tui.json (default
~/.config), keyed by the database URL."""

from __future__ import annotations

import json
import os
from pathlib import Path


def settings_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "workbench" / "tui.json"


def _load() -> dict:
    try:
        return json.loads(settings_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def remembered_assessor(db_url: str) -> str | None:
    """The assessor last used with `db_url`, or None."""
    value = _load().get("last_assessor", {}).get(db_url)
    return value if isinstance(value, str) and value else None


def remember_assessor(db_url: str, name: str) -> None:
    """Remember `name` for `db_url`; a config dir we cannot write is not an error."""
    data = _load()
    data.setdefault("last_assessor", {})[db_url] = name
    path = settings_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass
