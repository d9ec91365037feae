"""`workbench import dataset ID`: an ir_datasets dataset into the campaign, all or nothing.

Everything is read from ir_datasets first (`formats.irds`: a dataset whose files are not
on this machine fails here, in one line, before anything is written); then ONE write
transaction writes the queries (every field; `default_text()` is the title: the text the
judging screen shows), the documents, the relevance scale and the qrels as one assessor's
grades, through the importers' own writers (`importing.upsert_rows`, `write_qrels`).

- Queries: title = `default_text()`, description / narrative from the fields of those
  names when the dataset has them, else the other fields joined as `name: text` lines.
- Scale: the dataset's `qrels_defs()` become the campaign's scale when no grade exists yet
  and its levels are 0, 1, 2 ... (the scale's rule, campaign/scale.py); otherwise the
  campaign's scale stays and the summary says why.
- Qrels: negative grades (ir_datasets' "judged, but not to count", e.g. -1 or -2) are
  stored as written, as `import qrels` stores them: in the pool but unjudged, as trec_eval
  reads them (docs/file-formats.md); the summary counts them.
- Documents (`docs`): ``pooled`` (default) the judged documents and those of the
  campaign's pool, if it has one; ``all`` every document of the dataset; ``none``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.campaign.catalog.importing import (
    ImportSummary,
    Progress,
    _import_transaction,
    upsert_rows,
    write_qrels,
)
from workbench.campaign.database import Database
from workbench.errors import UsageError
from workbench.names import check_name

__all__ = ["DatasetSummary", "DOCS", "import_dataset"]

DOCS = ("pooled", "all", "none")
LABEL_CHARS = 40  # a scale label is short (it is shown beside each judging key)


@dataclass(frozen=True)
class DatasetSummary:
    ds_id: str
    queries: ImportSummary
    documents: ImportSummary | None
    qrels: ImportSummary | None
    negative: int  # of the judgments, how many are negative grades
    scale: str  # what happened to the scale, one clause

    def message(self) -> str:
        q, d, j = self.queries, self.documents, self.qrels
        parts = [f"imported irds:{self.ds_id}: {q.records} queries ({q.inserted} new, "
                 f"{q.updated} updated)"]
        if d is not None:
            parts.append(f"{d.records} documents ({d.inserted} new, {d.updated} updated)")
        if j is not None:
            parts.append(f"{j.records} judgments by {j.assessor!r} for {j.n_queries} queries "
                         f"({j.inserted} new, {j.updated} changed, {j.unchanged} unchanged)")
        if self.negative:
            parts.append(f"{self.negative} of them negative (in the pool, unjudged, as "
                         f"trec_eval reads them)")
        parts.append(self.scale)
        return "; ".join(parts)


def _query_row(q) -> dict:
    fields = dict(q.fields)
    description = fields.pop("description", "")
    narrative = fields.pop("narrative", "")
    title_field = next((k for k, v in fields.items() if v == q.text), None)
    if title_field is not None:
        fields.pop(title_field)
    if not description:
        description = "\n".join(f"{k}: {v}" for k, v in fields.items() if v)
    return {"ext_id": q.query_id, "title": q.text, "description": description,
            "narrative": narrative}


def _doc_row(d) -> dict:
    fields = d.fields
    return {"ext_id": d.doc_id, "title": fields.get("title", ""), "text": d.text,
            "url": fields.get("url") or None}


def _scale_levels(defs: dict[int, str]) -> list[tuple[int, str, str]] | None:
    """The qrels_defs as scale levels, or None when they are not 0, 1, 2 ... (the scale's
    rule)."""
    from workbench.campaign.scale import MAX_LEVELS

    grades = sorted(defs)
    if len(grades) < 2 or grades != list(range(len(grades))) or len(grades) > MAX_LEVELS:
        return None
    levels = []
    for g in grades:
        text = " ".join(defs[g].split())
        label = text.split(":")[0].split(".")[0].strip()[:LABEL_CHARS] or f"grade {g}"
        levels.append((g, label, text))
    return levels


def _pool_docs(session) -> list[str]:
    from workbench.store.pools import pool_documents

    return [ext for _, _, ext in pool_documents(session)]


def import_dataset(db: Database, ds_id: str, *, assessor: str, docs: str = "pooled",
                   progress: Progress | None = None) -> DatasetSummary:
    from workbench.formats import irds
    from workbench.formats.trec import Qrels
    from workbench.store.scale_levels import any_grade_given, replace_scale

    if docs not in DOCS:
        raise UsageError(f"--docs is one of {', '.join(DOCS)}")
    assessor = check_name(assessor)
    progress = progress or (lambda stage, done, total: None)
    where = f"irds:{ds_id}"
    progress("reading", 0, None)
    ds = irds.dataset(ds_id)
    queries = irds.queries(ds_id, ds) if ds.has_queries() else []
    qrels = irds.qrels(ds_id, ds) if ds.has_qrels() else None
    defs = irds.qrels_defs(ds) if qrels is not None else {}
    if not queries and qrels is None:
        raise UsageError(f"{where}: the dataset has neither queries nor qrels")
    negative = 0
    if qrels is not None:
        negative = int((qrels.rel < 0).sum())
        # "line": the qrel's place in qrels_iter(), for an error (a grade off the scale)
        qrels = Qrels(qrels.qid, qrels.docno, qrels.rel, where, np.arange(1, qrels.qid.size + 1))
    wanted: list[str] | None = None
    if docs == "pooled" and qrels is not None:
        wanted = list(dict.fromkeys(b.decode("utf-8") for b in qrels.docno.tolist()))
    documents = None
    if docs == "all" or (docs == "pooled" and ds.has_docs()):
        if docs == "pooled":
            with db.read() as s:
                wanted = list(dict.fromkeys((wanted or []) + _pool_docs(s)))
        documents = list(irds.docs(ds_id, None if docs == "all" else wanted, ds))
    total = [0]
    with _import_transaction(db, progress, lambda: total[0]) as session:
        scale = "the campaign's scale kept"
        levels = _scale_levels(defs) if defs else None
        if defs and any(g < 0 for g in defs):
            scale = "the campaign's scale kept (the dataset's levels include negative grades)"
        elif defs and levels is None:
            scale = "the campaign's scale kept (the dataset's levels are not 0, 1, 2 ...)"
        elif levels is not None and any_grade_given(session):
            scale = "the campaign's scale kept (grades exist already)"
        elif levels is not None:
            replace_scale(session, levels)
            scale = "scale set from the dataset: " + ", ".join(f"{g}={l}" for g, l, _ in levels)
        q_summary = upsert_rows(session, "queries", where, "query", iter(queries), _query_row,
                                progress)
        d_summary = None
        if documents is not None:
            d_summary = upsert_rows(session, "documents", where, "document", iter(documents),
                                    _doc_row, progress)
        j_summary = None
        if qrels is not None and len(qrels.qid):
            j_summary = write_qrels(session, where, qrels, assessor, f"imported from {where}",
                                    progress)
        total[0] = q_summary.records + (d_summary.records if d_summary else 0) + (
            j_summary.records if j_summary else 0)
    return DatasetSummary(ds_id, q_summary, d_summary, j_summary, negative, scale)
