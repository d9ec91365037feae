"""Errors shared by every layer; the CLI maps them to exit codes (DESIGN §4)."""

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


class NotFoundError(WorkbenchError):
    """A named query, document, assessor or system does not exist."""


class UsageError(WorkbenchError):
    """Wrong use of a command (exit code 2)."""

    exit_code = 2
