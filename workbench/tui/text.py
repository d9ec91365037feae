"""The one-line texts every screen shows: an error for the user, a score as trec_eval prints it."""

from __future__ import annotations

from workbench.formats.numbers import DECIMALS, number


def describe(exc: BaseException) -> str:
    """A one-line message for the user: a WorkbenchError's text, a database error's first
    line (never SQLAlchemy's SQL dump and link), else type: first line."""
    from workbench.errors import WorkbenchError, is_driver_error, one_line

    if isinstance(exc, WorkbenchError):
        return str(exc)
    if is_driver_error(exc):
        return f"database error: {one_line(exc)}"
    return f"{type(exc).__name__}: {one_line(exc)}"


def num(value: float | None, count: bool = False, places: int = DECIMALS, missing: str = "–") -> str:
    """A score as printed everywhere (formats/numbers.py): 4 decimals like trec_eval, counts
    as integers, a dash for None or NaN."""
    return number(value, places, missing=missing, count=count)


def safe(content):
    """Outside text for a screen, through the one sanitiser (workbench.visible): a str
    comes back as a str, a rich Text as a copy with the same styles, anything else (a table,
    a group) as it is. Every widget that shows data passes its content through here."""
    from rich.text import Text

    from workbench.visible import UNSAFE, visible

    if isinstance(content, str):
        return visible(content)
    if isinstance(content, Text) and UNSAFE.search(content.plain):
        shown = content.copy()
        shown.plain = visible(content.plain)  # same length: the spans stay where they were
        return shown
    return content
