"""A systems × measures table of scores rendered as CSV, JSON, Markdown or LaTeX.

Pure (no database): the caller gives a `ScoresGrid` of plain values. Means are printed
with 4 decimals like trec_eval; every CSV of scores (this grid and the long
`system,query,measure,value` rows of `score --format csv` and `export scores -q`) has one
writer here, with CSV_DECIMALS decimals (more than trec_eval's 4, without float noise such as
0.8400000000000001); JSON keeps full precision. Counts (num_rel, ...) are integers. In Markdown and LaTeX the best value of each measure
column is bold (the highest; counts are not marked), so a table pasted into a report or a
paper reads at a glance.

With `intervals` (one (low, high) or None per measure per row, `score --ci`), each mean is
followed by its interval: `0.4123 [0.3810, 0.4436]` in Markdown and LaTeX, `M_low`/`M_high`
columns in CSV, `"mean_ci"` (and the top-level `"ci"`) in JSON.
"""

from __future__ import annotations

import html
import io
import json
import math
from dataclasses import dataclass

from workbench.formats.csv_cells import csv_writer
from workbench.formats.numbers import interval, number

SCORE_TABLE_FORMATS = ("csv", "json", "markdown", "latex")
CSV_DECIMALS = 6
LONG_SCORE_COLUMNS = ("system", "query", "measure", "value")


def csv_value(value: float | None, count: bool = False) -> str:
    """One score in a CSV: a count as an integer, else CSV_DECIMALS decimals; "" for none."""
    if value is None or math.isnan(value):
        return ""
    return str(int(round(value))) if count else f"{float(value):.{CSV_DECIMALS}f}"


def write_score_rows(out, rows, bounds=None) -> int:
    """The long CSV `system,query,measure,value` from (system, query, measure, value,
    is_count) rows, in the order given; with `bounds(system, query, measure)` giving
    (low, high) or None, two more columns `ci_low,ci_high`. Return the number of rows."""
    w = csv_writer(out)
    w.writerow(LONG_SCORE_COLUMNS + (("ci_low", "ci_high") if bounds else ()))
    count = 0
    for system, query, measure, value, count_measure in rows:
        row = [system, query, measure, csv_value(value, count_measure)]
        if bounds:
            ci = bounds(system, query, measure)
            row += ["", ""] if ci is None else [csv_value(ci[0]), csv_value(ci[1])]
        w.writerow(row)
        count += 1
    return count


@dataclass(frozen=True)
class ScoresGrid:
    source: str  # the qrels source, e.g. consensus:majority
    measures: tuple[str, ...]
    # (system, number of queries averaged, one value per measure), in display order
    rows: tuple[tuple[str, int, tuple[float, ...]], ...]
    counts: frozenset[str] = frozenset()
    # per row, one (low, high) or None per measure; empty: no intervals
    intervals: tuple[tuple[tuple[float, float] | None, ...], ...] = ()
    ci: str = ""  # the interval's method (t, bootstrap, ppi)
    warnings: tuple[str, ...] = ()


def render_scores(grid: ScoresGrid, fmt: str) -> str:
    """The grid as text in `fmt` (one of SCORE_TABLE_FORMATS)."""
    if fmt == "csv":
        return _csv(grid)
    if fmt == "json":
        return _json(grid)
    if fmt in ("markdown", "md"):
        return _markdown(grid)
    if fmt in ("latex", "tex"):
        return _latex(grid)
    raise ValueError(f"unknown score table format {fmt!r}; expected {', '.join(SCORE_TABLE_FORMATS)}")


def _fmt(grid: ScoresGrid, measure: str, value: float) -> str:
    return number(value, missing="–", count=measure in grid.counts)


def _best(grid: ScoresGrid) -> list[float | None]:
    """The highest value of each column (None for count columns and empty columns)."""
    out = []
    for j, m in enumerate(grid.measures):
        values = [r[2][j] for r in grid.rows if r[2][j] is not None and not math.isnan(r[2][j])]
        out.append(None if m in grid.counts or not values else max(values))
    return out


def _is_best(best: float | None, value: float, grid: ScoresGrid, measure: str) -> bool:
    # Compare what is printed: 0.8800 and 0.88000001 are both best.
    return best is not None and _fmt(grid, measure, value) == _fmt(grid, measure, best)


