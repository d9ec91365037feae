"""`workbench queue`: what an assessor has left to grade, for grading without the TUI.

The items come in the judging screen's order (queries in import order, then the queue's
deterministic shuffle) and are as blind as that screen: documents only, no system, rank,
score or other assessor's grade. Hidden repeats (`pool --repeat`) are second showings of a
document, which only the judging screen presents, so they are not listed. In an adaptive
pool (`pool --method mtf|bandit`) each grade serves the next document: run `queue` again.

    workbench queue -a bob --format tsv | while IFS=$'\\t' read -r q d; do ...; done
    workbench queue -a llm --format jsonl | my-judge | workbench grade -a llm --batch -
"""

from __future__ import annotations

import json
import sys

import click

from workbench.cli import checked_name, db_option, echo_table, resolve_db, table_text

FORMATS = ("table", "tsv", "jsonl")


@click.command("queue")
@click.option("--assessor", "-a", required=True, metavar="NAME", callback=checked_name,
              help="Whose queue.")
@click.argument("query", required=False)
@click.option("--limit", "-n", type=click.IntRange(min=1), default=None,
              help="At most N items (the next N to grade).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="table: query, place in the queue, document, title; tsv: `query<TAB>document` "
                   "lines; jsonl: one object per item with the document's and the query's text.")
@db_option
@click.pass_context
def queue(ctx, assessor, query, limit, fmt, db) -> None:
    """List the documents ASSESSOR has left to grade (of QUERY, or of every query), in
    judging order, blind as the judging screen. Grade them with `workbench grade`."""
    from workbench.campaign.assessors.roster import check_assessor
    from workbench.campaign.assessors.visibility import ASSESSOR_COMMAND, ITEM, may_show, only_shown
    from workbench.campaign.judging.assessing import open_queue
    from workbench.campaign.database import Database

    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        check_assessor(database, assessor)  # a typo: the nearest assessor's name
        found = open_queue(database, assessor, query, limit)
    finally:
        database.close()
    items = found.items
    rows = list(zip(items.queries, (items.positions + 1).tolist(), items.documents,
                    items.titles, items.texts))
    if fmt == "tsv":
        sys.stdout.writelines(f"{q}\t{d}\n" for q, _, d, _, _ in rows)
    elif fmt == "jsonl":
        views = {v.query: v for v in found.queries}
        for q, place, d, title, text in rows:
            v = views[q]
            sys.stdout.write(json.dumps(only_shown(ASSESSOR_COMMAND, ITEM, {
                "query": q, "place": place, "document": d, "title": title, "text": text,
                "query_title": v.title, "query_description": v.description,
                "query_narrative": v.narrative,
            }), ensure_ascii=False) + "\n")
    else:
        columns = [c for c in ("query", "place", "document", "title")
                   if may_show(ASSESSOR_COMMAND, ITEM, c)]
        cells = [tuple(str(v) if c == "place" else table_text(v) if c == "title" else v
                       for c, v in zip(("query", "place", "document", "title"), row[:4])
                       if c in columns) for row in rows]
        echo_table(tuple(columns), cells, lambda j, _: columns[j] == "place")
    if not rows:
        where = f" on {query}" if query else ""
        click.echo(f"workbench: {assessor} has nothing left to grade{where}", err=True)
