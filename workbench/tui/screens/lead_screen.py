"""What every team-lead screen shares: loading in a thread worker, live refresh, export.

Live: once a second (only while the screen is the one shown) a worker reads the cheap
`campaign.live.data_version`; when it differs from the version the screen last drew, the
screen reloads. The version is read BEFORE the data, so a write that lands during a load
triggers one more reload instead of being missed. Tables are refilled by tables.fill_table,
which keeps the cursor on the same row key and the same scroll offset.

Subclasses implement `load(changes)` (runs in a thread: campaign calls only, returns plain
data, changes no attribute of the screen), `keep(data)` (main thread: remember what the load
computed, e.g. a cache, before drawing) and `show(data)` (main thread: updates widgets);
`export_formats` + `export_text(fmt)` give the export action (key `e`); a screen whose numbers
a `--plot` figure draws sets `plots = True` and implements `export_plot(path)`, and the dialog
offers the figure as PNG, SVG or PDF too (campaign/plotting.py, the same figure the command
writes). Workers only post
messages; every change of the screen's state happens in their handlers, on the main thread.
NOT blind: lead screens only (app registers them with lead=True).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen

from workbench.campaign.database import Database
from workbench.campaign.live import DataVersion, data_version
from workbench.tui.exports import export_dir
from workbench.tui.text import describe
from workbench.tui.screens.lead_modes import mode_bindings

POLL_SECONDS = 1.0
# the figure formats of `--plot`, offered by screens with plots = True (matplotlib installed)
PLOT_FORMATS = {"plot png": "png", "plot svg": "svg", "plot pdf": "pdf"}
MIME = {"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf"}


@dataclass(frozen=True)
class Changes:
    """What one load knows of the writes since the screen's previous load."""

    db: Database
    version: DataVersion  # read before the load's data
    seen_event: int | None  # the last judgment event the previous load saw; None: first load

    def queries(self) -> set[str]:
        """(Worker thread.) Queries with judgment events since the previous load; empty on
        the first load."""
        from workbench.campaign.live import queries_changed_since

        if self.seen_event is None or self.version.last_event <= self.seen_event:
            return set()
        return queries_changed_since(self.db, self.seen_event)


