"""Scores of the stored systems as one systems x measures table (formats.score_tables):
`workbench export scores` and the scoreboard's `e` export write the same file from this code.

Columns: the measures in the registry's order, Judged@k and unjudged@k (how much of each
system's top k is judged under the source, as the scoreboard shows them); rows: systems best
first by the first measure (ties by name), as the scoreboard sorts them by default. The qrels
source is named in every format.

The long CSV (`system,query,measure,value`) of `workbench score --format csv` and of
`workbench export scores -q` is also written here, once (`write_score_rows`): systems in
the table's order, each system's queries by name, then its `all` line.
"""

from __future__ import annotations

from typing import TextIO

from workbench.campaign.database import Database
from workbench.campaign.scoring.scores import ScoreTable, score_campaign
from workbench.campaign.scoring.sources import QrelsSource
from workbench.errors import UsageError
from workbench.formats.score_tables import SCORE_TABLE_FORMATS, ScoresGrid, render_scores, write_score_rows


def unjudged(table: ScoreTable, system: str, judged: str, k: int) -> int:
    """Unjudged documents in the system's top k, summed over its evaluated queries:
    sum of (1 - Judged@k) * k. Judged@k (ir_measures') divides by min(k, retrieved), so for
    a query the run answered with fewer than k documents this counts the unjudged share of
    the gap too (JudgedTrec@k would count the whole gap)."""
    i = table.row(system)
    values = table.values[table.measure(judged)][i, table.present[i]]
    return round(sum((1.0 - v) * k for v in values.tolist()))


def score_rows(table: ScoreTable, per_query: bool, systems: list[str] | None = None):
    """(system, query, measure label, value, is_count) in the long CSV's order: systems in
    `systems` order (default: table order); with `per_query`, each system's evaluated queries
    by name; then `all`."""
    by_name = sorted(range(len(table.queries)), key=table.queries.__getitem__)
    for system in (table.systems if systems is None else systems):
        i = table.row(system)
        if per_query:
            for j in by_name:
                if table.present[i, j]:
                    for label, m in zip(table.labels, table.measures):
                        yield system, table.queries[j], label, float(table.values[m][i, j]), m.is_count
        for label, m in zip(table.labels, table.measures):
            yield system, "all", label, float(table.means[m][i]), m.is_count


def write_long_scores(table: ScoreTable, out: TextIO, per_query: bool,
                      systems: list[str] | None = None, intervals=None) -> int:
    """The long CSV of `table` on `out` (systems in `systems` order); with `intervals`
    (campaign.scoring.intervals.ScoreIntervals), `ci_low`/`ci_high` columns on the `all`
    rows. Return the number of rows."""
    rows = score_rows(table, per_query, systems)
    if intervals is None:
        return write_score_rows(out, rows)
    by_label = dict(zip(table.labels, table.measures))

    def bounds(system, query, label):
        if query != "all":
            return None
        return intervals.of(by_label[label], table.row(system))

    return write_score_rows(out, rows, bounds)


def ranked_systems(table: ScoreTable, column: str, *, reverse: bool = False) -> list[str]:
    """Systems best first by the mean of `column` (a label), ties by name; systems scored
    on no query last. `reverse`: worst first."""
    means = table.means[table.measure(column)].tolist()
    row = {s: i for i, s in enumerate(table.systems)}

    def key(system: str):
        i = row[system]
        value = means[i] if table.n_queries[i] else float("-inf")
        return (value if value == value else float("-inf"), system)

    return sorted(table.systems, key=key, reverse=not reverse)


def first_measure(table: ScoreTable, judged: str | None) -> str:
    """The default sort column: the first measure that is not Judged@k."""
    return next((c for c in table.labels if c != judged), table.labels[0] if table.labels else "")


def score_grid(table: ScoreTable, systems: list[str] | None = None, *, judged: str | None = None,
               k: int | None = None, intervals=None) -> ScoresGrid:
    """A ScoreTable's means as a grid (rows in `systems` order, default best first); with
    `judged` (the Judged@k label) and `k`, an unjudged@k column after the measures."""
    if systems is None:
        systems = ranked_systems(table, first_measure(table, judged)) if table.labels else list(table.systems)
    measures = list(table.labels)
    counts = {label for label, m in zip(table.labels, table.measures) if m.is_count}
    if judged is not None and k is not None:
        measures.append(f"unjudged@{k}")
        counts.add(f"unjudged@{k}")
    rows = []
    for s in systems:
        i = table.row(s)
        values = [float(table.means[m][i]) for m in table.measures]
        if judged is not None and k is not None:
            values.append(float(unjudged(table, s, judged, k)))
        rows.append((s, int(table.n_queries[i]), tuple(values)))
    if intervals is None:
        return ScoresGrid(table.source, tuple(measures), tuple(rows), frozenset(counts))
    cis = tuple(tuple(intervals.of(m, table.row(s)) for m in table.measures) for s in systems)
    return ScoresGrid(table.source, tuple(measures), tuple(rows), frozenset(counts), cis,
                      intervals.method, tuple(intervals.warnings))


def render_score_table(table: ScoreTable, fmt: str, systems: list[str] | None = None, *,
                       judged: str | None = None, k: int | None = None) -> str:
    """The means table as text in `fmt` (rows in `systems` order): the scoreboard's export."""
    return render_scores(score_grid(table, systems, judged=judged, k=k), fmt)


def scoreboard_table(db: Database, measures: list[str] | None = None,
                     source: QrelsSource | None = None) -> tuple[ScoreTable, str, int]:
    """The scoreboard's numbers: (table of the measures plus Judged@k, Judged@k's label, k)."""
    from workbench.campaign.scoring.judged_depth import judged_column
    from workbench.campaign.settings import campaign_measures

    measures = list(measures) if measures else list(campaign_measures(db))
    judged, k = judged_column(measures)
    table = score_campaign(db, [*measures, judged], source)
    label = next((m for m in table.labels if m == judged), judged)
    return table, label, k


def export_score_table(
    db: Database,
    out: TextIO,
    fmt: str,
    *,
    measures: list[str] | None = None,
    source: QrelsSource | None = None,
) -> int:
    """Write the scoreboard's table in `fmt`; return the number of systems (rows)."""
    if fmt not in SCORE_TABLE_FORMATS:
        raise UsageError(f"unknown scores format {fmt!r}; expected {', '.join(SCORE_TABLE_FORMATS)}")
    table, judged, k = scoreboard_table(db, measures, source)
    grid = score_grid(table, judged=judged, k=k)
    out.write(render_scores(grid, fmt))
    return len(grid.rows)


def export_leaderboard(db: Database, out: TextIO, fmt: str, *, measures: list[str] | None = None,
                       source: QrelsSource | None = None, leaderboard: str | None = None) -> int:
    """`export scores -q --format tot|ir_measures|jsonl` (or csv of a leaderboard): every
    system's per-topic values and its `all` line, from a qrels source or a stored
    leaderboard (`leaderboard`: its name); return the rows written."""
    from workbench.formats.leaderboards import write_leaderboard

    if leaderboard is not None:
        from workbench.campaign.scoring.leaderboards import leaderboard_rows

        rows = leaderboard_rows(db, leaderboard, measures)
    else:
        table = score_campaign(db, measures, source)
        rows = ((s, q, m, v) for s, q, m, v, _ in score_rows(table, True))
    if fmt == "csv":
        return write_score_rows(out, ((s, q, m, v, False) for s, q, m, v in rows))
    return write_leaderboard(rows, out, fmt)
