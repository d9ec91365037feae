"""Every screen at 80×24 and 120×40 (tests/tui/screen_catalog.py lists them): it fits — no
widget past the screen's or its container's edge, nothing scrolled sideways, its key texts
visible whole on one line — and it looks as its SVG snapshot does
(tests/tui/__snapshots__/test_screen_fit/). Read an SVG diff when one changes (the failure
report, snapshot_report.html); after an intended change `make snapshots` rewrites them.

The whole matrix is `slow` (about a minute of CPU); `make test` runs the representative
cases in QUICK at both sizes: the four screens that did not fit 80×24 and
the judging screen."""

from __future__ import annotations

import traceback
from pathlib import Path

import pytest
from pytest_textual_snapshot import normalize_svg

from tests.tui.screen_catalog import BY_NAME, CASES, SIZES, fit_problems, fix_clock_and_paths, make_case_app

SNAPSHOTS = Path(__file__).parent / "__snapshots__" / "test_screen_fit"
QUICK = {"judge", "guidelines", "adjudicate", "systems"}


def _params():
    for case in CASES:
        for width, height in SIZES:
            marks = () if case.name in QUICK else (pytest.mark.slow,)
            yield pytest.param(case.name, (width, height), id=f"{case.name}-{width}x{height}", marks=marks)


def _shoot(case_name, size, tmp_path, monkeypatch, snap_compare, widen=None):
    """Open the screen, check its fit, compare its snapshot: (problems, snapshot matched)."""
    monkeypatch.chdir(tmp_path)
    fix_clock_and_paths(monkeypatch)
    case = BY_NAME[case_name]
    app = make_case_app(case, tmp_path)
    problems: list[str] = []

    async def run_before(pilot) -> None:
        try:
            await case.open(app, pilot)
            if widen is not None:
                await widen(app, pilot)
            problems.extend(fit_problems(app, case))
        except Exception:  # noqa: BLE001 - reported below; the app must still exit
            problems.append(traceback.format_exc())

    matched = snap_compare(app, terminal_size=size, run_before=run_before)
    return problems, matched


@pytest.mark.parametrize(("case_name", "size"), list(_params()))
def test_screen(case_name, size, tmp_path, monkeypatch, snap_compare):
    # a case whose SVG is unstable (its reason in the catalog) is drawn for the fit check
    # only, not compared: a comparison would put a mismatch in every snapshot report
    shoot = _draw_only if BY_NAME[case_name].unstable_svg else snap_compare
    problems, matched = _shoot(case_name, size, tmp_path, monkeypatch, shoot)
    assert not problems, f"{case_name} at {size[0]}×{size[1]}:\n" + "\n".join(problems)
    assert matched, f"{case_name} at {size[0]}×{size[1]} differs from its snapshot (make snapshots)"


def _draw_only(app, terminal_size, run_before) -> bool:
    from textual._doc import take_svg_screenshot

    take_svg_screenshot(app=app, terminal_size=terminal_size, run_before=run_before)
    return True


def test_a_widened_dialog_fails_the_fit_check(tmp_path, monkeypatch):
    """The control: the note dialog widened past 80 columns (a width and a max-width in its
    CSS, as a careless edit of app.tcss would set) is reported by the fit check, and its
    screen no longer matches the stored snapshot."""
    from textual._doc import take_svg_screenshot

    async def widen(app, pilot) -> None:
        dialog = app.screen.query_one("#note-dialog")
        dialog.styles.width = dialog.styles.max_width = 96
        await pilot.pause()

    shots: list[str] = []

    def shoot(app, terminal_size, run_before) -> bool:
        shots.append(take_svg_screenshot(app=app, terminal_size=terminal_size, run_before=run_before))
        return True

    problems, _ = _shoot("note", (80, 24), tmp_path, monkeypatch, shoot, widen=widen)
    assert "Vertical#note-dialog spans columns 0..96 of a 80-column screen" in problems, problems
    stored = SNAPSHOTS / "test_screen[note-80x24].svg"
    assert normalize_svg(shots[0]) != normalize_svg(stored.read_text(encoding="utf-8"))
