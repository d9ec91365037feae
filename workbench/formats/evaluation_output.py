"""Evaluation results as text: trec_eval's lines, CSV, JSON and a Rich table.

Each writer takes the metrics package's `Evaluation` records (one per run, in output
order), the name to show for each run, and optionally each run's upper bound (the same
measures with every unjudged retrieved document counted relevant, `eval --bounds`).
`eval` prints through all four; `score --format trec` prints through `write_trec`.

The trec layout is trec_eval's own (print_single / print_final): ``%-22s\\t%s\\t%6.4f``,
counts as integers, per-query lines then the ``all`` lines, and gm_map, runid and num_q
only among the ``all`` lines; relstring per query only, between single quotes. An
evaluation z-scored (``-Z``, settings["zscores"]) prints as trec_eval does then: ``Z``
before each name (not runid's, not relstring's) and every value as %6.4f. Rich is imported inside `write_table` only, so that this
module (and `workbench eval` in any other format) stays light.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TextIO

__all__ = ["distinct_names", "format_value", "grid_tables", "output_width", "shares_a_tag",
           "trec_lines", "write_csv", "write_json", "write_table", "write_trec"]


def _f4(v: float) -> str:
    """C's %6.4f: as Python's, but a NaN with its sign bit set prints ``-nan`` (glibc), as
    the NaN of inf - inf or 0/0 has it on x86 and arm64."""
    if v != v and math.copysign(1.0, v) < 0:
        return "  -nan"
    return f"{v:6.4f}"


def format_value(m, v, zscored: bool = False) -> str:
    """A value as trec_eval prints it: counts as integers, relstring's text quoted, the
    rest (and everything z-scored) as %6.4f."""
    if m.is_text:
        return f"'{v}'"
    if zscored:
        return _f4(v)
    return str(int(round(v))) if m.is_count else _f4(v)


def _formatted(m, values, zscored: bool) -> list[str]:
    """format_value of each of a measure's per-query values (a sequence or an array)."""
    values = values.tolist() if hasattr(values, "tolist") else list(values)
    if m.is_text:
        return [f"'{v}'" for v in values]
    if zscored or not m.is_count:
        out = [f"{v:6.4f}" for v in values]
        if "nan" in "".join(out):  # rare: the sign of each NaN (trec_eval prints -nan)
            out = [_f4(v) for v in values]
        return out
    return [str(int(round(v))) for v in values]


def _name(m, zscored: bool) -> str:
    """The printed name, padded: trec_eval's ``%-22s`` (``Z%-22s`` when z-scored)."""
    if zscored and not m.is_text:
        return f"Z{m.label:<22}"
    return f"{m.label:<22}"


def distinct_names(names: Sequence[str], files: Sequence[str]) -> list[str]:
    """What every output calls each run: its name (the tag, or the file without one),
    or, where runs share a name, ``name (file)``, and then ``#k`` (its position among the
    runs given) where even that is shared (one file given twice)."""
    from collections import Counter

    shared = Counter(names)
    out = [n if shared[n] == 1 or n == f else f"{n} ({f})" for n, f in zip(names, files)]
    again = Counter(out)
    return [n if again[n] == 1 else f"{n} #{k + 1}" for k, n in enumerate(out)]


def shares_a_tag(evs: Sequence) -> bool:
    """Whether two of the runs carry the same tag (then `write_trec` names their files)."""
    tags = [ev.tag for ev in evs]
    return len(set(tags)) < len(tags)


def _runid(ev, runfile: str | None) -> list[str]:
    """The ``runid`` line, followed by the ``runfile`` line when the file is named."""
    lines = [f"{'runid':<22}\tall\t{ev.tag}"]
    if runfile is not None:
        lines.append(f"{'runfile':<22}\tall\t{runfile}")
    return lines


