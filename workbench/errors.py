"""Errors shared by every layer; the CLI maps them to exit codes (docs/architecture.md#command-line-contract)."""

from __future__ import annotations


class WorkbenchError(Exception):
    """Base class: a problem to report to the user in one line, not a traceback."""

    exit_code = 1


class InputError(WorkbenchError):
    """Bad input: the message names file, line and reason (exit code 1)."""

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {reason}")


class OutputError(WorkbenchError):
    """An output path cannot be written (missing folder, a directory, no permission)."""


class DatabaseError(WorkbenchError):
    """The database cannot be used as it is (not ours, too new, read-only...)."""


class WriteConflict(DatabaseError):
    """Another transaction committed a row this one meant to insert (a unique key or a
    foreign key raced on PostgreSQL); nothing was written and the use case may retry."""


class NotFoundError(WorkbenchError):
    """A named query, document, assessor or system does not exist."""


class UsageError(WorkbenchError):
    """Wrong use of a command (exit code 2)."""

    exit_code = 2


def is_driver_error(exc: BaseException) -> bool:
    """An error of the database layer (SQLAlchemy or a driver: disk full, read-only file,
    server gone, a COPY refused), to report in one line rather than as a traceback."""
    return type(exc).__module__.split(".")[0] in ("sqlalchemy", "sqlite3", "psycopg")


def one_line(exc: BaseException) -> str:
    """The driver's own message, first line only, without SQLAlchemy's SQL dump and
    "Background on this error at: https://..." link (anything else: its text)."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
