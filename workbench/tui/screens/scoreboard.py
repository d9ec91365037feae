"""Scoreboard (lead, F2): every stored system × the chosen measures under one qrels source.

The numbers are `workbench score`'s (campaign.scoring.scores through the metrics registry): same
measure names, same labels, same means. A `Judged@k` column (k = the deepest cutoff among
the measures) says how much of each system's top k is judged under the source, so nobody
trusts a score built on holes. Sort by any column (`s` next column, `r` reverse, or click a
header); Enter drills down to the system's per-query scores; Space marks systems and `p`
draws their interpolated precision–recall curves.

`v` switches to the nugget view (issue 33): every run with answers × the nugget scores
(`all` ... `weighted_strict`, or those typed with `m`) under a label source chosen with `o`
(the people's majority, each assessor, hybrid with each machine), the numbers of
`workbench score --nuggets` (campaign/answers/scores.py); Enter: the run's per-topic
scores (nugget_run.py); `v` again goes back.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Input, Select, Static

from workbench.campaign.scoring.judged_depth import judged_column
from workbench.campaign.scoring.sources import MAJORITY, QrelsSource, qrels_sources
from workbench.campaign.live import DataVersion
from workbench.campaign.scoring.export import ranked_systems, render_score_table, unjudged
from workbench.campaign.scoring.scores import ScoreTable, ScoreTracker
from workbench.campaign.settings import campaign_measures
from workbench.formats.numbers import interval
from workbench.tui.screens.lead_screen import Changes, LeadScreen
from workbench.tui.tables import fill_table, table_place
from workbench.tui.text import num, safe

SORT_MARK = {False: " ▼", True: " ▲"}


@dataclass(frozen=True)
class Board:
    table: ScoreTable
    judged: str  # label of the Judged@k column
    k: int
    sources: list[QrelsSource]
    measures: tuple[str, ...]  # as typed
    tracker: ScoreTracker | None = None  # the one that computed `table` (drill-down reuses it)
    source: QrelsSource = MAJORITY
    key: tuple[QrelsSource, tuple[str, ...]] = (MAJORITY, ())  # the tracker's key in the screen's cache
    read_runs: bool = False  # the load re-read the runs because they had changed


@dataclass(frozen=True)
class NuggetBoard:
    """The nugget view: `score --nuggets`'s table under one label source."""

    table: object  # campaign.answers.scores.NuggetTable
    sources: list[QrelsSource]
    measures: tuple[str, ...]  # as typed
    source: QrelsSource = MAJORITY