def _csv(grid: ScoresGrid) -> str:
    out = io.StringIO()
    w = csv_writer(out)
    header = ["source", "system", "queries", *grid.measures]  # every row names its qrels
    if grid.intervals:
        header += [f"{m}_{end}" for m in grid.measures for end in ("low", "high")]
    w.writerow(header)
    for r, (system, n, values) in enumerate(grid.rows):
        row = [grid.source, system, n, *(
            csv_value(v, m in grid.counts) for m, v in zip(grid.measures, values))]
        if grid.intervals:
            for ci in grid.intervals[r]:
                row += ["", ""] if ci is None else [csv_value(ci[0]), csv_value(ci[1])]
        w.writerow(row)
    return out.getvalue()


def _json(grid: ScoresGrid) -> str:
    def num(m, v):
        if v is None or math.isnan(v):
            return None
        return int(round(v)) if m in grid.counts else float(v)

    systems = []
    for r, (s, n, values) in enumerate(grid.rows):
        entry = {"system": s, "n_queries": n, "mean": {m: num(m, v) for m, v in zip(grid.measures, values)}}
        if grid.intervals:
            entry["mean_ci"] = {m: None if ci is None else [float(ci[0]), float(ci[1])]
                                for m, ci in zip(grid.measures, grid.intervals[r])}
        systems.append(entry)
    data = {"source": grid.source, "measures": list(grid.measures), "systems": systems}
    if grid.intervals:
        data["ci"] = grid.ci
        data["warnings"] = list(grid.warnings)
    return json.dumps(data, indent=2) + "\n"


def _ci_note(grid: ScoresGrid) -> str:
    return f"; means with 95% intervals ({grid.ci})" if grid.intervals else ""


def _with_ci(grid: ScoresGrid, r: int, j: int, text: str, dash: str = "–") -> str:
    """A mean's cell followed by its interval, where the grid has intervals."""
    if not grid.intervals or j >= len(grid.intervals[r]):
        return text
    ci = grid.intervals[r][j]
    if grid.measures[j] in grid.counts:
        return text
    if ci is None:
        return f"{text} [{dash}]"
    return f"{text} {interval(*ci)}"


def _md_cell(text: str) -> str:
    """A name in a Markdown table cell: pipes and backslashes escaped, and HTML too (a run tag
    `<script>` would run in a Markdown viewer that renders inline HTML)."""
    text = html.escape(text, quote=False)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _markdown(grid: ScoresGrid) -> str:
    best = _best(grid)
    lines = [
        (f"Scores against {_md_cell(grid.source)}" if grid.source else "Scores") + _ci_note(grid),
        "",
        "| " + " | ".join(["system", "queries", *map(_md_cell, grid.measures)]) + " |",
        "|" + "|".join([":---", "---:", *("---:" for _ in grid.measures)]) + "|",
    ]
    for r, (system, n, values) in enumerate(grid.rows):
        cells = []
        for j, (m, v) in enumerate(zip(grid.measures, values)):
            text = _fmt(grid, m, v)
            cells.append(_with_ci(grid, r, j, f"**{text}**" if _is_best(best[j], v, grid, m) else text))
        lines.append("| " + " | ".join([_md_cell(system), str(n), *cells]) + " |")
    return "\n".join(lines) + "\n"


_TEX = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}


def tex_escape(text: str) -> str:
    return "".join(_TEX.get(c, c) for c in text)


def _latex(grid: ScoresGrid) -> str:
    best = _best(grid)
    cols = "lr" + "r" * len(grid.measures)
    lines = [
        "% needs \\usepackage{booktabs}",
        "\\begin{table}",
        "\\centering",
        f"\\begin{{tabular}}{{{cols}}}",
        "\\toprule",
        " & ".join(["System", "Queries", *map(tex_escape, grid.measures)]) + " \\\\",
        "\\midrule",
    ]
    for r, (system, n, values) in enumerate(grid.rows):
        cells = []
        for j, (m, v) in enumerate(zip(grid.measures, values)):
            text = _fmt(grid, m, v).replace("–", "--")
            text = f"\\textbf{{{text}}}" if _is_best(best[j], v, grid, m) else text
            cells.append(_with_ci(grid, r, j, text, "--"))
        lines.append(" & ".join([tex_escape(system), str(n), *cells]) + " \\\\")
    lines += [
        "\\bottomrule",
        "\\end{tabular}",
        (f"\\caption{{Scores against {tex_escape(grid.source)}{tex_escape(_ci_note(grid))}.}}" if grid.source
         else f"\\caption{{Scores{tex_escape(_ci_note(grid))}.}}"),
        "\\end{table}",
    ]
    return "\n".join(lines) + "\n"
