"""The k of a scoreboard's Judged@k column (how much of each system's top k is judged)."""

from __future__ import annotations

from workbench.errors import UsageError


def judged_depth(measures: list[str] | tuple[str, ...]) -> int:
    """The deepest cutoff among `measures`, else 10. Raises UsageError for a name the
    registry does not know (before any scoring)."""
    from workbench.metrics.measures import MeasureError, parse_measures

    try:
        parsed = parse_measures(list(measures))
    except MeasureError as exc:
        raise UsageError(str(exc)) from None
    cutoffs = [m.cutoff for m in parsed if m.cutoff]
    return max(cutoffs) if cutoffs else 10


def judged_column(measures: list[str] | tuple[str, ...]) -> tuple[str, int]:
    """The scoreboard's coverage column for `measures`: (its name `Judged@k`, k). The one
    owner of that rule for the scoreboard screen and its export."""
    k = judged_depth(measures)
    return f"Judged@{k}", k
