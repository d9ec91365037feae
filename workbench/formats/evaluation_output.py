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

import json
import math
from collections.abc import Sequence
from typing import TextIO

from workbench.formats.csv_cells import csv_writer

__all__ = ["format_value", "trec_lines", "write_csv", "write_json", "write_table", "write_trec"]



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


def trec_lines(ev, per_query: bool, upper=None) -> list[str]:
    """trec_eval's output lines for one run; with `upper`, each line is followed by its
    ``<measure>_upper`` line."""
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
            out.append(f"{'runid':<22}\tall\t{ev.tag}")
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
               runid_first: bool = False) -> None:
    """Every run's trec_eval lines, one block per run in the given order. `runid_first`
    opens each block with the run's ``runid`` line (`score`, which prints several systems
    where trec_eval prints one run)."""
    lines: list[str] = []
    for k, ev in enumerate(evs):
        if runid_first:
            lines.append(f"{'runid':<22}\tall\t{ev.tag}")
        lines.extend(trec_lines(ev, per_query, uppers[k] if uppers else None))
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
               uppers: Sequence | None, settings: dict, shown: Sequence | None = None) -> None:
    """{"settings": ..., "runs": [...]} (keys in docs/json-outputs.md), indented, one newline.
    shown: as for write_csv."""
    runs = []
    for k, (ev, name) in enumerate(zip(evs, names)):
        cols = _columns(ev, shown)
        item = {
            "run": name,
            "tag": ev.tag,
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


def write_table(evs: Sequence, names: Sequence[str], per_query: bool, uppers: Sequence | None,
                settings: dict, shown: Sequence | None = None) -> None:
    """A Rich table of the runs' summaries on the terminal (and one per run with -q)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from workbench.visible import visible  # run names and query ids come from files

    console = Console(markup=False, emoji=False, highlight=False)  # names are data
    cols = [(m, label) for m, label in _columns(evs[0], shown) if m.aggregation != "runid"]
    z = bool(evs[0].settings.get("zscores"))
    caption = f"ties: {settings['ties']} · relevance >= {settings['rel_level']}"
    if settings["max_depth"] is not None:
        caption += f" · top {settings['max_depth']}"
    if settings["complete"]:
        caption += " · all qrels queries (-c)"
    if uppers:
        caption += " · [value, upper bound if unjudged were relevant]"

    def cell(m, ev, v, up=None, uv=None) -> Text:
        s = format_value(m, v, z) if m.aggregation != "count" else str(len(ev.qids))
        if up is not None and m.aggregation != "count" and not m.is_text:
            s += f" / {format_value(m, uv, z)}"
        return Text(s)

    table = Table(title="Evaluation", caption=caption)
    table.add_column("run", no_wrap=True)
    summary = [(m, label) for m, label in cols if not m.is_text]  # relstring: per query only
    for _, label in summary:
        table.add_column(Text(label), justify="right")
    for k, (ev, name) in enumerate(zip(evs, names)):
        up = uppers[k] if uppers else None
        table.add_row(Text(visible(name)), *[
            cell(m, ev, ev.summary[m], up, up.summary[m] if up else None) for m, _ in summary
        ])
    console.print(table)
    if per_query:
        pq = [(m, label) for m, label in cols if not m.summary_only]
        for k, (ev, name) in enumerate(zip(evs, names)):
            up = uppers[k] if uppers else None
            t = Table(title=Text(visible(f"{name}: per query")), caption=caption)
            t.add_column("query", no_wrap=True)
            for _, label in pq:
                t.add_column(Text(label), justify="right")
            for i, q in enumerate(ev.qids):
                t.add_row(Text(visible(q)), *[
                    cell(m, ev, ev.per_query[m][i], up, up.per_query[m][i] if up else None)
                    for m, _ in pq
                ])
            console.print(t)