class ScoreboardScreen(LeadScreen):
    BINDINGS = [
        Binding("enter", "drill", "Per query", show=True),
        Binding("s", "sort", "Sort"),
        Binding("r", "reverse", "Reverse", show=False),
        Binding("space", "mark", "Mark", show=False),
        Binding("p", "curve", "P–R curve"),
        Binding("m", "edit_measures", "Measures"),
        Binding("o", "choose_source", "Source"),
        Binding("i", "toggle_ci", "95% CI"),
        Binding("v", "toggle_view", "Nugget scores / document scores", show=False),
        *LeadScreen.BINDINGS,
    ]
    AUTO_FOCUS = "#sb-table"

    def __init__(self, source: QrelsSource = MAJORITY, measures: list[str] | None = None) -> None:
        super().__init__()
        self.source = source
        self.measures: tuple[str, ...] | None = tuple(measures) if measures else None
        self.sort_column: int | None = None  # index into measure columns (None: first measure)
        self.sort_reverse = False
        self.marked: set[str] = set()
        self.show_ci = False  # `i`: the sort measure's 95% t interval as a column
        self._trackers: dict[tuple[QrelsSource, tuple[str, ...]], ScoreTracker] = {}
        self._runs_stale = False
        self.view = "documents"  # `v`: "nuggets", the nugget scores of the runs' answers
        self.nugget_source: QrelsSource = MAJORITY
        self.nugget_measures: tuple[str, ...] | None = None

    @property
    def export_formats(self) -> dict[str, str]:
        if self.view == "nuggets":
            return {"csv": "csv", "json": "json", "markdown": "md", "latex": "tex"}
        return {"csv": "csv", "json": "json", "markdown": "md", "latex": "tex",
                "qrels of this source": "qrels"}

    @property
    def export_stem(self) -> str:
        return "nugget-scores" if self.view == "nuggets" else "scores"

    @property
    def plots(self) -> bool:  # `score --plot`'s figure, of the document scores
        return self.view != "nuggets"

    def compose(self) -> ComposeResult:
        yield Static(id="sb-head", classes="lead-head")
        with Horizontal(id="sb-controls"):
            yield Select([(safe(Text(self.source.label)), self.source)], value=self.source, allow_blank=False,
                         id="sb-source")
            yield Input(placeholder="measures, e.g. nDCG@10 AP bpref P@5 RR", id="sb-measures")
        yield Static(id="sb-error", classes="lead-error")
        yield DataTable(id="sb-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="sb-hint", classes="lead-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#sb-head", Static).update(Text("Scores: loading…"))
        self.query_one("#sb-error", Static).display = False
        self.query_one("#sb-hint", Static).update(safe(Text(
            "Enter: per-query scores · s/r: sort · Space: mark · p: P–R curve · "
            "m: measures · o: qrels source · i: 95% CI · v: nugget scores · e: export", style="dim")))

    # ---- loading ---------------------------------------------------------------------

    def load(self, changes: Changes) -> Board | NuggetBoard:
        db = self.app.db
        if self.view == "nuggets":
            from workbench.campaign.answers.scores import nugget_sources, nugget_table

            typed = self.nugget_measures
            table = nugget_table(db, self.nugget_source, typed)  # unknown names: an inline message
            return NuggetBoard(table, nugget_sources(db), typed or table.measures, self.nugget_source)
        measures = self.measures or tuple(campaign_measures(db))
        judged, k = judged_column(measures)  # also rejects unknown names early
        typed = self.measures
        key = (self.source, typed or ())
        tracker = self._trackers.get(key)
        if tracker is None:  # kept in the cache by `keep`, on the main thread
            tracker = ScoreTracker(db, [*measures, judged], runs=self.app.runs_cache,
                                   source=self.source)
        self._mark_changed_queries(changes)
        read_runs = self._runs_stale
        if not tracker.loaded or read_runs:
            table = tracker.load()
        else:
            table = tracker.refresh()  # only the queries judged since the last draw
        # the label of our Judged@k column (not the last one: the registry orders columns)
        label = next((m for m in table.labels if m == judged), judged)
        return Board(table, label, k, qrels_sources(db), measures, tracker, self.source,
                     key, read_runs)

    def _mark_changed_queries(self, changes: Changes) -> None:
        """(Worker thread.) Mark the queries judged since the last load dirty in every
        cached tracker, so a refresh recomputes only those (not the whole campaign)."""
        for query in changes.queries():
            for tracker in list(self._trackers.values()):
                tracker.mark_dirty(query)

    def keep(self, board: Board | NuggetBoard) -> None:
        if isinstance(board, NuggetBoard):
            return
        # A new dict, not an update: a load in a worker may be reading the old one.
        self._trackers = {**self._trackers, board.key: board.tracker}
        if board.read_runs:
            self._runs_stale = False

    def on_data_changed(self, old: DataVersion | None, new: DataVersion) -> None:
        if new.runs_changed(old):
            self._runs_stale = True
            for tracker in self._trackers.values():
                tracker.loaded = False  # re-read runs on next use
        self.reload()

    # ---- drawing ---------------------------------------------------------------------

    def _columns(self, board: Board | NuggetBoard) -> list[str]:
        if isinstance(board, NuggetBoard):
            return list(board.table.measures)
        return list(board.table.labels)

    def _sort_index(self, board: Board) -> int:
        """The sort column: the one chosen, else the first real measure (not Judged@k)."""
        cols = self._columns(board)
        if self.sort_column is not None and self.sort_column < len(cols):
            return self.sort_column
        if isinstance(board, NuggetBoard):
            return 0
        return next((i for i, c in enumerate(cols) if c != board.judged), 0)

    def ordered_systems(self, board: Board | NuggetBoard) -> list[str]:
        cols = self._columns(board)
        if isinstance(board, NuggetBoard):
            from workbench.campaign.answers.scores import ranked_runs

            return ranked_runs(board.table, cols[self._sort_index(board)] if cols else None,
                               reverse=self.sort_reverse)
        return ranked_systems(board.table, cols[self._sort_index(board)], reverse=self.sort_reverse)

    def _show_controls(self, board: Board | NuggetBoard, source: QrelsSource) -> None:
        """The source list of the board's view (the current one selected) and the measures."""
        self.query_one("#sb-error", Static).display = False
        select = self.query_one("#sb-source", Select)
        options = board.sources if source in board.sources else [source, *board.sources]
        shown = [self.view, *(o.label for o in options)]
        if shown != getattr(self, "_options", None):
            self._options = shown
            with select.prevent(Select.Changed):
                select.set_options([(safe(Text(o.label)), o) for o in options])  # names are data, not markup
                select.value = source
        measures_box = self.query_one("#sb-measures", Input)
        if not measures_box.has_focus:
            measures_box.value = " ".join(board.measures)

    def _show_nuggets(self, board: NuggetBoard) -> None:
        table = board.table
        self._show_controls(board, board.source)
        head = Text.assemble(
            ("Nugget scores ", "bold"), "under ", (table.source, "bold"),
            f" · {len(table.systems)} runs with answers · {len(table.queries)} topics with nuggets · "
            "mean over every topic with nuggets (an unanswered topic scores 0) · v: document scores")
        if not table.systems:
            head.append("\nNo answers yet: import them with `workbench import answers FILE`.", style="yellow")
        self.query_one("#sb-head", Static).update(safe(head))
        dt = self.query_one("#sb-table", DataTable)
        cols = self._columns(board)
        sort_col = self._sort_index(board)
        labels = ["", "run", "topics"] + [
            c + (SORT_MARK[self.sort_reverse] if i == sort_col else "") for i, c in enumerate(cols)]
        place = table_place(dt)
        row = {s: i for i, s in enumerate(table.systems)}
        means = {c: table.means[c].tolist() for c in cols}
        best = {c: max(means[c], default=None) for c in cols}
        rows = []
        for system in self.ordered_systems(board):
            i = row[system]
            cells = [Text("●" if system in self.marked else " ", style="bold"), Text(system),
                     Text(str(int(table.n_queries[i])), justify="right")]
            for c in cols:
                text = num(means[c][i])
                bold = best[c] is not None and text == num(best[c])
                cells.append(Text(text, style="bold" if bold else "", justify="right"))
            rows.append((system, cells))
        self._fill(dt, labels, rows, place)

    def _fill(self, dt: DataTable, labels: list[str], rows, place) -> None:
        # Fixed widths from the labels and cells: DataTable's auto widths settle on a later
        # refresh, and a live reload in between showed label-wide, cut-off numbers.
        widths = [max([Text(label).cell_len] + [row[i].cell_len for _, row in rows])
                  for i, label in enumerate(labels)]
        if [(str(c.label), c.width) for c in dt.columns.values()] != list(zip(labels, widths)):
            dt.clear(columns=True)
            for i, (label, width) in enumerate(zip(labels, widths)):
                dt.add_column(Text(label, justify="right" if i > 2 else "left"), key=f"c{i}",
                              width=width)
        fill_table(dt, rows, place)
        if not dt.has_focus and not self.query_one("#sb-measures", Input).has_focus:
            dt.focus()

    def show(self, board: Board | NuggetBoard) -> None:
        if isinstance(board, NuggetBoard):
            self._show_nuggets(board)
            return
        table = board.table
        self._show_controls(board, self.source)
        judgments = len(table.queries)
        head = Text.assemble(
            ("Scores ", "bold"), "against ", (table.source, "bold"),
            f" · {len(table.systems)} systems · {judgments} queries with judgments · ",
            (f"{board.judged}", "bold"), f": share of the top {board.k} judged (low = holes)",
        )
        if not table.systems:
            head.append("\nNo runs yet: import them with `workbench import run FILE`, pool with "
                        "`workbench pool --depth K`, and judge (F1).", style="yellow")
        elif not judgments:
            head.append(f"\nNo judgments under {table.source} yet: every score would be 0. "
                        "Judge (F1) or pick another source (o).", style="yellow")
        self.query_one("#sb-head", Static).update(safe(head))
        dt = self.query_one("#sb-table", DataTable)
        cols = self._columns(board)
        sort_col = self._sort_index(board)
        labels = ["", "system", "queries"] + [
            c + (SORT_MARK[self.sort_reverse] if i == sort_col else "") for i, c in enumerate(cols)
        ] + [f"unjudged@{board.k}"]
        ci_col = cols[sort_col] if cols else None
        intervals = None
        if self.show_ci and ci_col is not None:
            from workbench.campaign.scoring.intervals import score_intervals

            intervals = score_intervals(table, "t")
            labels.append(f"95% CI {ci_col}")
        place = table_place(dt)
        measure = dict(zip(table.labels, table.measures))
        means = {c: table.means[measure[c]].tolist() for c in cols}
        counts = {c for c in cols if measure[c].is_count}
        scored = table.n_queries.tolist()
        best = {c: max((v for v, n in zip(means[c], scored) if n), default=None) for c in cols}
        rows = []
        for system in self.ordered_systems(board):
            i = table.row(system)
            n = scored[i]
            cells = [Text("●" if system in self.marked else " ", style="bold"), Text(system), Text(str(n), justify="right")]
            for c in cols:
                value = means[c][i] if n else None
                text = num(value, c in counts)
                style = ""
                if c == board.judged and value is not None and value < 0.8:
                    style = "yellow" if value >= 0.5 else "red"
                elif value is not None and best[c] is not None and text == num(best[c], c in counts) and c not in counts:
                    style = "bold"
                cells.append(Text(text, style=style, justify="right"))
            holes = unjudged(table, system, board.judged, board.k)
            cells.append(Text(str(holes), justify="right", style="yellow" if holes else "dim"))
            if intervals is not None:
                ci = intervals.of(measure[ci_col], i)
                cells.append(Text("–" if ci is None else interval(*ci), justify="right"))
            rows.append((system, cells))
        self._fill(dt, labels, rows, place)

    def on_lead_screen_failed(self, message: LeadScreen.Failed) -> None:
        message.prevent_default()  # shown inline instead of the base class's notification
        message.stop()
        self._loading = False
        error = self.query_one("#sb-error", Static)
        error.update(safe(Text(message.error, style="bold red")))
        error.display = True

    # ---- actions ---------------------------------------------------------------------

    def _cursor_system(self) -> str | None:
        from workbench.tui.tables import cursor_key

        return cursor_key(self.query_one("#sb-table", DataTable))

    def _nugget_view_note(self, what: str) -> bool:
        """True (and a notice) when the nugget view is on: `what` is the document view's."""
        if self.view != "nuggets":
            return False
        self.notify(f"{what}: in the document view (v).", markup=False)
        return True

    def action_drill(self) -> None:
        system = self._cursor_system()
        if system is None or self.data is None:
            return
        if isinstance(self.data, NuggetBoard):
            from workbench.tui.screens.nugget_run import NuggetRunScreen

            self.app.push_screen(NuggetRunScreen(system, self.data.source, self.nugget_measures))
            return
        from workbench.tui.screens.system_detail import SystemDetailScreen

        # the board on screen, not self.source: a newer source may still be loading
        self.app.push_screen(SystemDetailScreen(system, self.data.source, self.data.tracker))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_drill()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        index = event.column_index - 3
        if index < 0:
            return
        if self.sort_column == index:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = index, False
        self._redraw()

    def action_sort(self) -> None:
        if self.data is None:
            return
        n = len(self._columns(self.data))
        current = self._sort_index(self.data)
        self.sort_column, self.sort_reverse = (current + 1) % n, False
        self._redraw()

    def action_toggle_ci(self) -> None:
        if self._nugget_view_note("95% intervals"):
            return
        self.show_ci = not self.show_ci
        self._redraw()

    def action_toggle_view(self) -> None:
        """Document scores <-> nugget scores (each view keeps its own source and measures)."""
        self.view = "documents" if self.view == "nuggets" else "nuggets"
        self.sort_column, self.sort_reverse = None, False
        self.data = None
        self.query_one("#sb-head", Static).update(Text("Scores: loading…"))
        self.reload()

    def action_reverse(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self._redraw()

    def action_mark(self) -> None:
        system = self._cursor_system()
        if system is None:
            return
        self.marked ^= {system}
        self._redraw()

    def _redraw(self) -> None:
        if self.data is not None:
            self.show(self.data)

    def action_curve(self) -> None:
        if self.data is None or self._nugget_view_note("Precision–recall curves"):
            return
        from workbench.tui.screens.pr_curve import PRCurveScreen

        systems = [s for s in self.ordered_systems(self.data) if s in self.marked] or list(
            self.ordered_systems(self.data))
        self.app.push_screen(PRCurveScreen(systems, self.data.source))

    def action_edit_measures(self) -> None:
        self.query_one("#sb-measures", Input).focus()

    def action_choose_source(self) -> None:
        select = self.query_one("#sb-source", Select)
        select.focus()
        select.expanded = True

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        names = tuple(event.value.split())
        if self.view == "nuggets":
            self.nugget_measures = names or None
        else:
            self.measures = names or None
        self.sort_column = None
        self.query_one("#sb-table", DataTable).focus()
        self.reload()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        current = self.nugget_source if self.view == "nuggets" else self.source
        if event.value is Select.BLANK or event.value == current:
            return
        if self.view == "nuggets":
            self.nugget_source = event.value
        else:
            self.source = event.value
        self.query_one("#sb-table", DataTable).focus()
        self.reload()

    # ---- export ----------------------------------------------------------------------

    def export_text(self, fmt: str) -> str:
        if isinstance(self.data, NuggetBoard):
            from workbench.campaign.answers.scores import render_nugget_table

            return render_nugget_table(self.data.table, fmt, self.ordered_systems(self.data))
        if fmt.startswith("qrels"):
            import io

            from workbench.campaign.catalog.exporting import export_qrels

            out = io.StringIO()
            export_qrels(self.app.db, out, self.source)
            return out.getvalue()
        # the file `workbench export scores` writes (same code), rows in the order shown
        return render_score_table(self.data.table, fmt, self.ordered_systems(self.data),
                                  judged=self.data.judged, k=self.data.k)

    def export_plot(self, path: str) -> None:
        """`score --plot`'s figure: each system's mean of the first measure in the order
        shown, with its 95 % bootstrap interval."""
        from workbench.campaign.plotting import plot_score

        plot_score(path, self.data.table, self.ordered_systems(self.data))
