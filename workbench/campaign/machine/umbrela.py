"""`import qrels --machine --format umbrela FILE`: UMBRELA's labels as a machine assessor's.

Rows name the query and the passage by their texts: each is matched to the stored query
whose title is exactly that text and the stored document whose text is exactly that text;
an unmatched (or ambiguous) row is an error naming file and line. The grade is read from
`prediction` by the project's own parser (campaign/machine/prompts.read_grade): a prose
answer is a recorded failure with its raw text, never a grade 0 (UMBRELA's own parser takes
any digit in the text). All or nothing: one transaction for the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from workbench.campaign.database import Database
from workbench.errors import InputError


@dataclass(frozen=True)
class UmbrelaSummary:
    assessor: str
    path: str
    rows: int
    labels: int
    failures: int

    def message(self) -> str:
        return (f"imported {self.rows} UMBRELA rows from {os.path.basename(self.path)} as machine assessor "
                f"{self.assessor!r}: {self.labels} labels, {self.failures} answers without a grade "
                "(kept as failures with their text)")


def import_umbrela(db: Database, path: str, *, progress=None, assessor: str | None = None,
                   model: str | None = None, prompt: str = "", endpoint: str = "") -> UmbrelaSummary:
    from workbench.campaign.scale import show_scale
    from workbench.campaign.judging.grades import apply_grades
    from workbench.campaign.machine.prompts import read_grade
    from workbench.campaign.machine.provenance import ensure_machine, make_provenance
    from workbench.campaign.writing import write_transaction
    from workbench.names import check_name
    from workbench.store.machine import FAILURE, LABEL, append_call, ids_by_text

    rows = read_umbrela_rows(path)
    model = model or rows[0].model
    name = check_name(assessor or model)
    grades = [g for g, _, _ in show_scale(db)]
    provenance = make_provenance(model, endpoint=endpoint, prompt=prompt,
                                 origin=f"import {os.path.basename(path)} (umbrela)")
    labels = failures = 0
    with write_transaction(db) as s:
        by_query, by_doc = ids_by_text(s, [r.query for r in rows], [r.passage for r in rows])
        matched = []
        for r in rows:
            qs, ds = by_query.get(r.query, []), by_doc.get(r.passage, [])
            for what, found in (("query", qs), ("passage", ds)):
                if not found:
                    raise InputError(path, r.line, f"no stored {'query title' if what == 'query' else 'document text'} "
                                     f"is exactly this row's {what} text")
                if len(found) > 1:
                    raise InputError(path, r.line, f"the row's {what} text matches {len(found)} stored "
                                     f"{'queries' if what == 'query' else 'documents'}")
            matched.append((qs[0], ds[0], r))
        aid = ensure_machine(s, name, provenance)
        outcomes = []
        for q, d, r in matched:
            grade, why = read_grade(r.prediction, grades)
            outcomes.append((q, d, r, grade, why))
        apply_grades(s, aid, [(q, d, g) for q, d, _r, g, _w in outcomes if g is not None])
        for q, d, r, grade, why in outcomes:
            append_call(s, aid, q, d, outcome=LABEL if grade is not None else FAILURE, grade=grade,
                        raw=r.prediction, error=why, attempts=1, seconds=0.0)
            if grade is None:
                failures += 1
            else:
                labels += 1
        if progress is not None:
            progress("committing", len(rows), len(rows))
    return UmbrelaSummary(name, path, len(rows), labels, failures)


def read_umbrela_rows(path: str):
    from workbench.formats.umbrela import read_umbrela

    return read_umbrela(path)
