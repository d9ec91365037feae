"""`workbench measures [NAME]`: every measure family the evaluator knows, from the registry.

Without NAME, one row per family in trec_eval's print order: its trec_eval name (with the
parameter syntax and defaults), the ir_measures-style spellings, how the 'all' value is
formed and a one-line definition. With NAME (a family or any spelling -m takes: `ndcg_cut`,
`nDCG@10`, `P.5`, `precision@10`), that family's page: the definition and its formula, the
parameters with their defaults, the spellings of trec_eval, ir_measures and ranx, and its
source (the paper, and the trec_eval file followed), like `trec_eval -h -m NAME`. Reads
``workbench.metrics.registry`` only (no database).
"""

from __future__ import annotations

import json

import click

FORMATS = ("table", "json", "markdown")

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
            "spellings": {"trec_eval": _trec_spelling(fam), "ir_measures": fam.ir_measures or None,
                          "ranx": fam.ranx or None},
            "citation": fam.citation,
        })
    return rows


def _trec_spelling(fam) -> str | None:
    """trec_eval's spelling: the name, with its parameter as trec_eval writes it."""
    if not fam.trec:
        return None
    return fam.name + {"cutoffs": ".k", "levels": ".p", "avg_levels": "", "beta_squared": ".x",
                       "pairs": "", "coefficients": ".p1,p2,p3,p4", "length": ".n"}.get(fam.param, "")


def _family(name: str):
    """The family NAME names: a family's own name, else whatever -m parses it to (one family);
    a UsageError with the closest spelling otherwise."""
    from workbench.errors import UsageError
    from workbench.metrics.measures import MeasureError, parse_measures
    from workbench.metrics.registry import BY_NAME

    if name in BY_NAME:
        return BY_NAME[name]
    lower = {n.lower(): f for n, f in BY_NAME.items()}
    if name.lower() in lower:
        return lower[name.lower()]
    try:
        families = list(dict.fromkeys(m.family for m in parse_measures([name])))
    except MeasureError as exc:  # "unknown measure 'X' — did you mean Y?" (one line, exit 2)
        raise MeasureError(f"{exc} (`workbench measures` lists every measure)") from None
    if len(families) != 1:
        raise UsageError(f"{name!r} names measures of {len(families)} families "
                         f"({', '.join(families[:6])}{', ...' if len(families) > 6 else ''}): "
                         "give one, e.g. workbench measures " + families[0])
    return BY_NAME[families[0]]


def _formula(fam) -> str:
    """The kernel docstring's first paragraph: the formula (the registry's contract)."""
    import inspect

    return " ".join(inspect.cleandoc(fam.kernel.__doc__ or "").split("\n\n")[0].split())


_IR_PARAM_DEFAULTS = {"rel": "the -l level (1)", "beta": "1", "gain": "linear", "discount": "log2",
                      "base": "2"}


def _page(fam) -> str:
    """One family's page, as `workbench measures NAME` prints it."""
    from dataclasses import replace

    row = next(r for r in _rows() if r["family"] == fam.name)
    lines = [f"{fam.name}: {fam.definition}", "", f"  {_formula(fam)}", ""]
    if fam.param:
        lines.append(f"trec_eval parameter  {fam.name}{row['trec_eval_parameter']}; default "
                     + _trec_default(fam, row))
    ir_defaults = dict(fam.ir_defaults)
    # the ir_measures-style parameters; a family reached only through another's spelling
    # (nDCG(gain=exp)@k is the nDCG family) takes those of its own name
    params = row["ir_measures_parameters"] or _ir_params(replace(fam, aliases=(fam.label_name,)))
    for p in params:
        if p in ("@k", "[@k]", "[@p]"):
            what = {"@k": "a cutoff k, required", "[@k]": "a cutoff k, optional (none: the whole ranking)",
                    "[@p]": "a recall level p"}[p]
            lines.append(f"{'parameter ' + p:<20} {what}")
        else:
            default = ir_defaults.get(p, _IR_PARAM_DEFAULTS.get(p, ""))
            lines.append(f"{'parameter ' + p:<20} default {default} (ir_measures style: "
                         f"{fam.label_name}({p}=...))")
    lines.append(f"'all' value          {row['aggregation']}"
                 + (" (printed as an integer)" if fam.integer else "")
                 + (" (the 'all' line only)" if fam.summary_only else ""))
    if fam.sets:
        lines.append(f"in the sets          {', '.join(sorted(fam.sets))}")
    lines.append("")
    sp = row["spellings"]
    for tool in ("trec_eval", "ir_measures", "ranx"):
        lines.append(f"{tool + ' spelling':<20} {sp[tool] or '— (none)'}")
    if row["ir_measures"]:
        lines.append(f"-m also takes        {', '.join(row['ir_measures'])}")
    lines += ["", f"source               {fam.citation}", f"follows              {fam.source}"]
    return "\n".join(lines)


def _trec_default(fam, row) -> str:
    if fam.defaults or fam.param == "beta_squared":
        return ", ".join(row["defaults"])
    if fam.kernel.__module__.endswith(".rbp"):  # rbp, rbp_resid: the persistence
        from workbench.metrics.kernels.rbp import RBP_P

        return f"p={RBP_P:g}, the gains grade / top grade"
    return "none: each grade is its own gain"


def markdown(rows: list[dict]) -> str:
    """The families' spellings and sources as the Markdown table docs/measures.md holds
    (tests/cli/test_measures_cmd.py checks that the page has this very table)."""
    def code(text):
        return f"`{text}`" if text else ""

    lines = ["| family | trec_eval | ir_measures | ranx | defaults | source |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        sp = r["spellings"]
        defaults = ",".join(r["defaults"]) if r["trec_eval_parameter"] else ""
        lines.append(f"| {r['family']} | {code(sp['trec_eval'])} | {code(sp['ir_measures'])} | "
                     f"{code(sp['ranx'])} | {defaults} | {r['citation']} |")
    return "\n".join(lines)


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
@click.argument("name", required=False, metavar="[NAME]")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output format.")
def measures(name: str | None, fmt: str) -> None:
    """List every measure family: trec_eval name and parameters, ir_measures spellings,
    how the 'all' value is formed, and a one-line definition. With NAME (a family or any
    spelling -m takes: ndcg_cut, nDCG@10, P.5, precision@10), that measure's definition,
    parameters with their defaults, trec_eval, ir_measures and ranx spellings, and source."""
    if name is not None:
        fam = _family(name)
        if fmt == "json":
            row = next(r for r in _rows() if r["family"] == fam.name)
            click.echo(json.dumps({**row, "formula": _formula(fam)}, indent=2, ensure_ascii=False))
        elif fmt == "markdown":
            click.echo(markdown([r for r in _rows() if r["family"] == fam.name]))
        else:
            click.echo(_page(fam))
        return
    rows = _rows()
    if fmt == "json":
        click.echo(json.dumps({"measures": rows}, indent=2, ensure_ascii=False))
    elif fmt == "markdown":
        click.echo(markdown(rows))
    else:
        _table(rows)
