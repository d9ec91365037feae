"""Quick scoring (lead, F6): type or paste a ranked list of grades, see every number at once.

The TUI face of `workbench quick` (same calculator: metrics.graded through
campaign.scoring.quick.quick_score): the per-rank table of the chosen formulation and, at
depth k, CG, DCG/IDCG/nDCG under every formulation, P@k, AP and RR. Pure computation on
a few numbers: done on each edit, no worker needed. Bad input is an inline message.
"""

from __future__ import annotations

import math

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Input, Select, Static, TextArea

from workbench.campaign.scoring.quick import QuickResult, at_k_label, quick_score
from workbench.tui.screens.lead_screen import LeadScreen
from workbench.tui.tables import fill_table
from workbench.tui.text import describe, safe

EXAMPLE = "3 2 3 0 1 2"
FORMULATIONS = [
    ("linear gain, log2(i+1)", ("linear", "log2", 2.0)),
    ("exponential gain, log2(i+1)", ("exp", "log2", 2.0)),
    ("linear gain, Järvelin–Kekäläinen b=2", ("linear", "jk", 2.0)),
    ("exponential gain, Järvelin–Kekäläinen b=2", ("exp", "jk", 2.0)),
    ("linear gain, Järvelin–Kekäläinen b=e", ("linear", "jk", math.e)),
]


