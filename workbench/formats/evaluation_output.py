"""The outputs of an evaluation (metrics `Evaluation` records): trec_eval's text, CSV, JSON
and a rich table. One writer per format, shared by `eval` and `score --format trec`.

`trec_lines` prints exactly what ``trec_eval [-q] -m ...`` prints: same names, same numbers,
same layout (``%-22s\t%s\t%6.4f``, counts as integers), per-query lines then the ``all``
lines. Rich is imported only inside `print_table`.
"""

from __future__ import annotations

import json


def format_value(m, v: float) -> str:
    return str(int(round(v))) if m.is_count else f"{v:6.4f}"


def trec_lines(ev, per_query: bool, upper=None) -> list[str]:
    """trec_eval's output for one run (print_single / print_final layouts)."""
    out: list[str] = []
    ms = [m for m in ev.measures]
    if per_query:
        cols = {m: ev.per_query[m] for m in ms}
        ucols = {m: upper.per_query[m] for m in ms} if upper else None
        for i, q in enumerate(ev.qids):
            for m in ms:
                if m.family in ("gm_map", "runid", "num_q"):
                    continue  # trec_eval prints these in the summary only
                out.append(f"{m.label:<22}\t{q}\t{format_value(m, cols[m][i])}")
                if ucols is not None:
                    out.append(f"{m.label + '_upper':<22}\t{q}\t{format_value(m, ucols[m][i])}")
    for m in ms:
        if m.family == "runid":
            out.append(f"{'runid':<22}\tall\t{ev.tag}")
            continue
        if m.family == "num_q":
            out.append(f"{'num_q':<22}\tall\t{len(ev.qids)}")
            continue
        out.append(f"{m.label:<22}\tall\t{format_value(m, ev.summary[m])}")
        if upper is not None:
            out.append(f"{m.label + '_upper':<22}\tall\t{format_value(m, upper.summary[m])}")
    return out


def _value(m, ev, v):
    if m.family == "runid":
        return ev.tag
    if m.family == "num_q":
        return len(ev.qids)
    return int(round(v)) if m.is_count else float(v)


def csv_text(evs, names, per_query, uppers) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    header = ["run", "query", "measure", "value"] + (["upper"] if uppers else [])
    w.writerow(header)
    for k, (ev, name) in enumerate(zip(evs, names)):
        up = uppers[k] if uppers else None
        rows = []
        if per_query:
            for i, q in enumerate(ev.qids):
                for m in ev.measures:
                    if m.family in ("gm_map", "runid", "num_q"):
                        continue
                    row = [name, q, m.label, _value(m, ev, ev.per_query[m][i])]
                    if up:
                        row.append(_value(m, up, up.per_query[m][i]))
                    rows.append(row)
        for m in ev.measures:
            row = [name, "all", m.label, _value(m, ev, ev.summary.get(m, 0.0))]
            if up:
                row.append(_value(m, up, up.summary.get(m, 0.0)))
            rows.append(row)
        w.writerows(rows)
    return buf.getvalue()


def json_text(evs, names, per_query, uppers, settings) -> str:
    runs = []
    for k, (ev, name) in enumerate(zip(evs, names)):
        item = {
            "run": name,
            "tag": ev.tag,
            "queries": len(ev.qids),
            "missing": list(ev.missing),
            "summary": {m.label: _value(m, ev, ev.summary.get(m, 0.0)) for m in ev.measures},
        }
        if uppers:
            up = uppers[k]
            item["upper"] = {m.label: _value(m, up, up.summary.get(m, 0.0)) for m in up.measures}
        if per_query:
            item["per_query"] = {
                q: {m.label: _value(m, ev, ev.per_query[m][i]) for m in ev.measures
                    if m.family not in ("gm_map", "runid", "num_q")}
                for i, q in enumerate(ev.qids)
            }
        runs.append(item)
    return json.dumps({"settings": settings, "runs": runs}, indent=2)


def print_table(evs, names, per_query, uppers, settings) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console()
    ms = [m for m in evs[0].measures if m.family != "runid"]
    caption = f"ties: {settings['ties']} · relevance >= {settings['rel_level']}"
    if settings["max_depth"] is not None:
        caption += f" · top {settings['max_depth']}"
    if settings["complete"]:
        caption += " · all qrels queries (-c)"
    if uppers:
        caption += " · [value, upper bound if unjudged were relevant]"

    def cell(m, ev, v, up=None, uv=None) -> Text:
        s = format_value(m, v) if m.family != "num_q" else str(len(ev.qids))
        if up is not None and m.family != "num_q":
            s += f" / {format_value(m, uv)}"
        return Text(s)

    table = Table(title="Evaluation", caption=caption)
    table.add_column("run", no_wrap=True)
    for m in ms:
        table.add_column(m.label, justify="right")
    for k, (ev, name) in enumerate(zip(evs, names)):
        up = uppers[k] if uppers else None
        table.add_row(Text(name), *[
            cell(m, ev, ev.summary[m], up, up.summary[m] if up else None) for m in ms
        ])
    console.print(table)
    if per_query:
        pq = [m for m in ms if m.family not in ("gm_map", "num_q")]
        for k, (ev, name) in enumerate(zip(evs, names)):
            up = uppers[k] if uppers else None
            t = Table(title=Text(f"{name}: per query"), caption=caption)
            t.add_column("query", no_wrap=True)
            for m in pq:
                t.add_column(m.label, justify="right")
            for i, q in enumerate(ev.qids):
                t.add_row(Text(q), *[
                    cell(m, ev, ev.per_query[m][i], up, up.per_query[m][i] if up else None)
                    for m in pq
                ])
            console.print(t)
