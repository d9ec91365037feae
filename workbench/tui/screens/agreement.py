"""Agreement (lead, F3): how far the assessors agree — the numbers of `workbench agree`.

Top: the assessor × assessor matrix (Cohen's κ / linear-weighted κ in each cell) and the
all-assessor coefficients (Fleiss' κ, Krippendorff's α nominal/ordinal/interval). Middle:
every pair's coefficients; the highlighted pair's confusion matrix is drawn on the right.
Bottom: agreement per query. `b` switches graded / binary (at the campaign threshold).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, Footer, Static

from workbench.campaign.agreement.per_query import Confusion, confusion, judges_agreement, reading
from workbench.tui.screens.lead_screen import Changes, LeadScreen
from workbench.tui.tables import cursor_key, fill_table
from workbench.tui.text import describe, num, safe

if TYPE_CHECKING:  # annotations only
    from workbench.campaign.agreement.report import AgreementReport


@dataclass
class ConfusionLoaded(Message):
    confusion: Confusion


def interval_text(pair) -> str:
    if pair is None or any(v is None or v != v for v in pair):
        return "–"
    return f"[{pair[0]:.3f}, {pair[1]:.3f}]"


class AgreementScreen(LeadScreen):
    BINDINGS = [
        Binding("b", "toggle_binary", "Graded/binary"),
        Binding("tab", "app.focus_next", "Next table", show=False),
        *LeadScreen.BINDINGS,
    ]
    export_formats = {"json": "json", "csv": "csv"}
    export_stem = "agreement"
    AUTO_FOCUS = "#ag-pairs"

    def __init__(self) -> None:
        super().__init__()
        self.binary = False
        self._pair: tuple[str, str] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="ag-head", classes="lead-head")
        with Horizontal(id="ag-top"):
            yield DataTable(id="ag-matrix", cursor_type="none")
            yield Static(id="ag-overall")
        yield Static(Text("Pairs (↑↓ picks the pair whose confusion matrix is shown)"),
                     classes="lead-section")
        yield DataTable(id="ag-pairs", cursor_type="row", zebra_stripes=True)
        yield Static(Text("Per query (Fleiss' κ and α over the items of each query; Enter: its "
                          "disagreements) · confusion matrix of the pair"),
                     classes="lead-section")
        with Horizontal(id="ag-bottom"):
            yield DataTable(id="ag-queries", cursor_type="row", zebra_stripes=True)
            yield Static(id="ag-confusion-box")
        yield Footer()

    def load(self, changes: Changes):
        return judges_agreement(self.app.db, binary=self.binary)

    # Below this width the kappa matrix (66 columns for three assessors) and the all-assessors
    # table (76 columns) cannot stand side by side without cutting the matrix (at 120 it
    # scrolled sideways): they are stacked.
    NARROW = 150

    def on_resize(self, event) -> None:
        self._fit(event.size.width)

    def on_mount(self) -> None:
        self._fit(self.size.width)

    def _fit(self, width: int) -> None:
        narrow = width < self.NARROW
        self.query_one("#ag-top").set_class(narrow, "-stacked")
        self.query_one("#ag-bottom").set_class(narrow, "-stacked")

    def show(self, report: AgreementReport | None) -> None:
        head = self.query_one("#ag-head", Static)
        if report is None:
            head.update(Text("Agreement needs at least two assessors with grades."))
            return
        kind = f"binary (relevant: grade ≥ {report.threshold})" if report.binary else "graded"
        head.update(safe(Text.assemble(
            ("Agreement", "bold"), f" between {len(report.assessors)} assessors on "
            f"{report.n_items} items graded by two or more · labels: {kind} · b: switch · "
            "reading: ≥ 2/3 acceptable with its Landis & Koch band, below a methodology problem (docs/agreement.md)")))
        self._matrix(report)
        overall = Table(box=None, show_header=True, pad_edge=False)
        overall.add_column("all assessors")
        overall.add_column("value", justify="right")
        overall.add_column("95% CI", justify="right")
        overall.add_column("reading")
        for name, key, value in (
            ("Fleiss' κ", "fleiss_kappa", report.fleiss_kappa),
            ("Krippendorff's α nominal", "krippendorff_alpha_nominal", report.alpha_nominal),
            ("Krippendorff's α ordinal", "krippendorff_alpha_ordinal", report.alpha_ordinal),
            ("Krippendorff's α interval", "krippendorff_alpha_interval", report.alpha_interval),
        ):
            overall.add_row(safe(Text(name)), safe(Text(num(value))), safe(Text(interval_text(report.ci.get(key)))),
                            safe(Text(reading(value))))
        for r in report.self_consistency:
            overall.add_row(safe(Text(f"{r.assessor} vs own repeats (n={r.n})")), safe(Text(num(r.cohen_kappa))),
                            Text(""), safe(Text(reading(r.cohen_kappa))))
        for warning in report.warnings():
            overall.add_row(safe(Text(f"⚠ {warning}", style="yellow")), Text(""), Text(""), Text(""))
        self.query_one("#ag-overall", Static).update(safe(overall))
        pairs = self.query_one("#ag-pairs", DataTable)
        if not pairs.columns:
            for col in ("a", "b", "n", "P(A)", "κ Cohen", "κ pooled", "κw linear", "κw quadr.", "reading"):
                pairs.add_column(Text(col, justify="left" if col in ("a", "b", "reading") else "right"),
                                 key=col)
        fill_table(pairs, [
            (f"{p.a}\x1f{p.b}", [
                Text(p.a), Text(p.b), Text(str(p.stats.n), justify="right"),
                *(Text(num(v), justify="right") for v in (
                    p.stats.observed, p.stats.cohen_kappa, p.stats.pooled_kappa,
                    p.stats.weighted_kappa_linear, p.stats.weighted_kappa_quadratic)),
                Text(reading(p.stats.cohen_kappa)),
            ])
            for p in report.pairs
        ])
        queries = self.query_one("#ag-queries", DataTable)
        if not queries.columns:
            for col in ("query", "items", "P(A)", "Fleiss κ", "α nominal"):
                queries.add_column(Text(col, justify="left" if col == "query" else "right"), key=col)
        fill_table(queries, [
            (str(q.query), [Text(str(q.query)), Text(str(q.n_items), justify="right"),
                            *(Text(num(v), justify="right") for v in (q.observed, q.fleiss_kappa, q.alpha_nominal))])
            for q in report.per_query
        ])
        if not pairs.has_focus and not queries.has_focus:
            pairs.focus()
        self._load_confusion()

    def _matrix(self, report: AgreementReport) -> None:
        dt = self.query_one("#ag-matrix", DataTable)
        names = list(report.assessors)
        wanted = ["κ Cohen / κw linear", *names]
        if [str(c.label) for c in dt.columns.values()] != wanted:
            dt.clear(columns=True)
            for i, label in enumerate(wanted):
                dt.add_column(Text(label, justify="right" if i else "left"), key=f"m{i}")
        by_pair = {}
        for p in report.pairs:
            by_pair[(p.a, p.b)] = by_pair[(p.b, p.a)] = p.stats
        rows = []
        for a in names:
            cells = [Text(a, style="bold")]
            for b in names:
                stats = by_pair.get((a, b))
                cells.append(Text("—" if stats is None else
                                  f"{num(stats.cohen_kappa, places=3)} / {num(stats.weighted_kappa_linear, places=3)}",
                                  justify="right"))
            rows.append((a, cells))
        fill_table(dt, rows)

    # ---- confusion matrix of the highlighted pair -----------------------------------

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "ag-pairs":
            event.stop()
            self._load_confusion()

    def _load_confusion(self) -> None:
        key = cursor_key(self.query_one("#ag-pairs", DataTable))
        if key is None:
            return
        a, b = key.split("\x1f")
        self._pair = (a, b)
        self._confusion(a, b)

    @work(thread=True, group="ag-confusion", exclusive=True)
    def _confusion(self, a: str, b: str) -> None:
        try:
            self.post_message(ConfusionLoaded(confusion(self.app.db, a, b)))
        except Exception as exc:  # noqa: BLE001
            self.post_message(self.Failed("compute the confusion matrix", describe(exc)))

    def on_confusion_loaded(self, message: ConfusionLoaded) -> None:
        c = message.confusion
        if self._pair != (c.a, c.b):
            return
        table = Table(box=None, pad_edge=False)
        table.add_column(Text(f"{c.a} \\ {c.b}"))
        for g in c.categories:
            table.add_column(Text(str(g)), justify="right")
        table.add_column(Text("total"), justify="right")
        for g, row in zip(c.categories, c.counts):
            table.add_row(safe(Text(str(g))), *(Text(str(v), style="bold" if i == j else "")
                                          for j, v in enumerate(row) for i in [c.categories.index(g)]),
                          safe(Text(str(sum(row)))))
        table.add_row(Text("total"), *(Text(str(sum(col))) for col in zip(*c.counts)), safe(Text(str(c.n))))
        title = Text(f"{c.a} (rows) × {c.b} (columns), {c.n} items", style="bold")
        self.query_one("#ag-confusion-box", Static).update(safe(Group(title, table)))

    async def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a query: its disagreements (F4, filtered to that query)."""
        if event.data_table.id != "ag-queries":
            return
        event.stop()
        await self.app.switch_mode("disagreements")
        screen = self.app.screen
        if hasattr(screen, "filter_query"):
            screen.filter_query(str(event.row_key.value))

    def action_toggle_binary(self) -> None:
        self.binary = not self.binary
        self.reload()

    def export_text(self, fmt: str) -> str:
        import json

        report = self.data
        if report is None:
            raise ValueError("no agreement to export")
        if fmt == "json":
            return json.dumps(report.to_json(), indent=2) + "\n"
        from workbench.tui.exports import csv_text

        return csv_text(
            ["a", "b", "n", "observed", "cohen_kappa", "pooled_kappa", "weighted_kappa_linear",
             "weighted_kappa_quadratic"],
            ([p.a, p.b, p.stats.n, p.stats.observed, p.stats.cohen_kappa, p.stats.pooled_kappa,
              p.stats.weighted_kappa_linear, p.stats.weighted_kappa_quadratic] for p in report.pairs),
        )
