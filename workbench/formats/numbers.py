"""How a number is shown on a screen or in a printed table: 4 decimals, like trec_eval.

Every score, statistic, interval and probability a command prints or a screen shows goes
through these functions, so that the display format has one owner
(docs/architecture.md#one-owner-per-rule). Files keep more: score CSVs have
`score_tables.CSV_DECIMALS` (6), JSON full precision, and `eval --format trec` trec_eval's
own `%6.4f` layout (`evaluation_output`).

Pure, imports nothing: the CLI, the TUI (through `tui/text.num`), campaign/'s report lines
and plots/ all import it.
"""

from __future__ import annotations

DECIMALS = 4  # trec_eval prints its values with %.4f
MISSING = "—"  # no value (None or NaN): a dash, never "nan"
SMALL_P = 1e-4  # below it a p-value is shown in scientific notation (0.0000 would read as 0)


def number(value: float | None, places: int = DECIMALS, *, missing: str = MISSING,
           signed: bool = False, count: bool = False) -> str:
    """`value` with `places` decimals (`+` before a positive one when `signed`), a count as
    an integer, `missing` for None or NaN."""
    if value is None or value != value:
        return missing
    if count:
        return str(int(round(value)))
    return f"{float(value):{'+' if signed else ''}.{places}f}"


def interval(low: float | None, high: float | None, places: int = DECIMALS, *,
             missing: str = MISSING) -> str:
    """A confidence interval as `[low, high]`."""
    return f"[{number(low, places, missing=missing)}, {number(high, places, missing=missing)}]"


def p_value(p: float | None, *, missing: str = MISSING) -> str:
    """A p-value: 4 decimals, or `1.2e-05` below SMALL_P."""
    if p is None or p != p:
        return missing
    return f"{float(p):.1e}" if p < SMALL_P else number(p)


__all__ = ["DECIMALS", "MISSING", "SMALL_P", "interval", "number", "p_value"]
