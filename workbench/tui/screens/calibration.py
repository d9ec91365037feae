"""Calibration (lead, F9): a machine assessor against people, as `workbench calibrate`
prints it (the same lines, from `CalibrationReport.lines`): kappas with intervals, the
confusion matrix, leniency, the weakest queries, and the system rankings under human,
machine and hybrid qrels. `n` steps to the next machine assessor; `e` exports the JSON of
`calibrate --format json`. NOT blind: a lead screen (machine labels are never shown to
the people who judge)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static

from workbench.tui.screens.lead_screen import Changes, LeadScreen
from workbench.tui.text import safe


@dataclass(frozen=True)
class Calibrated:
    machines: list[str]
    machine: str | None
    report: object | None  # campaign.agreement.calibration.CalibrationReport


class CalibrationScreen(LeadScreen):
    BINDINGS = [
        Binding("n", "next_machine", "Next machine"),
        *LeadScreen.BINDINGS,
    ]
    export_formats = {"json": "json"}
    export_stem = "calibration"
    plots = True

    def __init__(self, machine: str | None = None) -> None:
        super().__init__()
        self.machine = machine

    def compose(self) -> ComposeResult:
        yield Static(id="cal-head", classes="lead-head")
        with VerticalScroll(id="cal-body"):
            yield Static(id="cal-report")
        yield Footer()

    def load(self, changes: Changes) -> Calibrated:
        from workbench.campaign.agreement.calibration import calibrate
        from workbench.campaign.assessors.roster import machines as machine_assessors

        machines = machine_assessors(self.app.db)
        machine = self.machine if self.machine in machines else (machines[0] if machines else None)
        report = calibrate(self.app.db, machine) if machine is not None else None
        return Calibrated(machines, machine, report)

    def keep(self, data: Calibrated) -> None:
        self.machine = data.machine

    def show(self, data: Calibrated) -> None:
        head = Text.assemble(("Calibration", "bold"))
        if data.machine is None:
            head.append(" · no machine assessor yet: `workbench autojudge` or "
                        "`workbench import qrels --machine` makes one", style="yellow")
            self.query_one("#cal-head", Static).update(head)
            self.query_one("#cal-report", Static).update(Text(""))
            return
        which = data.machines.index(data.machine) + 1
        head.append(f" · machine {which} of {len(data.machines)}: ")
        head.append(data.machine, style="bold")
        head.append(" · n: next machine · e: export")
        # names and the report are data: Text through the one sanitiser, never markup
        self.query_one("#cal-head", Static).update(safe(head))
        body = Text()
        for text, style in data.report.lines():
            body.append(text + "\n", style=style or "")
        self.query_one("#cal-report", Static).update(safe(body))

    def action_next_machine(self) -> None:
        if self.data is None or not self.data.machines:
            return
        machines = self.data.machines
        at = machines.index(self.machine) if self.machine in machines else -1
        self.machine = machines[(at + 1) % len(machines)]
        self.reload()

    def export_text(self, fmt: str) -> str:
        import json

        if self.data is None or self.data.report is None:
            return "{}\n"
        return json.dumps(self.data.report.to_json(), indent=2) + "\n"

    def export_plot(self, path: str) -> None:
        """`calibrate --plot`'s figure of the machine shown."""
        from workbench.campaign.plotting import plot_calibration

        if self.data is None or self.data.report is None:
            raise ValueError("no machine calibrated yet: nothing to draw")
        plot_calibration(path, self.data.report)
