"""The stored campaign as a planning Collection: every stored run and the current consensus
qrels (or one assessor's), for `simulate` and `reusability` on the database."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.campaign.database import Database
from workbench.campaign.scoring.qrels import qrels_ids
from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.scoring.scores import load_runs
from workbench.defaults import PLANNING_MEASURE
from workbench.evaluation.stored import id_keys
from workbench.planning.collection import Collection, collection_from_arrays

if TYPE_CHECKING:
    from workbench.planning.reusability import Reusability
    from workbench.planning.simulate import Simulation


def stored_collection(db: Database, source: QrelsSource | None = None) -> Collection:
    """Every stored run and the qrels of one source (default: the majority consensus).
    Documents are keyed by database id: the planning reports name runs, never documents."""
    with db.read() as s:
        runs = load_runs(s)
        qi, di, g = qrels_ids(s, source)
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


@dataclass(frozen=True)
class PlanningReport:
    """What the lead's planning screen shows: each method's relevant-found curve and the
    leave-one-out test at one pool depth."""

    simulations: tuple[Simulation, ...]  # one per method
    reusability: Reusability
    n_queries: int
    n_runs: int


def planning_report(db: Database, *, depth: int | None = None, measure: str = PLANNING_MEASURE,
                    points: int = 8) -> PlanningReport:
    """Simulations of every method at `points` budgets up to the whole depth-`depth` pool
    (judged against the majority consensus), and the leave-one-out test at that depth
    (default: the campaign's own pool depth)."""
    import numpy as np

    from workbench.campaign.settings import campaign_pool_depth

    from workbench.planning.methods import METHODS
    from workbench.planning.reusability import reusability
    from workbench.planning.simulate import simulate

    if depth is None:
        depth = campaign_pool_depth(db)
    c = stored_collection(db)
    top = c.row_rank <= depth
    pairs = np.unique(c.pair_keys(c.row_query[top], c.row_doc[top]))
    pool = pairs.size
    per_query = np.bincount(pairs // max(c.doc_names.size, 1), minlength=c.n_queries)
    # budgets are spread evenly over queries: the last one lets every query judge its pool
    budgets = sorted({int(round(pool * i / points)) for i in range(1, points)}
                     | {int(per_query.max(initial=0)) * c.n_queries})
    sims = simulate(c, list(METHODS), budgets or [0], measure=measure, depth=depth) if c.n_runs else []
    return PlanningReport(tuple(sims), reusability(c, depth=depth, measure=measure),
                          c.n_queries, c.n_runs)
