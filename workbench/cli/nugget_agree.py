"""`workbench agree --nuggets`: agreement on nugget assignments (campaign/answers/agreement.py)."""

from __future__ import annotations

import json
import sys

import click

from workbench.cli import resolve_db
from workbench.formats.numbers import number


def agree_nuggets(ctx, db, assessors, per_query: bool, fmt: str) -> None:
    from workbench.campaign.answers.agreement import VIEWS, nugget_reports, reports_json
    from workbench.campaign.database import Database

    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        reports = nugget_reports(database, assessors, per_query=per_query)
    finally:
        database.close()
    if fmt == "csv":  # agree --format csv's rows; the binary views' coefficients prefixed
        from workbench.formats.agreement_csv import write_agreement_csv

        write_agreement_csv(sys.stdout, [(v + "." if v else "", reports[v]) for v in VIEWS],
                            confusion=True)
        return
    report = reports_json(reports)
    if fmt == "json":
        click.echo(json.dumps(report, indent=2))
        return
    from workbench.cli import table_text

    for title, part in (("labels (support / partial / not)", report),
                        ("non-strict (support or partial vs not)", report["non_strict"]),
                        ("strict (support vs the rest)", report["strict"])):
        click.echo(f"{title}: {part['n_items']} items labelled by two or more")
        for p in part["pairs"]:
            ci = p.get("cohen_kappa_ci")
            click.echo(f"  {table_text(p['a'])} / {table_text(p['b'])}: n={p['n']} observed={number(p['observed'])} "
                       f"kappa={number(p['cohen_kappa'])}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")
                       + f" weighted={number(p.get('weighted_kappa_linear'))}")
        alpha = part.get("krippendorff_alpha_nominal")
        click.echo(f"  Krippendorff's alpha (nominal): {number(alpha)}")
