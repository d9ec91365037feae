"""`workbench adjudicate QUERY DOC GRADE --lead NAME [--note TEXT] [--same-person]`: the
lead's final grade of an item, recorded under the lead's own name (campaign/agreement/adjudication.py);
`--clear` instead of GRADE removes it. The TUI's disagreements screen does the same."""

from __future__ import annotations

import click

from workbench.cli import checked_name, db_option, resolve_db


@click.command("adjudicate")
@click.argument("query")
@click.argument("document")
@click.argument("grade", type=int, required=False)
@click.option("--lead", envvar="WORKBENCH_LEAD", required=True, metavar="NAME", callback=checked_name,
              help="Your own name, recorded as the adjudicator (or $WORKBENCH_LEAD). It must not "
                   "be the name of an assessor who graded the item, unless --same-person.")
@click.option("--same-person", is_flag=True,
              help="The lead is the assessor of that name: decide on your own grade anyway.")
@click.option("--clear", is_flag=True, help="Remove the final grade (no GRADE).")
@click.option("--note", default="", help="Why this final grade (kept with it and in the history).")
@db_option
@click.pass_context
def adjudicate(ctx, query, document, grade, lead, same_person, clear, note, db) -> None:
    """Set the final (adjudicated) grade of QUERY DOCUMENT as the lead NAME.

    The "adjudicated" qrels source (`score --consensus adjudicated`, `export qrels
    --consensus adjudicated`) uses it at once; every decision is kept in the history.
    """
    from workbench.campaign.agreement.adjudication import adjudicate as set_final
    from workbench.campaign.database import Database
    from workbench.names import check_id

    if clear == (grade is not None):
        raise click.UsageError("give GRADE, or --clear to remove the final grade")
    check_id(query, "query id")
    check_id(document, "document id")
    database = Database.open(resolve_db(ctx, db), create=False)
    try:
        record = set_final(database, lead, query, document, grade, note=note, same_person=same_person)
    finally:
        database.close()
    was = "none" if record.old_grade is None else str(record.old_grade)
    now = "removed" if record.new_grade is None else str(record.new_grade)
    click.echo(f"{query} {document}: final grade {now} (was {was}), by {record.adjudicator}")
