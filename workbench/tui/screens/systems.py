"""Systems (lead, F5): does the system ranking survive a change of assessor, and which
differences are significant? The numbers of `workbench compare --by-assessor`.

Rankings under the consensus and under each assessor's own grades side by side; Kendall
τ-b / τ-a, τ_AP and RBO between every two rankings; the matrix of Holm-corrected p-values
of the paired test (t, randomization or bootstrap) between systems under the consensus.
Type a measure (m) and pick a test (t).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Input, Select, Static

from workbench.campaign.comparison.by_assessor import compare_by_assessor
from workbench.formats.numbers import p_value
from workbench.tui.screens.lead_screen import Changes, LeadScreen
from workbench.tui.tables import fill_table, table_place
from workbench.tui.text import num, safe

if TYPE_CHECKING:  # annotations only
    from workbench.campaign.comparison.systems import ComparisonReport

TESTS = [("paired t-test", "t"), ("randomization", "randomization"), ("bootstrap", "bootstrap")]
ALPHA = 0.05


def p_text(p: float) -> str:
    return p_value(p, missing="–")


def coverage_text(report: ComparisonReport) -> Text:
    """Each source's judged queries and mean Judged@10, and which queries were compared:
    a source with fewer queries judged would differ for lack of judgments."""
    if not report.coverage:
        return Text("")
    parts = [f"{source}: {c['queries']} queries, Judged@10 {num(c['judged_at_10'])}"
             for source, c in report.coverage.items()]
    text = Text("\nCoverage · " + " · ".join(parts), style="dim")
    if report.common_queries is not None:
        text.append(f"\nCompared on the {report.common_queries} queries every source judged.",
                    style="yellow" if any(c["queries"] != report.common_queries
                                          for c in report.coverage.values()) else "dim")
    return text


class SystemsScreen(LeadScreen):
    BINDINGS = [
        Binding("m", "edit_measure", "Measure"),
        Binding("t", "choose_test", "Test"),
        Binding("tab", "app.focus_next", "Next table", show=False),
        *LeadScreen.BINDINGS,
    ]
    export_formats = {"json": "json"}
    export_stem = "compare"
    plots = True
    AUTO_FOCUS = "#sy-rankings"

    def __init__(self, measure: str | None = None) -> None:
        super().__init__()
        self.measure = measure
        self.test = "t"

    def compose(self) -> ComposeResult:
        yield Static(id="sy-head", classes="lead-head")
        with Horizontal(id="sy-controls"):
            yield Input(placeholder="measure, e.g. nDCG@10", id="sy-measure")
            yield Select(TESTS, value="t", allow_blank=False, id="sy-test")
            yield Static(id="sy-error", classes="lead-hint")
        yield Static(Text("Rankings (best first) under each qrels source"), classes="lead-section")
        yield DataTable(id="sy-rankings", cursor_type="row", zebra_stripes=True)
        yield Static(Text("Rank correlation between the rankings"), classes="lead-section")
        yield DataTable(id="sy-corr", cursor_type="row", zebra_stripes=True)
        yield Static(id="sy-sig-title", classes="lead-section")
        yield DataTable(id="sy-sig", cursor_type="cell")
        yield Footer()

    def load(self, changes: Changes):
        return compare_by_assessor(self.app.db, self.measure, test=self.test)

    def show(self, report: ComparisonReport) -> None:
        self.query_one("#sy-error", Static).update(Text(""))
        box = self.query_one("#sy-measure", Input)
        if not box.has_focus or not box.value:
            box.value = report.measure
        self.query_one("#sy-head", Static).update(safe(Text.assemble(
            ("Systems", "bold"), " ranked by ", (report.measure, "bold"),
            f" under {len(report.sources)} qrels sources · m: measure · t: test · e: export",
            ("" if report.means.get(report.sources[0]) else "\nNo system is scored yet: "
             "import runs and judge some of their documents first.", "yellow"),
            coverage_text(report))))
        sources = list(report.sources)
        rk = self.query_one("#sy-rankings", DataTable)
        # One column per source, each cell "system  mean": a name column and a mean column
        # per source cut the last source off at 80 columns with four sources.
        labels = ["#", *sources]
        place = table_place(rk)
        if [str(c.label) for c in rk.columns.values()] != labels:
            rk.clear(columns=True)
            for i, label in enumerate(labels):
                rk.add_column(Text(label, justify="right" if label == "#" else "left"), key=f"r{i}")
        depth = max((len(r) for r in report.rankings.values()), default=0)
        width = max((len(system) for r in report.rankings.values() for system in r), default=0)
        rows = []
        for i in range(depth):
            cells = [Text(str(i + 1), justify="right")]
            for s in sources:
                ranking = report.rankings.get(s, [])
                system = ranking[i] if i < len(ranking) else None
                cells.append(Text(f"{system:<{width}}  {num(report.means[s].get(system))}" if system else ""))
            rows.append((str(i), cells))
        fill_table(rk, rows, place)
        corr = self.query_one("#sy-corr", DataTable)
        if not corr.columns:
            for col in ("a (reference)", "b", "systems", "τ-b", "τ-a", "τ_AP", "RBO"):
                corr.add_column(Text(col, justify="left" if col in ("a (reference)", "b") else "right"),
                                key=col)
        fill_table(corr, [
            (f"{c.a}\x1f{c.b}", [Text(c.a), Text(c.b), Text(str(c.n_systems), justify="right"),
                                 *(Text(num(v), justify="right") for v in (
                                     c.kendall_tau_b, c.kendall_tau_a, c.tau_ap, c.rbo))])
            for c in report.correlations
        ])
        self._significance(report)

    def _significance(self, report: ComparisonReport) -> None:
        test_name = dict((v, k) for k, v in TESTS).get(report.test, report.test)
        self.query_one("#sy-sig-title", Static).update(safe(Text(
            f"Significance under {report.tests_source}: {test_name}, Holm-corrected p-values "
            f"(row − column mean difference in brackets; bold: p < {ALPHA})")))
        ranking = report.rankings.get(report.tests_source) or report.rankings.get(report.sources[0], [])
        systems = list(ranking)
        pairs = {}
        for t in report.tests:
            pairs[(t.a, t.b)] = (t.p_holm, t.mean_diff)
            pairs[(t.b, t.a)] = (t.p_holm, -t.mean_diff if t.mean_diff == t.mean_diff else t.mean_diff)
        dt = self.query_one("#sy-sig", DataTable)
        labels = ["system", *systems]
        place = table_place(dt)
        if [str(c.label) for c in dt.columns.values()] != labels:
            dt.clear(columns=True)
            for i, label in enumerate(labels):
                dt.add_column(Text(label, justify="right" if i else "left"), key=f"s{i}")
        rows = []
        for a in systems:
            cells = [Text(a, style="bold")]
            for b in systems:
                if a == b:
                    cells.append(Text("—", justify="right", style="dim"))
                    continue
                p, diff = pairs.get((a, b), (math.nan, math.nan))
                significant = p == p and p < ALPHA
                # the p-value over its mean difference: one line each cut the last system
                # off at 80 columns
                cells.append(Text(f"{p_text(p)}\n({diff:+.3f})" if diff == diff else p_text(p),
                                  justify="right", style="bold" if significant else "dim"))
            rows.append((a, cells))
        fill_table(dt, rows, place, height=2)

    def on_lead_screen_failed(self, message: LeadScreen.Failed) -> None:
        message.prevent_default()
        message.stop()
        self._loading = False
        self.query_one("#sy-error", Static).update(safe(Text(message.error, style="bold red")))

    def action_edit_measure(self) -> None:
        self.query_one("#sy-measure", Input).focus()

    def action_choose_test(self) -> None:
        select = self.query_one("#sy-test", Select)
        select.focus()
        select.expanded = True

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.measure = event.value.strip() or None
        self.query_one("#sy-rankings", DataTable).focus()
        self.reload()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if str(event.value) != self.test:
            self.test = str(event.value)
            self.query_one("#sy-rankings", DataTable).focus()
            self.reload()

    def export_text(self, fmt: str) -> str:
        import json

        return json.dumps(self.data.to_json(), indent=2) + "\n"

    def export_plot(self, path: str) -> None:
        """`compare --plot`'s figure: the systems ranked under the first source."""
        from workbench.campaign.plotting import plot_ranking

        plot_ranking(path, self.data)