def trec_lines(ev, per_query: bool, upper=None, runfile: str | None = None) -> list[str]:
    """trec_eval's output lines for one run; with `upper`, each line is followed by its
    ``<measure>_upper`` line; with `runfile`, the runid line by a ``runfile`` line."""
    out: list[str] = []
    ms = list(ev.measures)
    z = bool(ev.settings.get("zscores"))
    if per_query:
        # one column of (name, formatted values) per printed line of a query, each column
        # formatted in one pass (a million-line run gives ~10 000 lines)
        cols = []
        for m in ms:
            if m.summary_only:  # trec_eval prints these in the summary only
                continue
            cols.append((_name(m, z), _formatted(m, ev.per_query[m], z)))
            if upper is not None and not m.is_text:
                cols.append((f"{m.label + '_upper':<22}", _formatted(m, upper.per_query[m], z)))
        # trec_eval 9 prints per-query lines for the run's queries only, also with -c
        # (which averages the others in as 0); trec_eval 10 prints every qrels query
        skip = (frozenset(ev.missing) if ev.settings.get("compat") == 9
                and ev.settings.get("complete") else frozenset())
        for i, q in enumerate(ev.qids):
            if q in skip:
                continue
            for name, values in cols:
                out.append(f"{name}\t{q}\t{values[i]}")
    for m in ms:
        if m.is_text:  # per query only
            continue
        if m.aggregation == "runid":
            out.extend(_runid(ev, runfile))
            continue
        if m.aggregation == "count":
            count = f"{len(ev.qids):6.4f}" if z else str(len(ev.qids))
            out.append(f"{_name(m, z)}\tall\t{count}")
            continue
        out.append(f"{_name(m, z)}\tall\t{format_value(m, ev.summary[m], z)}")
        if upper is not None:
            out.append(f"{m.label + '_upper':<22}\tall\t{format_value(m, upper.summary[m], z)}")
    return out


def write_trec(out: TextIO, evs: Sequence, per_query: bool, uppers: Sequence | None = None, *,
               runid_first: bool = False, runfiles: Sequence[str] | None = None) -> None:
    """Every run's trec_eval lines, one block per run in the given order. `runid_first`
    opens each block with the run's ``runid`` line (`score`, which prints several systems
    where trec_eval prints one run); `runfiles` (each run's file, for runs that share a
    tag) puts a ``runfile  all  FILE`` line after each runid line."""
    lines: list[str] = []
    for k, ev in enumerate(evs):
        runfile = runfiles[k] if runfiles else None
        if runid_first:
            lines.extend(_runid(ev, runfile))
            runfile = None  # named once a block
        lines.extend(trec_lines(ev, per_query, uppers[k] if uppers else None, runfile))
    out.write("\n".join(lines) + ("\n" if lines else ""))


def _value(m, ev, v):
    """A value for CSV/JSON: the run's tag, the query count, relstring's text, an int
    count or a float."""
    if m.aggregation == "runid":
        return ev.tag
    if m.aggregation == "count":
        return len(ev.qids)
    if m.is_text:
        return str(v)
    if ev.settings.get("zscores"):
        return float(v)
    return int(round(v)) if m.is_count else float(v)


def _columns(ev, shown) -> list[tuple]:
    """(measure, name) pairs in the order to show: `shown` (the user's spelling and order,
    metrics.requested) or the evaluation's measures under trec_eval's names."""
    if shown is None:
        return [(m, m.label) for m in ev.measures]
    return [(m, name) for m, name in shown if m in ev.per_query]


def write_csv(out: TextIO, evs: Sequence, names: Sequence[str], per_query: bool,
              uppers: Sequence | None = None, shown: Sequence | None = None) -> None:
    """run,query,measure,value[,upper] rows: per-query rows (with -q), then the `all` rows.
    shown: (measure, name) pairs, the user's order and spelling (default trec_eval's)."""
    from workbench.formats.csv_cells import csv_writer  # (not on trec's path: its start-up)

    w = csv_writer(out)
    w.writerow(["run", "query", "measure", "value"] + (["upper"] if uppers else []))
    for k, (ev, name) in enumerate(zip(evs, names)):
        up = uppers[k] if uppers else None
        rows = []
        cols = _columns(ev, shown)
        if per_query:
            for i, q in enumerate(ev.qids):
                for m, label in cols:
                    if m.summary_only:  # trec_eval prints these in the summary only
                        continue
                    row = [name, q, label, _value(m, ev, ev.per_query[m][i])]
                    if up:
                        row.append(_value(m, up, up.per_query[m][i]))
                    rows.append(row)
        for m, label in cols:
            if m.is_text:  # per query only
                continue
            row = [name, "all", label, _value(m, ev, ev.summary.get(m, 0.0))]
            if up:
                row.append(_value(m, up, up.summary.get(m, 0.0)))
            rows.append(row)
        w.writerows(rows)


