"""The per-query export of a system's drill-down (`e` on the system detail screen) is a score
CSV like every other: 6 decimals through formats/score_tables.py, not repr(float) with its
floating-point noise (0.8133333333333336), and the same values `score -q` computes."""

from __future__ import annotations

import csv
import io
import re

from click.testing import CliRunner
from textual.widgets import DataTable, Input

from tests.tui.helpers import settle
from tests.tui.lead_helpers import SIZE, open_mode, rows, sample_db, wait_for  # noqa: F401
from workbench.tui.app import make_app
from workbench.tui.screens.scoreboard import ScoreboardScreen
from workbench.tui.screens.system_detail import SystemDetailScreen


def _long_csv(db) -> dict[tuple[str, str], str]:
    """(query, measure) -> value of `score -q --format csv` for qld."""
    from workbench.cli import cli

    measures = [a for m in ("nDCG@10", "AP", "bpref", "P@10", "Judged@10") for a in ("-m", m)]
    result = CliRunner().invoke(cli, ["--db", db.url, "score", "-q", *measures, "--format", "csv"])
    assert result.exit_code == 0, result.output
    return {(r["query"], r["measure"]): r["value"]
            for r in csv.DictReader(io.StringIO(result.output)) if r["system"] == "qld"}


async def test_the_per_query_export_has_six_decimals_like_score_csv(sample_db, tmp_path):
    out = tmp_path / "qld.csv"
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f2", ScoreboardScreen)
        dt = screen.query_one("#sb-table", DataTable)
        dt.move_cursor(row=[r[1] for r in rows(dt)].index("qld"))
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, SystemDetailScreen)
                       and app.screen.data is not None)
        await settle(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        box = app.screen.query_one("#export-path", Input)
        box.value = str(out)
        box.focus()
        await pilot.press("enter")
        await wait_for(app, pilot, out.exists)
        await settle(app, pilot)
    table = list(csv.reader(io.StringIO(out.read_text())))
    assert table[0] == ["system", "query", "nDCG@10", "AP", "bpref", "P@10", "Judged@10"]
    assert len(table) == 11  # the ten evaluated queries
    cells = [c for row in table[1:] for c in row[2:]]
    assert cells and all(re.fullmatch(r"\d\.\d{6}", c) for c in cells), cells
    expected = _long_csv(sample_db)
    for row in table[1:]:
        assert row[0] == "qld"
        for measure, value in zip(table[0][2:], row[2:]):
            assert value == expected[(row[1], measure)], (row[1], measure)
