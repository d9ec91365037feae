"""The team-lead modes and how the app registers them (only when it runs with lead=True).

Blindness (docs/architecture.md#rules-that-hold-everywhere): these screens show system names and every assessor's grades, so
`workbench judge --assessor NAME` runs the app with lead=False: the modes, their keys and
their palette commands then do not exist at all.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable

from textual.screen import Screen

# mode -> (key, title, palette help, "module:Screen")
LEAD_MODES: dict[str, tuple[str, str, str, str]] = {
    "scores": ("f2", "Scores", "Scoreboard: systems × measures under a qrels source",
               "workbench.tui.screens.scoreboard:ScoreboardScreen"),
    "agreement": ("f3", "Agreement", "Kappas, Fleiss, Krippendorff's alpha, confusion matrices",
                  "workbench.tui.screens.agreement:AgreementScreen"),
    "disagreements": ("f4", "Disagreements", "Items assessors graded differently; adjudicate",
                      "workbench.tui.screens.disagreements:DisagreementsScreen"),
    "systems": ("f5", "Systems", "Rankings per assessor, tau / tau_AP / RBO, significance",
                "workbench.tui.screens.systems:SystemsScreen"),
    "quick": ("f6", "Quick", "Quick scoring: type grades, see DCG/nDCG/AP/RR",
              "workbench.tui.screens.quick:QuickScreen"),
    "planning": ("f7", "Planning", "Judgments needed (simulated pooling) and leave-one-run-out fairness",
                 "workbench.tui.screens.planning:PlanningScreen"),
    "pace": ("f8", "Pace", "Assessors' documents per hour, seconds per document, grade drift, agreement over time",
             "workbench.tui.screens.pace:PaceScreen"),
    "calibration": ("f9", "Calibration", "A machine assessor against people: kappa, confusion, leniency, rankings",
                    "workbench.tui.screens.calibration:CalibrationScreen"),
    "nuggets": ("f10", "Nuggets", "Nugget scores of the runs' generated answers under a label source",
                "workbench.tui.screens.nugget_scores:NuggetScoresScreen"),
}


# The footer has room for F1-F8 at 160 columns; later modes keep their key, and are listed
# in the help (?) and the command palette, but not in the footer.
NOT_IN_FOOTER = {"calibration", "nuggets"}


def _factory(target: str) -> Callable[[], Screen]:
    def make() -> Screen:
        module, name = target.split(":")
        return getattr(importlib.import_module(module), name)()

    return make


def register_lead_modes(app) -> None:
    """Add the lead modes and their keys to `app` (call from its __init__). The keys work on
    every screen; the lead screens' footers show them (mode_bindings, with priority there:
    the quick screen's text box binds F6/F7 itself and must not swallow them), while the
    judging screen's footer keeps the assessor's keys only, which already fill it."""
    for mode, (key, title, _help, target) in LEAD_MODES.items():
        app.add_mode(mode, _factory(target))
        app.bind(key, f"switch_mode('{mode}')", description=title, show=False)
    app.bind("f1", "switch_mode('assess')", description="Judge", show=False)


def mode_bindings() -> list:
    """The F-keys as shown in a lead screen's footer (LeadScreen.BINDINGS): lead screens
    exist only in a lead app, so these never reach a blind `workbench judge`. Modes in
    NOT_IN_FOOTER keep their key (priority too) without a place in the footer."""
    from textual.binding import Binding

    return [Binding("f1", "app.switch_mode('assess')", "Judge", priority=True)] + [
        Binding(key, f"app.switch_mode('{mode}')", title, priority=True,
                show=mode not in NOT_IN_FOOTER)
        for mode, (key, title, _help, _target) in LEAD_MODES.items()
    ]


def show_lead_keys(screen: Screen) -> None:
    """In a lead app, the lead modes' F-keys in the footer of `screen` (the start and query
    screens: the keys worked there, but their footers showed only ^q and ^p, so a lead never
    found the lead screens). Nothing in an assessor's app (lead=False): no lead key exists."""
    if not getattr(screen.app, "lead", False):
        return
    for mode, (key, title, _help, _target) in LEAD_MODES.items():
        if mode not in NOT_IN_FOOTER:
            screen._bindings.bind(key, f"app.switch_mode('{mode}')", title, show=True)
    screen.refresh_bindings()


def lead_commands(app) -> Iterable[tuple[str, str, Callable[[], object]]]:
    """Command palette entries for the lead modes, the judging screens (F1) first."""
    yield "Judge (F1)", "The judging screens: pick an assessor, judge their queue", (
        lambda: app.switch_mode("assess"))
    for mode, (key, title, help_text, _target) in LEAD_MODES.items():
        yield f"{title} ({key.upper()})", help_text, (lambda m=mode: app.switch_mode(m))