def write_json(out: TextIO, evs: Sequence, names: Sequence[str], per_query: bool,
               uppers: Sequence | None, settings: dict, shown: Sequence | None = None,
               files: Sequence[str] | None = None) -> None:
    """{"settings": ..., "runs": [...]} (keys in docs/json-outputs.md), indented, one newline.
    shown: as for write_csv; files: each run's file ("file", after "tag")."""
    import json

    runs = []
    for k, (ev, name) in enumerate(zip(evs, names)):
        cols = _columns(ev, shown)
        item = {
            "run": name,
            "tag": ev.tag,
            **({"file": files[k]} if files is not None else {}),
            "queries": len(ev.qids),
            "missing": list(ev.missing),
            "summary": {label: _value(m, ev, ev.summary.get(m, 0.0)) for m, label in cols
                        if not m.is_text},
        }
        if uppers:
            up = uppers[k]
            item["upper"] = {label: _value(m, up, up.summary.get(m, 0.0)) for m, label in cols
                             if not m.is_text}
        if per_query:
            item["per_query"] = {
                q: {label: _value(m, ev, ev.per_query[m][i]) for m, label in cols
                    if not m.summary_only}
                for i, q in enumerate(ev.qids)
            }
        runs.append(item)
    out.write(json.dumps({"settings": settings, "runs": runs}, indent=2) + "\n")


