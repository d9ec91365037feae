"""`workbench measures`: every measure family the evaluator knows, from the registry.

One row per family in trec_eval's print order: its trec_eval name (with the parameter
syntax and defaults), the ir_measures-style spellings, how the 'all' value is formed and
a one-line definition. Reads ``workbench.metrics.registry`` only (no database).
"""

from __future__ import annotations

import json

import click

FORMATS = ("table", "json")

_PARAM_SYNTAX = {
    "cutoffs": ".k[,k…]",
    "levels": ".p[,p…]",
    "avg_levels": ".p[,p…]",
    "beta_squared": ".x (β² = x)",
    "pairs": ".name=value[,…] (grade=gain; rbp: p=x)",
    "coefficients": ".p1,p2,p3,p4",
    "length": ".n",
}


def _num(x) -> str:
    return str(x) if isinstance(x, int) else f"{x:g}"


def _ir_params(fam) -> list[str]:
    """The ir_measures-style parameters its own names take (in parentheses or after @)."""
    if not fam.aliases:
        return []
    out = []
    if not fam.graded:
        out.append("rel")
    if fam.beta:
        out.append("beta")
    if fam.formulation:
        out += ["gain", "discount", "base"]
    out += list(fam.ir_params)
    if fam.cutoff == "required":
        out.append("@k")
    elif fam.cutoff == "optional" or fam.with_cutoff:
        out.append("[@k]")
    if fam.param == "levels":
        out.append("[@p]")
    return out


def _rows() -> list[dict]:
    from workbench.metrics.registry import FAMILIES, ir_spellings

    rows = []
    for fam in FAMILIES:
        rows.append({
            "family": fam.name,
            "trec_eval": fam.name if fam.trec else None,
            "trec_eval_parameter": _PARAM_SYNTAX.get(fam.param),
            "defaults": [_num(v) for v in fam.defaults] if fam.param != "beta_squared" else ["1"],
            "ir_measures": list(ir_spellings(fam)),
            "ir_measures_parameters": _ir_params(fam),
            "aggregation": fam.aggregation,
            "integer": fam.integer,
            "summary_only": fam.summary_only,
            "sets": sorted(fam.sets),
            "source": fam.source,
            "definition": fam.definition,
        })
    return rows


def _table(rows: list[dict]) -> None:
    from workbench.cli import rich_console
    from rich.table import Table
    from rich.text import Text

    table = Table(title="Measures", caption="trec_eval's print order; -m takes either spelling")
    for name in ("trec_eval", "defaults", "ir_measures", "all =", "definition"):
        table.add_column(name)
    for r in rows:
        trec = r["trec_eval"] + (r["trec_eval_parameter"] or "") if r["trec_eval"] else "—"
        defaults = ",".join(r["defaults"]) if r["trec_eval_parameter"] else ""
        ir = ", ".join(r["ir_measures"]) or "—"
        params = r["ir_measures_parameters"]
        if params:
            ir += f"  ({', '.join(params)})"
        table.add_row(Text(trec), Text(defaults), Text(ir), Text(r["aggregation"]),
                      Text(r["definition"]))
    rich_console().print(table)


@click.command(name="measures")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output format.")
def measures(fmt: str) -> None:
    """List every measure family: trec_eval name and parameters, ir_measures spellings,
    how the 'all' value is formed, and a one-line definition."""
    rows = _rows()
    if fmt == "json":
        click.echo(json.dumps({"measures": rows}, indent=2, ensure_ascii=False))
    else:
        _table(rows)
