"""A systems × measures table of scores rendered as CSV, JSON, Markdown or LaTeX.

Pure (no database): the caller gives a `ScoresGrid` of plain values. Means are printed
with 4 decimals like trec_eval (CSV and JSON keep full precision: they are for programs),
counts (num_rel, ...) as integers. In Markdown and LaTeX the best value of each measure
column is bold (the highest; counts are not marked), so a table pasted into a report or a
paper reads at a glance.
"""

from __future__ import annotations

import html
import io
import json
import math
from dataclasses import dataclass

from workbench.formats.csv_cells import csv_writer

SCORE_TABLE_FORMATS = ("csv", "json", "markdown", "latex")


@dataclass(frozen=True)
class ScoresGrid:
    source: str  # the qrels source, e.g. consensus:majority
    measures: tuple[str, ...]
    # (system, number of queries averaged, one value per measure), in display order
    rows: tuple[tuple[str, int, tuple[float, ...]], ...]
    counts: frozenset[str] = frozenset()


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
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return str(int(round(value))) if measure in grid.counts else f"{value:.4f}"


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
    w.writerow(["source", "system", "queries", *grid.measures])  # every row names its qrels
    for system, n, values in grid.rows:
        w.writerow([grid.source, system, n, *(
            _fmt(grid, m, v) if m in grid.counts else ("" if v is None or math.isnan(v) else repr(float(v)))
            for m, v in zip(grid.measures, values)
        )])
    return out.getvalue()


def _json(grid: ScoresGrid) -> str:
    def num(m, v):
        if v is None or math.isnan(v):
            return None
        return int(round(v)) if m in grid.counts else float(v)

    return json.dumps({
        "source": grid.source,
        "measures": list(grid.measures),
        "systems": [
            {"system": s, "n_queries": n, "mean": {m: num(m, v) for m, v in zip(grid.measures, values)}}
            for s, n, values in grid.rows
        ],
    }, indent=2) + "\n"


def _md_cell(text: str) -> str:
    """A name in a Markdown table cell: pipes and backslashes escaped, and HTML too (a run tag
    `<script>` would run in a Markdown viewer that renders inline HTML, issue 27 #3)."""
    text = html.escape(text, quote=False)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _markdown(grid: ScoresGrid) -> str:
    best = _best(grid)
    lines = [
        f"Scores against {_md_cell(grid.source)}" if grid.source else "Scores",
        "",
        "| " + " | ".join(["system", "queries", *map(_md_cell, grid.measures)]) + " |",
        "|" + "|".join([":---", "---:", *("---:" for _ in grid.measures)]) + "|",
    ]
    for system, n, values in grid.rows:
        cells = []
        for j, (m, v) in enumerate(zip(grid.measures, values)):
            text = _fmt(grid, m, v)
            cells.append(f"**{text}**" if _is_best(best[j], v, grid, m) else text)
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
    for system, n, values in grid.rows:
        cells = []
        for j, (m, v) in enumerate(zip(grid.measures, values)):
            text = _fmt(grid, m, v).replace("–", "--")
            cells.append(f"\\textbf{{{text}}}" if _is_best(best[j], v, grid, m) else text)
        lines.append(" & ".join([tex_escape(system), str(n), *cells]) + " \\\\")
    lines += [
        "\\bottomrule",
        "\\end{tabular}",
        f"\\caption{{Scores against {tex_escape(grid.source)}.}}" if grid.source else "\\caption{Scores.}",
        "\\end{table}",
    ]
    return "\n".join(lines) + "\n"
