"""Validation samples (`workbench pool --validate MACHINE`): which of a machine assessor's
labelled items people judge, so that `workbench calibrate` can say where its labels hold.

- ``stratified``: the machine's labelled items are split by the grade it gave (the strata);
  the budget is shared equally between the grades (a stratum smaller than its share gives
  the rest to the others), and each stratum's items are drawn at random without
  replacement. An item of grade g is chosen with probability pi_g = n_g / N_g (n_g drawn of
  N_g labelled): stored with the item, so that calibrate can weight each judged item by
  1 / pi_g and estimate the agreement over everything the machine labelled
  (Horvitz-Thompson / Hajek). Rare grades (the relevant ones) get enough items to measure.
- ``disagreement``: the items where the machine's grade differs most from another machine's
  grade for the same item, or from the grade of the qrels the lead names (`against`); ties
  drawn at random. It finds the machine's errors fast but is no probability sample: no
  inclusion probability is stored and calibrate does not weight it.

The chosen items go to the named people's queues like any pooled document: in the
deterministic per-(assessor, query) shuffle, shuffled among the items not reached yet (as a
re-pool does), with nothing that tells them apart, not even their place in the queue. People
judge them blind; the machine's label is never shown (docs/architecture.md#rules-that-hold-everywhere).

A person is never asked to judge an item twice: an item goes to a person's queue only if
it is not there already and the person has neither graded it nor marked it "can't judge"
(grades imported from qrels count: they come with no queue entry). The sample itself is
drawn from all the machine's labels, those people already judged included: their human
grades are known, so they count in calibrate (with the same inclusion probability) without
anyone judging them again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.campaign.assessors.roster import known_assessor
from workbench.campaign.database import Database
from workbench.campaign.assessors.roster import get_or_create_assessor
from workbench.campaign.pooling.assign import (
    SERIALIZED,
    QueueRow,
    queue_order,
    reshuffle_tail,
    stable_seed,
)
from workbench.campaign.scoring.qrels import qrels_ids
from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.writing import write_transaction
from workbench.errors import UsageError
from workbench.names import check_name
from workbench.store import external_ids
from workbench.store.imported_grades import assessor_marks
from workbench.store.judgment_arrays import current_judgments, judgment_grades
from workbench.store.machine import MACHINE, assessor_kind, machine_assessor_ids
from workbench.store.pools import (
    add_assignments,
    add_pool_entries,
    pool_arrays,
    queue_rows,
    remove_assignments,
)
from workbench.store.validation import add_validation_items, validation_items

STRATEGIES = ("stratified", "disagreement")


@dataclass(frozen=True)
class Stratum:
    """One machine grade: `population` items labelled, `sampled` chosen, and the inclusion
    probability sampled / population (NaN for a disagreement sample)."""

    grade: int
    population: int
    sampled: int
    probability: float


@dataclass(frozen=True)
class ValidationSample:
    machine: str
    strategy: str
    budget: int
    seed: int
    n_items: int
    strata: tuple[Stratum, ...]
    queued: dict[str, int]  # assessor -> items appended to their queue


def allocate(sizes: Sequence[int], budget: int) -> np.ndarray:
    """Equal allocation of `budget` over strata of `sizes`, none above its size: each
    round gives every stratum with room an equal share (the remainder to the first ones)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    take = np.zeros_like(sizes)
    left = min(int(budget), int(sizes.sum()))
    while left > 0:
        room = np.flatnonzero(take < sizes)
        share, extra = divmod(left, room.size)
        add = np.full(room.size, share, dtype=np.int64)
        add[:extra] += 1
        add = np.minimum(add, sizes[room] - take[room])
        take[room] += add
        left -= int(add.sum())
    return take


def choose_stratified(grades: np.ndarray, budget: int, rng: np.random.Generator):
    """(indices chosen, their inclusion probabilities, the strata) for a stratified sample
    of `budget` items by grade; `grades` are in a fixed order (sorted items)."""
    levels, inverse, sizes = np.unique(grades, return_inverse=True, return_counts=True)
    take = allocate(sizes, budget)
    chosen, probs, strata = [], [], []
    for s, (g, n, k) in enumerate(zip(levels.tolist(), sizes.tolist(), take.tolist())):
        members = np.flatnonzero(inverse == s)
        pick = np.sort(rng.choice(members, size=k, replace=False)) if k else members[:0]
        chosen.append(pick)
        probs.append(np.full(k, k / n))
        strata.append(Stratum(int(g), int(n), int(k), k / n))
    idx = np.concatenate(chosen) if chosen else np.zeros(0, np.int64)
    p = np.concatenate(probs) if probs else np.zeros(0)
    order = np.argsort(idx, kind="stable")
    return idx[order], p[order], tuple(strata)