def output_width() -> int | None:
    """The width a table must fit: COLUMNS when set, else the terminal's when standard
    output is one; None for a pipe or a file (nothing to fit: the table is laid out whole,
    never cut)."""
    import os
    import shutil
    import sys

    env = os.environ.get("COLUMNS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):
        tty = False
    return shutil.get_terminal_size().columns if tty else None


def _grid_width(widths: Sequence[int]) -> int:
    """Terminal cells of a Rich table (heavy-head box, one cell of padding each side)
    whose columns hold at most these cell widths."""
    return sum(w + 2 for w in widths) + len(widths) + 1


def _cell_widths(head: str, names: Sequence[str], labels: Sequence[str],
                 rows: Sequence[Sequence[str]]) -> list[int]:
    """The cell width of each column of a grid: the names' column, then one per label."""
    from rich.cells import cell_len

    out = [max([cell_len(head)] + [cell_len(n) for n in names])]
    for j, c in enumerate(labels):
        out.append(max([cell_len(c)] + [cell_len(r[j]) for r in rows]))
    return out


def _pieces(head: int, widths: Sequence[int], width: int) -> list[tuple[int, int]]:
    """The columns cut into runs of consecutive columns [a, b) that fit the width beside
    the first column (head cells wide); at least one column a piece."""
    parts, start, used = [], 0, _grid_width([head])
    for k, w in enumerate(widths):
        if k > start and used + w + 3 > width:
            parts.append((start, k))
            start, used = k, _grid_width([head])
        used += w + 3
    parts.append((start, len(widths)))
    return parts


def grid_tables(corner: str, row_names: Sequence[str], labels: Sequence[str],
                cells: Sequence[Sequence[str]], width: int | None) -> list[tuple]:
    """How a grid of values (rows `row_names`, columns `labels`, `cells[i][j]`) fits a
    width: [(corner, row names, column labels, cells)], one part per table.

    As given when every column fits (or width is None); else the labels become the rows
    (measures as rows, the runs or queries as columns) when that fits. Else the one of the
    two cut into pieces of columns (each repeating the first column) that prints fewer
    lines, measures as rows on a tie. Values are never cut; a single column wider than
    the width (a long run name) is the one thing left for Rich to fold.
    """
    rows = [list(r) for r in cells]
    w = _cell_widths(corner, row_names, labels, rows)
    if width is None or _grid_width(w) <= width:
        return [(corner, list(row_names), list(labels), rows)]
    t_rows = [[rows[i][j] for i in range(len(row_names))] for j in range(len(labels))]
    tw = _cell_widths("measure", labels, row_names, t_rows)
    if _grid_width(tw) <= width:
        return [("measure", list(labels), list(row_names), t_rows)]
    across, down = _pieces(w[0], w[1:], width), _pieces(tw[0], tw[1:], width)
    # a table's lines: its rows, the title, 3 rules and the header
    if len(across) * (len(row_names) + 5) < len(down) * (len(labels) + 5):
        return [(corner, list(row_names), list(labels[a:b]), [r[a:b] for r in rows])
                for a, b in across]
    return [("measure", list(labels), list(row_names[a:b]), [r[a:b] for r in t_rows])
            for a, b in down]


def write_table(evs: Sequence, names: Sequence[str], per_query: bool, uppers: Sequence | None,
                settings: dict, shown: Sequence | None = None, width: int | None = -1) -> None:
    """Rich tables of the runs' summaries (and one per run with -q) that fit `width`
    (default `output_width()`; None: no limit): runs as rows and measures as columns when
    they fit, else measures as rows (`grid_tables`)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from workbench.visible import visible  # run names and query ids come from files

    if width == -1:
        width = output_width()
    cols = [(m, label) for m, label in _columns(evs[0], shown) if m.aggregation != "runid"]
    z = bool(evs[0].settings.get("zscores"))
    caption = f"ties: {settings['ties']} · relevance >= {settings['rel_level']}"
    if settings["max_depth"] is not None:
        caption += f" · top {settings['max_depth']}"
    if settings["complete"]:
        caption += " · all qrels queries (-c)"
    if uppers:
        caption += " · [value, upper bound if unjudged were relevant]"

    def cell(m, ev, v, up=None, uv=None) -> str:
        s = format_value(m, v, z) if m.aggregation != "count" else str(len(ev.qids))
        if up is not None and m.aggregation != "count" and not m.is_text:
            s += f" / {format_value(m, uv, z)}"
        return s

    tables, needed = [], [80]

    def add(title: str, corner: str, row_names, labels, cells) -> None:
        parts = grid_tables(corner, [visible(n) for n in row_names], labels, cells, width)
        for k, (head, rows, columns, grid) in enumerate(parts):
            needed.append(_grid_width(_cell_widths(head, rows, columns, grid)))
            part = f" ({k + 1}/{len(parts)})" if len(parts) > 1 else ""
            t = Table(title=Text(title + part))
            t.add_column(Text(head), overflow="fold")
            for c in columns:
                t.add_column(Text(c), justify="right", overflow="fold")
            for name, values in zip(rows, grid):
                t.add_row(Text(name), *[Text(v) for v in values])
            tables.append(t)

    summary = [(m, label) for m, label in cols if not m.is_text]  # relstring: per query only
    add("Evaluation", "run", names, [label for _, label in summary], [
        [cell(m, ev, ev.summary[m], up, up.summary[m] if up else None) for m, _ in summary]
        for ev, up in zip(evs, uppers or [None] * len(evs))])
    if per_query:
        pq = [(m, label) for m, label in cols if not m.summary_only]
        for ev, up, name in zip(evs, uppers or [None] * len(evs), names):
            add(visible(f"{name}: per query"), "query", ev.qids, [label for _, label in pq], [
                [cell(m, ev, ev.per_query[m][i], up, up.per_query[m][i] if up else None)
                 for m, _ in pq] for i in range(len(ev.qids))])
    # no width (a pipe): the widest table's own width, so that Rich cuts nothing
    console = Console(markup=False, emoji=False, highlight=False,  # names are data
                      width=width if width is not None else max(needed))
    for t in tables:
        console.print(t)
    console.print(Text(caption))  # once, under the tables: what the numbers depend on
