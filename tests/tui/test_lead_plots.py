"""The lead screens' export dialog offers the `--plot` figures (PNG, SVG, PDF): the file is
a valid image of its kind, its artists hold the numbers the command's JSON gives, and in a
browser the figure is a download with nothing written on the server."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Select

from tests.campaign.machine_campaign import build_machine_campaign
from tests.tui.helpers import settle, settle_until
from tests.tui.lead_helpers import SIZE, cli_json, open_mode, sample_db, wait_for  # noqa: F401
from workbench.tui.app import make_app
from workbench.tui.screens.calibration import CalibrationScreen
from workbench.tui.screens.scoreboard import ScoreboardScreen

pytest.importorskip("matplotlib")

MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-", "svg": b"<?xml"}


@pytest.fixture
def figures(monkeypatch):
    import workbench.plots.figures as figs

    saved, real = [], figs.save

    def save(fig, path):
        saved.append(fig)
        real(fig, path)

    monkeypatch.setattr(figs, "save", save)
    return saved


async def _export(app, pilot, fmt: str, path) -> None:
    await pilot.press("e")
    await settle(app, pilot)
    dialog = app.screen
    assert fmt in [str(v) for _, v in dialog.query_one("#export-format", Select)._options]
    dialog.query_one("#export-format", Select).value = fmt
    await pilot.pause()
    box = dialog.query_one("#export-path", Input)
    box.value = str(path)
    box.focus()
    await pilot.press("enter")


async def test_scoreboard_exports_score_plots_figure(sample_db, tmp_path, figures):
    out = tmp_path / "board.png"
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f2", ScoreboardScreen)
        shown = list(screen.ordered_systems(screen.data))
        await _export(app, pilot, "plot png", out)
        await wait_for(app, pilot, out.exists)
        await settle(app, pilot)
    assert out.read_bytes().startswith(MAGIC["png"])
    ax = figures[0].axes[0]
    assert ax.get_title() and ax.get_ylabel()
    data = cli_json(sample_db, "score")
    first = next(iter(data["systems"][0]["mean"]))
    means = {s["system"]: s["mean"][first] for s in data["systems"]}
    assert [t.get_text() for t in ax.get_xticklabels()] == shown
    (line,) = [ln for ln in ax.get_lines() if ln.get_marker() not in ("None", "", "_")][:1]
    assert list(line.get_ydata()) == pytest.approx([means[s] for s in shown], abs=1e-12)


async def test_a_figure_needs_its_suffix(sample_db, tmp_path):
    out = tmp_path / "board.txt"
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(app, pilot, "f2", ScoreboardScreen)
        await _export(app, pilot, "plot svg", out)
        await wait_for(app, pilot, lambda: any("ending in .svg" in n.message
                                               for n in app._notifications))
    assert not out.exists()


async def test_calibration_figure_in_a_browser_is_a_download(sqlite_db, tmp_path, monkeypatch,
                                                            figures):
    build_machine_campaign(sqlite_db, tmp_path / "f", human_queries=5)
    expected = cli_json(sqlite_db, "calibrate", "--machine", "llm")
    app = make_app(sqlite_db, lead=True)
    app.served = True
    delivered = []
    monkeypatch.setattr(app, "deliver_binary", lambda f, **kw: delivered.append((f.read(), kw)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f9")
        await settle_until(app, pilot, lambda: isinstance(app.screen, CalibrationScreen)
                           and app.screen.data is not None)
        await _export(app, pilot, "plot pdf", "calibration.pdf")
        await wait_for(app, pilot, lambda: delivered)
        await settle(app, pilot)
    (data, kw), = delivered
    assert data.startswith(MAGIC["pdf"])
    assert kw == {"save_filename": "calibration.pdf", "open_method": "download",
                  "mime_type": "application/pdf"}
    assert not (tmp_path / "calibration.pdf").exists()
    ax = figures[0].axes[0]
    assert ax.images[0].get_array().tolist() == expected["confusion"]
    scores = next(a for a in figures[0].axes if a.get_title().startswith("Mean"))
    machine = scores.get_lines()[0]
    means = expected["rankings"]["means"]
    assert list(machine.get_xdata()) == pytest.approx([v["reference"] for v in means.values()])
    assert list(machine.get_ydata()) == pytest.approx([v["machine"] for v in means.values()])
