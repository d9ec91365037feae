"""The stored campaign as a planning Collection: every stored run and the current consensus
qrels (or one assessor's), for `simulate` and `reusability` on the database."""

from __future__ import annotations

from workbench.campaign.database import Database
from workbench.campaign.qrels import qrels_ids
from workbench.campaign.scoring import id_keys, load_runs
from workbench.planning.collection import Collection, collection_from_arrays


def stored_collection(db: Database, *, assessor: str | None = None,
                      consensus: str | None = None) -> Collection:
    """Every stored run and the qrels of one source (default: the majority consensus).
    Documents are keyed by database id: the planning reports name runs, never documents."""
    with db.read() as s:
        runs = load_runs(s)
        qi, di, g = qrels_ids(s, assessor=assessor, consensus=consensus)
    stored = runs.stored
    bounds = stored.offsets.tolist()
    pieces = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
    return collection_from_arrays(
        stored.tags,
        [runs.qid_bytes[p] for p in pieces],
        [runs.docno_bytes[p] for p in pieces],
        [stored.score[p] for p in pieces],
        runs.queries.of(qi), id_keys(di), g, ordered=True,  # stored in trec_eval's order
    )