class QuickScreen(LeadScreen):
    BINDINGS = [Binding("escape", "back", "Back", show=False), *LeadScreen.BINDINGS]
    export_formats = {"csv": "csv"}
    export_stem = "quick"
    live = False

    def __init__(self, grades: str = EXAMPLE, *, standalone: bool = True, k: int | None = None,
                 origin: str = "", judged: tuple[int, ...] | None = None) -> None:
        super().__init__()
        self.initial = grades
        # a system's ranked list: every judged grade of the query (R and the ideal, as scored)
        self.judged = judged
        self.initial_k = k
        self.origin = origin  # where the grades came from (a ranked list), shown on top
        self.standalone = standalone  # False: pushed from a ranked list; Esc goes back

    def compose(self) -> ComposeResult:
        yield Static(Text.assemble(
            ("Quick scoring", "bold"),
            " · type or paste grades, rank 1 first (spaces, commas or new lines), or a ranked "
            "list with one 'document grade' per line · "
            "k: depth (empty = all) · l: relevant when grade ≥ l · R: relevant documents that "
            "exist (empty = those listed)", (f"\n{self.origin}" if self.origin else "", "italic")),
            id="qk-help", classes="lead-head")
        with Horizontal(id="qk-controls"):
            # a TextArea, not an Input: a pasted ranked list keeps all its lines
            yield TextArea(self.initial, id="qk-grades", soft_wrap=True, show_line_numbers=False)
            yield Input("" if self.initial_k is None else str(self.initial_k), placeholder="k",
                        id="qk-k", restrict=r"[0-9]*")
            yield Input(value="1", placeholder="l", id="qk-level", restrict=r"-?[0-9]*")
            yield Input(placeholder="R", id="qk-numrel", restrict=r"[0-9]*")
            yield Select([(name, i) for i, (name, _) in enumerate(FORMULATIONS)], value=0,
                         allow_blank=False, id="qk-formulation")
        yield Static(id="qk-error", classes="lead-error")
        with Horizontal(id="qk-body"):
            yield DataTable(id="qk-ranks", cursor_type="row", zebra_stripes=True)
            with Horizontal(id="qk-right"):
                yield DataTable(id="qk-summary", cursor_type="none")
        yield Static(id="qk-measures")
        yield Footer()

    # Below this width the per-rank table (about 70 columns) and the formulations panel (74)
    # cannot stand side by side: the table goes above the panel (at 80 columns it kept 6
    # columns, its rank numbers only), and the formulation menu narrows so that the grades
    # box keeps room (it was 3 columns wide at 80).
    NARROW = 150

    def on_resize(self, event) -> None:
        self.set_class(event.size.width < self.NARROW, "-stacked")

    def on_mount(self) -> None:
        self.set_class(self.size.width < self.NARROW, "-stacked")
        ranks = self.query_one("#qk-ranks", DataTable)
        for col in ("rank", "grade", "gain", "discount", "DCG so far", "ideal grade", "IDCG so far"):
            ranks.add_column(Text(col, justify="right"), key=col)
        summary = self.query_one("#qk-summary", DataTable)
        summary.add_column("formulation", key="f")
        for col in ("DCG", "IDCG", "nDCG"):
            summary.add_column(Text(col, justify="right"), key=col)
        grades = self.query_one("#qk-grades", TextArea)
        grades.cursor_location = grades.document.end  # type on after the example
        grades.focus()
        self.recompute()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self.recompute()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.recompute()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self.recompute()

    def _int(self, selector: str) -> int | None:
        text = self.query_one(selector, Input).value.strip()
        return int(text) if text not in ("", "-") else None

    def recompute(self) -> None:
        error = self.query_one("#qk-error", Static)
        try:
            gain, discount, base = FORMULATIONS[int(self.query_one("#qk-formulation", Select).value)][1]
            level = self._int("#qk-level")
            result = quick_score(
                self.query_one("#qk-grades", TextArea).text, k=self._int("#qk-k"),
                rel_level=1 if level is None else level, num_rel=self._int("#qk-numrel"),
                judged=self.judged, gain=gain, discount=discount, base=base,
            )
        except Exception as exc:  # noqa: BLE001 - bad input is a message, never a crash
            error.update(safe(Text(describe(exc) if not isinstance(exc, ValueError) else str(exc),
                              style="bold red")))
            error.display = True
            return
        error.display = False
        self.data = result
        self.show(result)

    def show(self, result: QuickResult) -> None:
        s, t = result.summary, result.table
        rows = []
        for i in range(len(result.grades)):
            cut = i + 1 == s.k and s.k < len(result.grades)
            style = "underline" if cut else ""
            rows.append((str(i), [
                Text(str(i + 1), justify="right", style=style),
                Text(str(int(t.grade[i])), justify="right", style=style),
                Text(f"{t.gain[i]:g}", justify="right", style=style),
                Text(f"{t.discount[i]:.3f}", justify="right", style=style),
                Text(f"{t.dcg[i]:.3f}", justify="right", style=style),
                Text(str(int(t.ideal_grade[i])), justify="right", style=style),
                Text(f"{t.idcg[i]:.3f}", justify="right", style=style),
            ]))
        fill_table(self.query_one("#qk-ranks", DataTable), rows)
        summary = []
        for f in result.formulations:
            dcg, idcg, ndcg = s.dcg[f]
            bold = "bold" if f == t.formulation else ""
            summary.append((f.name, [Text(f.name, style=bold),
                                     Text(f"{dcg:.3f}", justify="right", style=bold),
                                     Text(f"{idcg:.3f}", justify="right", style=bold),
                                     Text(f"{ndcg:.3f}", justify="right", style=bold)]))
        fill_table(self.query_one("#qk-summary", DataTable), summary)
        self.query_one("#qk-measures", Static).update(safe(Text.assemble(
            (f"at k = {s.k}: ", "bold"),
            f"CG@{s.k} = {s.cg:g}   P@{s.k} = {s.precision:.3f}   ",
            f"{at_k_label(result, 'AP')} = {s.ap:.3f} (R = {s.num_rel})   "
            f"{at_k_label(result, 'RR')} = {float(s.rr):.3f}   ",
            (f"relevant: grade ≥ {s.rel_level}; per-rank table: {t.formulation.name}", "dim"),
        )))

    def action_back(self) -> None:
        if not self.standalone:
            self.app.pop_screen()

    def export_text(self, fmt: str) -> str:
        r = self.data
        s, t = r.summary, r.table
        lines = ["rank,grade,gain,discount,dcg,ideal_grade,idcg"]
        for i in range(len(r.grades)):
            lines.append(f"{i + 1},{int(t.grade[i])},{t.gain[i]!r},{t.discount[i]!r},{t.dcg[i]!r},"
                         f"{int(t.ideal_grade[i])},{t.idcg[i]!r}")
        lines.append("")
        lines.append("formulation,k,dcg,idcg,ndcg")
        for f in r.formulations:
            dcg, idcg, ndcg = s.dcg[f]
            lines.append(f'"{f.name}",{s.k},{dcg!r},{idcg!r},{ndcg!r}')
        lines.append("")
        lines.append(f"measure,value\nCG@{s.k},{s.cg!r}\nP@{s.k},{s.precision!r}\nAP,{s.ap!r}\nRR,{float(s.rr)!r}")
        return "\n".join(lines) + "\n"
