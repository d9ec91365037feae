"""Managing the campaign: what it holds (`workbench list`), removing and renaming, and a
stored run written back as a TREC run file.

Removal never loses judgments silently: a query or assessor with judgments (or final
grades) is refused unless `force`, and its judgment events are archived first
(store/removal.py). Each removal is one transaction, serialized with imports (an import
could otherwise create the stub row being removed).
"""

from __future__ import annotations

import math

from dataclasses import dataclass
from typing import TextIO

from workbench.campaign.database import Database
from workbench.campaign.settings import describe_idle_cap, idle_cap
from workbench.campaign.writing import IMPORTS
from workbench.errors import NotFoundError, UsageError

LISTS = ("queries", "docs", "runs", "assessors", "cant-judge")
SERIALIZED = IMPORTS  # removals queue with imports


@dataclass(frozen=True)
class Listing:
    """A table for `workbench list`: column names, then one row per item."""

    what: str
    header: tuple[str, ...]
    rows: list[tuple]
    note: str = ""  # a line for people under the table (not in csv or json)


def listing(db: Database, what: str) -> Listing:
    """The rows of `workbench list WHAT`."""
    from workbench.store import catalog

    if what not in LISTS:
        raise UsageError(f"list what? one of {', '.join(LISTS)}")
    if what in ("queries", "docs", "runs"):  # SQL text: through the driver alone (dbapi)
        with db.reader() as conn:
            return _counted(conn, what)
    from workbench.campaign.judging import pace as assessor_watch
    from workbench.store.machine import HUMAN, assessor_kinds

    if what == "cant-judge":
        from workbench.campaign.judging.marks import list_cant_judge

        rows = [(m.query, m.document, m.assessor, m.reason, m.at.isoformat(timespec="seconds"))
                for m in list_cant_judge(db)]
        return Listing(what, ("query", "document", "assessor", "reason", "marked_at"), rows)
    cap = idle_cap(db)
    with db.read() as s:
        c = catalog.assessor_counts(s)
        watch = assessor_watch.read_watch(s, idle_cap=cap)
        kinds = assessor_kinds(s)
        from workbench.campaign.machine.self_consistency import sample_agreement
        from workbench.store.external_ids import assessor_id

        consistency = {name: sample_agreement(s, assessor_id(s, name)) for name in c.names
                       if kinds.get(name) == "machine"}
    rows = []
    for i, name in enumerate(c.names):
        col = {k: int(v[i]) for k, v in c.columns.items()}
        done = col["judged"] - col["outside"] + col["cant_judge"]  # a mark settles an item too
        rows.append((name, kinds.get(name, HUMAN), col["assigned"], col["judged"], _share(done, col["assigned"]),
                     col["outside"], col["repeats"], col["cant_judge"],
                     *(assessor_watch.list_values(watch.of(name)) if watch.watched(name)
                       else assessor_watch.NOT_WATCHED),
                     *_consistency_values(consistency.get(name))))
    return Listing(what, ("assessor", "kind", "assigned", "judged", "done", "outside_assignment", "repeats",
                         "cant_judge", *assessor_watch.LIST_COLUMNS, "sample_fleiss_kappa",
                         "sample_unanimous"), rows,
                   "assigned counts documents (first showings); the judging screen counts "
                   "items, assigned + hidden repeats; seconds per document count up to the "
                   f"idle cap, {describe_idle_cap(cap)} (workbench campaign --idle-cap)")


def _counted(conn, what: str) -> Listing:
    from workbench.store import catalog

    if what == "queries":
        c = catalog.query_counts(conn)
        rows = [(n, t, *(int(c.columns[k][i]) for k in ("pool", "judged", "judgments", "assessors")),
                 _share(c.columns["judged"][i], c.columns["pool"][i]))
                for i, (n, t) in enumerate(zip(c.names, c.titles))]
        return Listing(what, ("query", "title", "pool", "judged", "judgments", "assessors", "done"), rows)
    if what == "docs":
        c = catalog.document_counts(conn)
        rows = [(n, t, int(c.columns["pooled"][i]), int(c.columns["judgments"][i]))
                for i, (n, t) in enumerate(zip(c.names, c.titles))]
        return Listing(what, ("document", "title", "pooled", "judgments"), rows)
    from workbench.store.answers import answer_counts

    c = catalog.run_counts(conn)
    answers = answer_counts(conn)  # generated answers (docs/nuggets.md); 0 for ranked runs
    rows = [(n, int(c.columns["queries"][i]), int(c.columns["results"][i]), answers.get(n, 0))
            for i, n in enumerate(c.names)]
    return Listing(what, ("run", "queries", "results", "answers"), rows)