def choose_disagreement(gap: np.ndarray, budget: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of the `budget` items with the largest grade gap (> 0), ties at random."""
    candidates = np.flatnonzero(gap > 0)
    tie = rng.random(candidates.size)
    order = np.lexsort((tie, -gap[candidates]))
    return np.sort(candidates[order[:budget]])


def _lookup(keys: np.ndarray, values: np.ndarray, wanted: np.ndarray, missing: int) -> np.ndarray:
    """values at the positions of `wanted` in the sorted unique `keys`; `missing` elsewhere."""
    out = np.full(wanted.size, missing, dtype=np.int64)
    if keys.size == 0 or wanted.size == 0:
        return out
    pos = np.clip(np.searchsorted(keys, wanted), 0, keys.size - 1)
    hit = keys[pos] == wanted
    out[hit] = values[pos[hit]]
    return out


def validate_machine(
    db: Database,
    machine: str,
    *,
    budget: int,
    strategy: str = "stratified",
    assessors: Sequence[str] = (),
    seed: int = 0,
    against: QrelsSource | None = None,
    on_wait: Callable[[], None] | None = None,
) -> ValidationSample:
    """Choose `budget` of `machine`'s labelled items for people to judge, record them with
    their inclusion probabilities, and append them to `assessors`' queues (one transaction).
    A machine has one validation sample: a second call is refused (the probabilities of a
    sample drawn in two goes would no longer be the stored ones)."""
    if strategy not in STRATEGIES:
        raise UsageError(f"unknown validation strategy {strategy!r}; expected {' or '.join(STRATEGIES)}")
    if budget < 1:
        raise UsageError(f"the validation budget must be at least 1, got {budget}")
    if strategy == "stratified" and against is not None:
        raise UsageError("--against chooses a disagreement sample's reference; a stratified sample uses the machine's grades only")
    names = list(dict.fromkeys(check_name(a) for a in assessors))
    with write_transaction(db, serialize_as=SERIALIZED, on_wait=on_wait) as session:
        mid = known_assessor(session, machine)
        if assessor_kind(session, mid) != MACHINE:
            raise UsageError(f"{machine!r} is not a machine assessor; --validate names one")
        if len(validation_items(session, mid)):
            raise UsageError(f"{machine!r} already has a validation sample; calibrate it, or "
                             "remove and re-import the machine to draw a new one")
        for name in names:
            aid = external_ids.assessor_id(session, name)
            if aid is not None and assessor_kind(session, aid) == MACHINE:
                raise UsageError(f"{name!r} is a machine assessor: validation items go to people")
        labels = judgment_grades(session, assessor_id=mid)
        width = int(labels.document_id.max(initial=0)) + 1
        order = np.lexsort((labels.document_id, labels.query_id))
        qi, di, g = labels.query_id[order], labels.document_id[order], labels.grade[order]
        if qi.size == 0:
            raise UsageError(f"{machine!r} has no labels to validate")
        rng = np.random.default_rng(stable_seed(seed, "validate", machine))
        if strategy == "stratified":
            idx, prob, strata = choose_stratified(g, budget, rng)
        else:
            gap = _disagreement_gap(session, mid, qi, di, g, width, against)
            idx = choose_disagreement(gap, budget, rng)
            prob = np.full(idx.size, np.nan)
            strata = tuple(
                Stratum(int(v), int((g == v).sum()), int((g[idx] == v).sum()), float("nan"))
                for v in np.unique(g).tolist())
        qi, di, grade = qi[idx], di[idx], g[idx]
        add_validation_items(session, mid, strategy, seed, qi, di, grade, prob)
        _add_missing_pool_entries(session, qi, di)
        queued = {name: _queue(session, get_or_create_assessor(session, name), name, qi, di, seed)
                  for name in names}
    return ValidationSample(machine, strategy, budget, seed, int(idx.size), strata, queued)


def _disagreement_gap(session, mid: int, qi, di, g, width: int, against: QrelsSource | None) -> np.ndarray:
    """For each of the machine's items (sorted by qi, di): the largest |grade difference|
    to another machine's label or to the `against` qrels; 0 where nobody else graded it."""
    keys = qi * width + di
    gap = np.zeros(keys.size, dtype=np.int64)
    others = [int(a) for a in machine_assessor_ids(session).tolist() if int(a) != mid]
    if others:
        j = current_judgments(session, assessor_ids=others)
        inside = j.document_id < width
        k = j.query_id[inside] * width + j.document_id[inside]
        pos = np.searchsorted(keys, k)
        pos_ok = np.minimum(pos, keys.size - 1)
        hit = keys[pos_ok] == k
        np.maximum.at(gap, pos_ok[hit], np.abs(j.grade[inside][hit] - g[pos_ok[hit]]))
    if against is not None:
        aq, ad, ag = qrels_ids(session, against)
        inside = ad < width
        theirs = _lookup(aq[inside] * width + ad[inside], ag[inside], keys, -1)
        known = theirs >= 0
        gap[known] = np.maximum(gap[known], np.abs(theirs[known] - g[known]))
    return gap


def _add_missing_pool_entries(session, qi: np.ndarray, di: np.ndarray) -> None:
    """Validation items belong to the pool (a machine may have labelled a run's top k
    beyond it); those missing are added with best rank 0 (not known from a pooling run)."""
    pool = pool_arrays(session)
    width = int(max(di.max(initial=0), pool.document_id.max(initial=0))) + 1
    have = pool.query_id * width + pool.document_id
    want = qi * width + di
    missing = ~np.isin(want, have)
    add_pool_entries(session, qi[missing], di[missing], np.zeros(int(missing.sum()), np.int64))


def _queue(session, aid: int, name: str, qi: np.ndarray, di: np.ndarray, seed: int) -> int:
    """Add the items the assessor's queue lacks and that the assessor has not judged (a
    grade or a "can't judge" mark), per query in the assessor's shuffle, shuffled among the
    unjudged items already queued as a re-pool does (assign.reshuffle_tail): appended after
    everything queued, a stratified sample of a skewed machine made the queue's tail tell
    (51% machine-"3" there against 9% before it)."""
    has: set[tuple[int, int]] = set()
    next_pos: dict[int, int] = {}
    existing: dict[int, list[tuple[int, int, int, bool, bool]]] = {}
    for row_id, _aid, q, d, pos, is_repeat, settled in queue_rows(session, [aid]):
        has.add((q, d))
        next_pos[q] = max(next_pos.get(q, 0), pos + 1)
        existing.setdefault(q, []).append((row_id, d, pos, bool(is_repeat), bool(settled)))
    # what the person graded or marked, with or without a queue entry: never asked again
    mine = current_judgments(session, assessor_ids=[aid])
    has.update(zip(mine.query_id.tolist(), mine.document_id.tolist()))
    marks, _reasons = assessor_marks(session, aid)
    has.update((int(q), int(d)) for q, d, _id in marks.tolist())
    qnames = dict(zip(np.unique(qi).tolist(), external_ids.query_ext_ids(session, np.unique(qi)).tolist()))
    dnames = external_ids.document_ext_ids(session, di).tolist()
    by_query: dict[int, dict[str, int]] = {}
    for q, d, dname in zip(qi.tolist(), di.tolist(), dnames):
        if (q, d) not in has:
            by_query.setdefault(q, {})[str(dname)] = d
    rows, moved = [], []
    for q, docs in sorted(by_query.items(), key=lambda kv: str(qnames[kv[0]])):
        query = str(qnames[q])
        ordered = queue_order(list(docs), seed=seed, assessor=name, query=query)
        queued = existing.get(q, [])
        queued_ids = np.array([d for _r, d, _p, _rep, _s in queued], dtype=np.int64)
        queued_names = [str(n) for n in external_ids.document_ext_ids(session, queued_ids).tolist()]
        id_of = {**dict(zip(queued_names, queued_ids.tolist())), **docs}
        removed, placed = reshuffle_tail(
            [QueueRow(r, dn, pos, rep, done) for (r, _d, pos, rep, done), dn in zip(queued, queued_names)],
            [(doc, False) for doc in ordered], next_pos.get(q, 0),
            seed=seed, assessor=name, query=f"validate {query}",
        )
        moved.extend(removed)
        rows.extend((aid, q, id_of[doc], pos, rep) for doc, pos, rep in placed)
    remove_assignments(session, moved)
    add_assignments(session, rows)
    return sum(len(docs) for docs in by_query.values())


__all__ = ["STRATEGIES", "Stratum", "ValidationSample", "allocate", "choose_disagreement",
           "choose_stratified", "validate_machine"]
