"""Whose nugget labels a score, an export or an agreement reads (`--source`), as arrays:
`assessor:NAME` (a person's or a machine's own labels), `majority` (the people's majority
per (nugget, run), a tie going to the lower label, as grades do: campaign/scoring/qrels.py
`combine_grades`), `hybrid:MACHINE` (the people's majority where a person labelled, the
machine's label elsewhere). The spellings are `QrelsSource`'s (campaign/scoring/sources.py)."""

from __future__ import annotations

import numpy as np

from workbench.campaign.assessors.roster import unknown_assessor
from workbench.campaign.scoring.qrels import combine_grades
from workbench.campaign.scoring.sources import QrelsSource
from workbench.errors import UsageError
from workbench.store.nuggets import assignment_arrays, assessor_kinds


def _majority(rows: dict[str, np.ndarray]):
    nugget, system, label = combine_grades(rows["nugget"], rows["system"], rows["label"], "majority")
    return nugget, system, label


def source_labels(reader, source: QrelsSource) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(nugget id, system id, label) arrays, one row per (nugget, system), under `source`."""
    kinds = assessor_kinds(reader)
    by_name = {name: (aid, kind) for aid, (name, kind) in kinds.items()}
    people = [aid for aid, (_, kind) in kinds.items() if kind != "machine"]
    if source.kind == "assessor":
        if source.name not in by_name:
            raise unknown_assessor(source.name)
        rows = assignment_arrays(reader, [by_name[source.name][0]])
        return rows["nugget"], rows["system"], rows["label"]
    if source.kind == "consensus":
        if source.name != "majority":
            raise UsageError(f"nugget labels have no {source.name!r} consensus: use majority, "
                             "assessor:NAME or hybrid:MACHINE")
        return _majority(assignment_arrays(reader, people))
    machine = by_name.get(source.name)
    if machine is None or machine[1] != "machine":
        raise UsageError(f"hybrid:{source.name}: no machine assessor of that name")
    pn, ps, pl = _majority(assignment_arrays(reader, people))
    m = assignment_arrays(reader, [machine[0]])
    if m["nugget"].size == 0:
        return pn, ps, pl
    span = int(max(m["system"].max(initial=0), ps.max(initial=0))) + 1
    taken = np.isin(m["nugget"] * span + m["system"], pn * span + ps)
    keep = ~taken
    return (np.concatenate([pn, m["nugget"][keep]]), np.concatenate([ps, m["system"][keep]]),
            np.concatenate([pl, m["label"][keep]]))
