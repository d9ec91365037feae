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
import stat

from workbench.errors import DatabaseError, UsageError

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
    """`--db` value, else $WORKBENCH_DB, else ./workbench.sqlite; a bare path means SQLite.
    A SQLite path that exists and is not a regular file is refused here, before any engine
    or connection exists (refuse_non_file)."""
    if db is not None and not db.strip():
        raise UsageError("--db is empty: give a SQLite path or a postgresql:// URL")
    value = check_url(db or os.environ.get("WORKBENCH_DB") or DEFAULT_DB)
    if "://" in value:
        if value.startswith("sqlite:///"):
            refuse_non_file(value[len("sqlite:///"):].split("?", 1)[0])
        return value
    path = os.path.expanduser(value)  # (os.path, not pathlib: every command's start pays for it)
    refuse_non_file(path)
    return f"sqlite:///{os.path.realpath(path)}"


_KINDS = (
    (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISBLK, "a block device"), (stat.S_ISCHR, "a character device"),
    (stat.S_ISSOCK, "a socket"),
)


def refuse_non_file(path: str) -> None:
    """DatabaseError when `path` (or what a symlink at it points to) exists and is not a
    regular file. A block device reports size 0 and so looked like a new database: `init`
    wrote a SQLite header over its data; /dev/null left a /dev/null-journal behind; a
    directory said "unable to open database file" and a FIFO "disk I/O error". A path that does not exist yet is fine: it becomes a new database."""
    if not path or path == ":memory:":
        return
    try:
        info = os.stat(path)  # follows symlinks: what SQLite would open
    except FileNotFoundError:
        return
    except OSError as exc:
        raise DatabaseError(f"cannot use {path} as a database: {(exc.strerror or str(exc)).lower()}") from None
    if stat.S_ISREG(info.st_mode):
        return
    kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
    via = f" (through the symlink {path})" if os.path.islink(path) else ""
    raise DatabaseError(
        f"{os.path.realpath(path) if via else path} is {kind}{via}, not a database file: give the "
        "path of a SQLite file (a new one is created there) or a postgresql:// URL"
    )
