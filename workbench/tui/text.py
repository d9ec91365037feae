"""The one-line texts every screen shows: an error for the user, a score as trec_eval prints it."""

from __future__ import annotations


def describe(exc: BaseException) -> str:
    """A one-line message for the user: a WorkbenchError's text, a database error's first
    line (never SQLAlchemy's SQL dump and link), else type: first line."""
    from workbench.errors import WorkbenchError, is_driver_error, one_line

    if isinstance(exc, WorkbenchError):
        return str(exc)
    if is_driver_error(exc):
        return f"database error: {one_line(exc)}"
    return f"{type(exc).__name__}: {one_line(exc)}"


def num(value: float | None, count: bool = False, places: int = 4) -> str:
    """A score as printed everywhere: 4 decimals like trec_eval, counts as integers."""
    if value is None or value != value:  # None or NaN
        return "–"
    return str(int(round(value))) if count else f"{value:.{places}f}"
