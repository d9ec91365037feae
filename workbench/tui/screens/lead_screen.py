"""What every team-lead screen shares: loading in a thread worker, live refresh, export.

Live: once a second (only while the screen is the one shown) a worker reads the cheap
`campaign.live.data_version`; when it differs from the version the screen last drew, the
screen reloads. The version is read BEFORE the data, so a write that lands during a load
triggers one more reload instead of being missed. Tables are refilled by `fill_table`, which
keeps the cursor on the same row key and the same scroll offset.

Subclasses implement `load()` (runs in a thread: campaign calls only, returns plain data)
and `show(data)` (main thread: updates widgets); `export_formats` + `export_text(fmt)` give
the export action (key `e`). NOT blind: lead screens only (app registers them with lead=True).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable

from workbench.campaign.live import DataVersion, data_version

POLL_SECONDS = 1.0


def describe(exc: BaseException) -> str:
    """A one-line message for the user (a WorkbenchError's text, else type: text)."""
    from workbench.errors import WorkbenchError

    if isinstance(exc, WorkbenchError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def num(value: float | None, count: bool = False, places: int = 4) -> str:
    """A score as printed everywhere: 4 decimals like trec_eval, counts as integers."""
    if value is None or value != value:  # None or NaN
        return "–"
    return str(int(round(value))) if count else f"{value:.{places}f}"


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
               place: TablePlace | None = None) -> None:
    """Replace the rows (key, cells) keeping the cursor on the same key and the scroll.
    Pass `place` (table_place) when the columns were cleared first: that resets the cursor."""
    place = place or table_place(table)
    key, row_index, column = place.key, place.row, place.column
    scroll_x, scroll_y = place.scroll_x, place.scroll_y
    table.clear()
    for row_key, cells in rows:
        table.add_row(*cells, key=row_key)
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


def export_dir(db_url: str) -> Path:
    """Exports go next to a SQLite database file, else to the current folder."""
    if db_url.startswith("sqlite:///"):
        path = Path(db_url[len("sqlite:///"):])
        if path.parent.is_dir():
            return path.parent
    return Path.cwd()


class LeadScreen(Screen):
    """Base of the lead screens (see the module docstring)."""

    CSS_PATH = "../lead.tcss"

    BINDINGS = [
        Binding("e", "export", "Export"),
        Binding("question_mark", "help", "Keys"),
        Binding("ctrl+r", "reload", "Reload", show=False),
    ]
    # format name -> file extension; empty: no export on this screen
    export_formats: dict[str, str] = {}
    export_stem = "export"
    live = True  # False: no database, no polling (the quick calculator)

    @dataclass
    class Loaded(Message):
        version: DataVersion | None
        data: Any
        token: int

    @dataclass
    class Probed(Message):
        version: DataVersion

    @dataclass
    class Failed(Message):
        what: str
        error: str

    def __init__(self) -> None:
        super().__init__()
        self.version: DataVersion | None = None
        self.loading_version: DataVersion | None = None
        self._seen_event: int | None = None
        self._load_started = self._loaded_at = self._load_seconds = 0.0
        self.data: Any = None
        self._loading = False
        self._token = 0  # a reload asked for after a load started supersedes it

    # ---- subclass hooks ----------------------------------------------------------------

    def load(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def show(self, data: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def export_text(self, fmt: str) -> str:  # pragma: no cover - only with export_formats
        """(Worker thread.) The export in `fmt`, from self.data or the database."""
        raise NotImplementedError

    # ---- loading and live refresh ------------------------------------------------------

    def on_mount(self) -> None:
        # Textual calls this after a subclass's own on_mount (handlers run along the MRO).
        if not self.live:
            return
        self.set_interval(POLL_SECONDS, self._poll)
        self.reload()

    def on_screen_resume(self) -> None:
        if self.live and self.version is not None:
            self._poll()

    def reload(self) -> None:
        self._load_started = time.monotonic()
        self._token += 1
        self._loading = True
        self._load(self._token)

    def action_reload(self) -> None:
        self.reload()

    @work(thread=True, group="lead-load", exclusive=True)
    def _load(self, token: int) -> None:
        try:
            version = data_version(self.app.db)
            self.loading_version = version  # what load() sees at least (read before the data)
            data = self.load()
        except Exception as exc:  # noqa: BLE001 - shown to the user, never a crash
            self.post_message(self.Failed("load", describe(exc)))
            return
        self.post_message(self.Loaded(version, data, token))

    def queries_changed(self) -> set[str]:
        """(Worker thread, inside load().) Queries with judgment events since the previous
        load of this screen; empty on the first load."""
        from workbench.campaign.live import queries_changed_since

        version, seen = self.loading_version, self._seen_event
        if version is None:
            return set()
        self._seen_event = version.last_event
        if seen is None or version.last_event <= seen:
            return set()
        return queries_changed_since(self.app.db, seen)

    def on_lead_screen_loaded(self, message: "LeadScreen.Loaded") -> None:
        message.stop()
        if message.token != self._token:
            return  # a newer reload is on its way
        self._loading = False
        now = time.monotonic()
        self._load_seconds, self._loaded_at = now - self._load_started, now
        self.version = message.version
        self.data = message.data
        self.show(message.data)

    def on_lead_screen_failed(self, message: "LeadScreen.Failed") -> None:
        message.stop()
        self._loading = False
        self.notify(message.error, title=f"could not {message.what}", severity="error",
                    markup=False, timeout=8)

    def _poll(self) -> None:
        # A screen whose load is slow (a big campaign) waits as long as its last load took
        # before reloading again: busy assessors cost a lead's machine at most half a core.
        rested = time.monotonic() - self._loaded_at >= self._load_seconds
        if self.is_current and not self._loading and self.version is not None and rested:
            self._probe()

    @work(thread=True, group="lead-probe", exclusive=True)
    def _probe(self) -> None:
        try:
            self.post_message(self.Probed(data_version(self.app.db)))
        except Exception:  # noqa: BLE001 - a busy/locked database: try again next tick
            pass

    def on_lead_screen_probed(self, message: "LeadScreen.Probed") -> None:
        message.stop()
        if not self._loading and message.version != self.version:
            self.on_data_changed(self.version, message.version)

    def on_data_changed(self, old: DataVersion | None, new: DataVersion) -> None:
        """Another writer changed the campaign: reload (subclasses may do less)."""
        self.reload()

    def action_help(self) -> None:
        """The keys of this screen and the lead modes, from the bindings (one registry)."""
        from workbench.tui.screens.help import HelpScreen
        from workbench.tui.screens.lead_modes import LEAD_MODES

        rows = [(b.key.replace("question_mark", "?"), b.description) for b in self.BINDINGS
                if isinstance(b, Binding) and b.description]
        modes = [(key.upper(), f"{title}: {text}") for key, title, text, _ in LEAD_MODES.values()]
        self.app.push_screen(HelpScreen(rows, modes + [("F1", "Judge (the assessor screens)")]))

    # ---- export ------------------------------------------------------------------------

    def action_export(self) -> None:
        if not self.export_formats or self.data is None:
            self.notify("Nothing to export on this screen yet.", markup=False)
            return
        from workbench.tui.screens.export_dialog import ExportDialog

        stamp = time.strftime("%Y%m%d-%H%M%S")
        folder = export_dir(self.app.db.url)

        def suggest(fmt: str) -> str:
            # plain table formats keep the screen's name; "adjudicated qrels" -> adjudicated-qrels
            stem = self.export_stem if " " not in fmt else "-".join(fmt.split())
            return str(folder / f"{stem}-{stamp}.{self.export_formats[fmt]}")

        self.app.push_screen(ExportDialog(suggest, list(self.export_formats)), self._export_chosen)

    def _export_chosen(self, choice: tuple[str, str] | None) -> None:
        if choice is not None:
            self._write_export(*choice)

    @work(thread=True, group="lead-export")
    def _write_export(self, path: str, fmt: str) -> None:
        """export_text runs here, in the worker: it may read the database (qrels, history)."""
        from workbench.campaign.exporting import atomic_output

        try:
            text = self.export_text(fmt)
            with atomic_output(path) as fh:
                fh.write(text)
        except Exception as exc:  # noqa: BLE001
            self.app.call_from_thread(
                self.notify, f"export failed: {describe(exc)}", severity="error", markup=False
            )
            return
        self.app.call_from_thread(self.notify, f"wrote {path}", markup=False)


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Rows as CSV text (quoted where needed: ids may hold commas)."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()
