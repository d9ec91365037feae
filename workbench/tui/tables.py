"""DataTable refills that keep the reader's place: a live reload replaces every row, and the
cursor stays on the same row key (or index) with the same scroll offset."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import DataTable

from workbench.tui.text import safe


@dataclass(frozen=True)
class TablePlace:
    """Where the cursor and the scroll were (taken before columns are rebuilt)."""

    key: str | None
    row: int
    column: int
    scroll_x: float
    scroll_y: float


def table_place(table: DataTable) -> TablePlace:
    return TablePlace(cursor_key(table), table.cursor_row, table.cursor_column,
                      table.scroll_x, table.scroll_y)


def fill_table(table: DataTable, rows: Iterable[tuple[str, Sequence[Any]]],
               place: TablePlace | None = None, *, height: int = 1) -> None:
    """Replace the rows (key, cells) keeping the cursor on the same key and the scroll.
    Pass `place` (table_place) when the columns were cleared first: that resets the cursor.
    `height`: lines per row (a cell of two lines needs 2)."""
    place = place or table_place(table)
    key, row_index, column = place.key, place.row, place.column
    scroll_x, scroll_y = place.scroll_x, place.scroll_y
    table.clear()
    for row_key, cells in rows:
        # a str cell would be parsed as markup by DataTable: outside text reaches it as Text
        table.add_row(*(Text(safe(c)) if isinstance(c, str) else safe(c) for c in cells), key=row_key,
                      height=height)
    if not table.row_count:
        return
    try:
        target = table.get_row_index(key) if key is not None else min(row_index, table.row_count - 1)
    except Exception:  # noqa: BLE001 - the row is gone: stay at the same index
        target = min(row_index, table.row_count - 1)
    table.move_cursor(row=target, column=column, scroll=False)
    table.scroll_to(scroll_x, scroll_y, animate=False, immediate=True)


def cursor_key(table: DataTable) -> str | None:
    """The row key under the cursor, or None for an empty table."""
    if not table.row_count:
        return None
    try:
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
    except Exception:  # noqa: BLE001
        return None