def _share(part, whole) -> float:
    return float(part) / float(whole) if whole else float("nan")


def remove(db: Database, kind: str, name: str, *, force: bool = False) -> str:
    """Remove a run, query or assessor; the one-line summary. A query or assessor whose
    removal deletes judgments or final grades needs `force`."""
    from workbench.campaign.writing import write_transaction
    from workbench.store import removal

    if kind not in ("run", "query", "assessor"):
        raise UsageError(f"remove what? run, query or assessor, not {kind!r}")
    with write_transaction(db, serialize_as=SERIALIZED) as s:
        rid = removal.id_of(s, kind, name)
        if rid is None:
            raise NotFoundError(f"unknown {kind} {name!r}")
        if kind == "run":
            from workbench.store.nuggets import archive_run

            events = archive_run(s, rid, f"run {name}")  # its answers and nugget labels
            removal.remove_run(s, rid)
            kept = f"; its answers removed, {events} nugget label events archived" if events else ""
            return f"removed run {name!r} (judgments do not depend on runs: none lost{kept})"
        lost = removal.judgments_lost(s, **{f"{kind}_id": rid})
        if lost and not force:
            raise UsageError(
                f"{kind} {name!r} has {lost} judgment{'s' if lost != 1 else ''} or final grade"
                f"{'s' if lost != 1 else ''}; removing it deletes them (their history is kept): "
                f"pass --force to remove it anyway"
            )
        archived = (removal.remove_query if kind == "query" else removal.remove_assessor)(s, rid, name)
    return (f"removed {kind} {name!r}: {lost} judgment{'s' if lost != 1 else ''} deleted, "
            f"{archived} history event{'s' if archived != 1 else ''} archived")


def rename_run(db: Database, old: str, new: str) -> str:
    from workbench.campaign.writing import write_transaction
    from workbench.names import check_id
    from workbench.store import removal

    check_id(new, "run tag")
    with write_transaction(db, serialize_as=SERIALIZED) as s:
        rid = removal.id_of(s, "run", old)
        if rid is None:
            raise NotFoundError(f"unknown run {old!r}")
        if old != new and removal.id_of(s, "run", new) is not None:
            raise UsageError(f"a run is already called {new!r}")
        removal.rename_run(s, rid, new)
    return f"renamed run {old!r} to {new!r}"


def export_run(db: Database, tag: str, out: TextIO) -> int:
    """The stored run as TREC run lines, in trec_eval's order with ranks 1.. per query and
    scores that read back exactly; the number of lines."""
    from workbench.campaign.scoring.scores import load_runs
    from workbench.formats.trec import write_run
    from workbench.store.catalog import document_names

    with db.read() as s:
        runs = load_runs(s)
        docs = document_names(s)
    if tag not in runs.stored.tags:
        raise NotFoundError(f"unknown run {tag!r}")
    i = runs.stored.tags.index(tag)
    rows = slice(int(runs.stored.offsets[i]), int(runs.stored.offsets[i + 1]))
    qid = runs.qid_bytes[rows]
    docno = docs.of(runs.stored.document_id[rows])
    write_run(out, qid, docno, runs.stored.score[rows], tag)
    return int(qid.size)


def _consistency_values(sc: dict | None) -> tuple:
    """A machine's Fleiss' kappa over its samples and share of unanimous items
    (`autojudge --samples N`); NaN (printed "–", null in JSON) for anyone without samples."""
    if sc is None:
        return (math.nan, math.nan)
    return (sc["fleiss_kappa"], sc["unanimous"])
