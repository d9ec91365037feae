"""Which database a `--db` value names. No SQLAlchemy here: the CLI checks `--db` while it
parses the command line, before anything is opened, and `workbench eval` must not pay for
the database layer.

Supported: a bare path or `sqlite:///PATH` (SQLite), `postgresql://...` or
`postgresql+psycopg://...` (PostgreSQL through psycopg 3). Anything else, `mysql://` or
`postgresql+psycopg2://` (a driver that is not installed) among them, is a malformed command
line: one line, exit code 2.
"""

from __future__ import annotations

import os
from pathlib import Path

from workbench.errors import UsageError

DEFAULT_DB = "workbench.sqlite"
SUPPORTED = "sqlite:///PATH, a bare PATH, postgresql://... or postgresql+psycopg://..."

# scheme as typed -> scheme handed to SQLAlchemy (plain postgresql:// would mean psycopg2)
_SCHEMES = {
    "sqlite": "sqlite",
    "postgresql": "postgresql+psycopg",
    "postgresql+psycopg": "postgresql+psycopg",
}


def check_url(value: str) -> str:
    """`value` with its scheme normalised; UsageError (exit 2) for an unsupported one. Only
    the scheme is quoted back: the rest of a URL may hold a password."""
    if "://" not in value:
        return value
    scheme, rest = value.split("://", 1)
    if scheme.lower() not in _SCHEMES:
        raise UsageError(f"unsupported database URL {scheme}://...: use {SUPPORTED}")
    return f"{_SCHEMES[scheme.lower()]}://{rest}"


def resolve_url(db: str | None = None) -> str:
    """`--db` value, else $WORKBENCH_DB, else ./workbench.sqlite; a bare path means SQLite."""
    value = check_url(db or os.environ.get("WORKBENCH_DB") or DEFAULT_DB)
    if "://" in value:
        return value
    return f"sqlite:///{Path(value).expanduser().resolve()}"
