"""Planning (lead, F7): how many judgments are enough, and is the pool fair to new runs?

The numbers of `workbench simulate` and `workbench reusability` on the stored campaign,
with the majority consensus of the stored grades as the full qrels: relevant documents
found against judgments made for depth, move-to-front and bandit pooling, and Zobel's
leave-one-out test at the pool depth (runs sorted by how far they drop). `+`/`-` change
the depth. A line of topic set size design (`workbench plan topics --from-source majority`):
sigma of map's per-topic differences from the stored runs, the topics a paired t-test needs
to detect a difference (`[`/`]` change it) and the smallest difference the judged topics
detect.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Static

from workbench.campaign.pooling.simulation import PlanningReport, planning_report
from workbench.campaign.scoring.topic_plan import TopicsSummary, topics_summary
from workbench.tui.screens.lead_screen import Changes, LeadScreen
from workbench.tui.tables import fill_table
from workbench.tui.text import num, safe
from workbench.tui.widgets.found_plot import FoundPlot


class PlanningScreen(LeadScreen):
    BINDINGS = [
        Binding("plus", "deeper", "Depth +"),
        Binding("minus", "shallower", "Depth -"),
        Binding("left_square_bracket", "smaller_diff", "Diff -"),
        Binding("right_square_bracket", "larger_diff", "Diff +"),
        *LeadScreen.BINDINGS,
    ]
    export_formats = {"json": "json"}
    export_stem = "reusability"
    AUTO_FOCUS = "#pl-runs"

    def __init__(self, depth: int | None = None) -> None:  # None: the campaign's pool depth
        super().__init__()
        self.depth = depth
        self.min_diff = 0.05
        self.topics: TopicsSummary | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="pl-head", classes="lead-head")
        yield Static(id="pl-topics", classes="lead-section")
        yield FoundPlot(id="pl-plot")
        yield Static(id="pl-loo-title", classes="lead-section")
        yield DataTable(id="pl-runs", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def load(self, changes: Changes):
        report = planning_report(self.app.db, depth=self.depth)
        self.topics = topics_summary(self.app.db, min_diff=self.min_diff)
        return report

    def _topics_text(self) -> Text:
        t = self.topics
        if t is None:
            return Text("")
        if t.estimate is None:
            return Text(f"Topics to detect {t.measure} +{t.min_diff:g} ([/]): {t.reason}", style="yellow")
        e = t.estimate
        return Text(
            f"Topics (paired t, alpha 0.05, power 0.8; sigma {num(e.sigma)} of {e.measure} from "
            f"{e.systems} systems x {e.topics} topics): {t.needed.topics} topics detect "
            f"+{t.min_diff:g} ([/]); the {e.topics} judged topics detect "
            f"{num(t.detectable.min_diff)}")

    def show(self, report: PlanningReport) -> None:
        r = report.reusability
        self.depth = r.depth
        self.query_one("#pl-head", Static).update(safe(Text.assemble(
            ("Planning", "bold"), f" · {report.n_runs} runs, {report.n_queries} queries judged"
            f" · pool depth {r.depth} (+/-) · e: export",
            ("" if report.n_runs else "\nNo runs yet: import them first.", "yellow"))))
        self.query_one("#pl-topics", Static).update(safe(self._topics_text()))
        self.query_one("#pl-plot", FoundPlot).draw(report.simulations)
        tau = num(r.kendall_tau_b)
        self.query_one("#pl-loo-title", Static).update(safe(Text(
            f"Leave one run out at depth {r.depth} ({r.measure}): tau_b {tau} (full against "
            f"left-out scores), largest drop {r.max_drop} place{'' if r.max_drop == 1 else 's'}")))
        dt = self.query_one("#pl-runs", DataTable)
        if not dt.columns:
            for key, label in (("run", "run"), ("full", "full"), ("rank", "rank"), ("loo", "left out"),
                               ("rank_loo", "rank"), ("drop", "drop"), ("unique", "unique rel")):
                dt.add_column(Text(label, justify="left" if key == "run" else "right"), key=key)
        rows = sorted(r.runs, key=lambda x: (-x.drop, x.run))
        fill_table(dt, [(x.run, [
            Text(x.run), Text(num(x.score_full), justify="right"), Text(str(x.rank_full), justify="right"),
            Text(num(x.score_loo), justify="right"), Text(str(x.rank_loo), justify="right"),
            Text(str(x.drop), justify="right", style="red" if x.drop > 0 else ""),
            Text(str(x.unique_relevant), justify="right"),
        ]) for x in rows])

    def action_deeper(self) -> None:
        if self.depth is None:  # still loading
            return
        self.depth += 5 if self.depth >= 5 else 1
        self.reload()

    def action_shallower(self) -> None:
        if self.depth is None:
            return
        self.depth = max(1, self.depth - (5 if self.depth > 5 else 1))
        self.reload()

    def action_smaller_diff(self) -> None:
        self.min_diff = max(0.01, round(self.min_diff - 0.01, 4))
        self.reload()

    def action_larger_diff(self) -> None:
        self.min_diff = round(self.min_diff + 0.01, 4)
        self.reload()

    def export_text(self, fmt: str) -> str:
        import json

        return json.dumps(self.data.reusability.to_json(), indent=2) + "\n"
