"""Scores of the stored systems as a systems × measures table (formats.score_tables):
the `--format json|markdown|latex` of `workbench export scores` and the lead screens'
export action. The long CSV (`system,query,measure,value`) stays in exporting.py."""

from __future__ import annotations

from typing import TextIO

from workbench.campaign.database import Database
from workbench.campaign.scoring import ScoreTable, score_campaign
from workbench.errors import UsageError
from workbench.formats.score_tables import SCORE_TABLE_FORMATS, ScoresGrid, render_scores


def score_grid(table: ScoreTable, systems: list[str] | None = None) -> ScoresGrid:
    """A ScoreTable's means as a grid; `systems` gives the row order (default: the
    table's, i.e. import order)."""
    order = systems if systems is not None else list(table.systems)
    rows = []
    for s in order:
        i = table.row(s)
        rows.append((s, int(table.n_queries[i]), tuple(float(table.means[m][i]) for m in table.measures)))
    return ScoresGrid(
        table.source,
        table.labels,
        tuple(rows),
        frozenset(label for label, m in zip(table.labels, table.measures) if m.is_count),
    )


def render_score_table(table: ScoreTable, fmt: str, systems: list[str] | None = None) -> str:
    """The means table as text in `fmt` (rows in `systems` order): the screens' export."""
    return render_scores(score_grid(table, systems), fmt)


def export_score_table(
    db: Database,
    out: TextIO,
    fmt: str,
    *,
    measures: list[str] | None = None,
    assessor: str | None = None,
    consensus: str | None = None,
) -> int:
    """Write the means table in `fmt`; return the number of systems (rows)."""
    if fmt not in SCORE_TABLE_FORMATS:
        raise UsageError(f"unknown scores format {fmt!r}; expected {', '.join(SCORE_TABLE_FORMATS)}")
    if assessor is not None and consensus is not None:
        raise UsageError("give either --assessor NAME or --consensus METHOD, not both")
    table = score_campaign(db, measures, assessor=assessor, consensus=consensus)
    grid = score_grid(table)
    out.write(render_scores(grid, fmt))
    return len(grid.rows)