class LeadScreen(Screen):
    """Base of the lead screens (see the module docstring)."""

    CSS_PATH = "../lead.tcss"

    BINDINGS = [
        Binding("e", "export", "Export"),
        Binding("question_mark", "help", "Keys"),
        Binding("ctrl+r", "reload", "Reload", show=False),
        *mode_bindings(),
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

    @dataclass
    class Exported(Message):
        path: str
        error: str | None = None  # None: written
        download: bool = False  # offered to the browser as a download (workbench serve)

    def __init__(self) -> None:
        super().__init__()
        self.version: DataVersion | None = None
        self._seen_event: int | None = None
        self._load_started = self._loaded_at = self._load_seconds = 0.0
        self.data: Any = None
        self._loading = False
        self._token = 0  # a reload asked for after a load started supersedes it

    # ---- subclass hooks ----------------------------------------------------------------

    def load(self, changes: Changes) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def keep(self, data: Any) -> None:
        """(Main thread.) Remember what the accepted load computed before it is shown."""

    def show(self, data: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def export_text(self, fmt: str) -> str:  # pragma: no cover - only with export_formats
        """(Worker thread.) The export in `fmt`, from self.data or the database."""
        raise NotImplementedError

    plots = False  # True: export_plot is implemented

    def export_plot(self, path: str) -> None:  # pragma: no cover - only with plots = True
        """(Worker thread.) Write the screen's figure to `path` (its suffix gives the kind)."""
        raise NotImplementedError

    def _formats(self) -> dict[str, str]:
        """The export dialog's formats: the screen's, and its figure where it has one."""
        formats = dict(self.export_formats or {})
        if self.plots:
            from workbench.campaign.plotting import available

            if available():
                formats.update(PLOT_FORMATS)
        return formats

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
        self._load(self._token, self._seen_event)

    def action_reload(self) -> None:
        self.reload()

    @work(thread=True, group="lead-load", exclusive=True)
    def _load(self, token: int, seen_event: int | None) -> None:
        try:
            version = data_version(self.app.db)  # read before the data
            data = self.load(Changes(self.app.db, version, seen_event))
        except Exception as exc:  # noqa: BLE001 - shown to the user, never a crash
            self.post_message(self.Failed("load", describe(exc)))
            return
        self.post_message(self.Loaded(version, data, token))

    def on_lead_screen_loaded(self, message: "LeadScreen.Loaded") -> None:
        message.stop()
        if message.version is not None:  # a superseded load saw these events too
            self._seen_event = max(self._seen_event or 0, message.version.last_event)
        if message.token != self._token:
            return  # a newer reload is on its way
        self._loading = False
        now = time.monotonic()
        self._load_seconds, self._loaded_at = now - self._load_started, now
        self.version = message.version
        self.data = message.data
        self.keep(message.data)
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

        mode_keys = {b.key for b in mode_bindings()}  # listed below, with what they open
        rows = [(b.key.replace("question_mark", "?"), b.description) for b in self.BINDINGS
                if isinstance(b, Binding) and b.description and b.key not in mode_keys]
        modes = [(key.upper(), f"{title}: {text}") for key, title, text, _ in LEAD_MODES.values()]
        self.app.push_screen(HelpScreen(rows, modes + [("F1", "Judge (the assessor screens)")]))

    # ---- export ------------------------------------------------------------------------

    def action_export(self) -> None:
        formats = self._formats()
        if not formats or self.data is None:
            self.notify("Nothing to export on this screen yet.", markup=False)
            return
        from workbench.tui.screens.export_dialog import ExportDialog

        stamp = time.strftime("%Y%m%d-%H%M%S")
        # in a browser (workbench serve) the export is a download: a file name, no server path
        served = getattr(self.app, "served", False)
        folder = None if served else export_dir(self.app.db.url)

        def suggest(fmt: str) -> str:
            # plain table formats keep the screen's name; "adjudicated qrels" -> adjudicated-qrels
            plain = " " not in fmt or fmt in PLOT_FORMATS
            stem = self.export_stem if plain else "-".join(fmt.split())
            name = f"{stem}-{stamp}.{formats[fmt]}"
            return name if folder is None else str(folder / name)

        self.app.push_screen(ExportDialog(suggest, list(formats)), self._export_chosen)

    def _export_chosen(self, choice: tuple[str, str] | None) -> None:
        if choice is None:
            return
        if getattr(self.app, "served", False):
            name, fmt = choice
            if name in (".", "..") or any(ch in name for ch in "/\\\0") or name.startswith("."):
                self.notify("In the browser an export is a download: type a file name, no "
                            "folder.", severity="warning", markup=False)
                return
            self._deliver_export(name, fmt)
            return
        self._write_export(*choice)

    @work(thread=True, group="lead-export")
    def _deliver_export(self, name: str, fmt: str) -> None:
        """In a browser: the export is offered as a download, nothing is written on the
        server's host (textual-serve's delivery, the server's /download route)."""
        import io

        try:
            if fmt in PLOT_FORMATS:
                import tempfile
                from pathlib import Path

                kind = PLOT_FORMATS[fmt]
                with tempfile.TemporaryDirectory() as tmp:
                    figure = Path(tmp) / f"figure.{kind}"
                    self.export_plot(str(figure))
                    data = figure.read_bytes()
                self.app.call_from_thread(self.app.deliver_binary, io.BytesIO(data),
                                          save_filename=name, open_method="download",
                                          mime_type=MIME[kind])
            else:
                text = self.export_text(fmt)
                self.app.call_from_thread(self.app.deliver_text, io.StringIO(text),
                                          save_filename=name, open_method="download")
        except Exception as exc:  # noqa: BLE001
            self.post_message(self.Exported(name, describe(exc)))
            return
        self.post_message(self.Exported(name, None, download=True))

    @work(thread=True, group="lead-export")
    def _write_export(self, path: str, fmt: str) -> None:
        """export_text runs here, in the worker: it may read the database (qrels, history)."""
        from workbench.campaign.catalog.exporting import atomic_output

        try:
            if fmt in PLOT_FORMATS:
                if not path.lower().endswith("." + PLOT_FORMATS[fmt]):
                    raise ValueError(f"a {PLOT_FORMATS[fmt].upper()} figure needs a file name "
                                     f"ending in .{PLOT_FORMATS[fmt]}")
                self.export_plot(path)  # written whole or not at all (plots.figures.save)
            else:
                text = self.export_text(fmt)
                with atomic_output(path) as fh:
                    fh.write(text)
        except Exception as exc:  # noqa: BLE001
            self.post_message(self.Exported(path, describe(exc)))
            return
        self.post_message(self.Exported(path))

    def on_lead_screen_exported(self, message: "LeadScreen.Exported") -> None:
        message.stop()
        if message.error is None and message.download:
            self.notify(f"download started: {message.path}", markup=False)
        elif message.error is None:
            self.notify(f"wrote {message.path}", markup=False)
        else:
            self.notify(f"export failed: {message.error}", severity="error", markup=False)
