"""Judging orders: which document of a query to judge next, by three pooling methods.

Each method sees one query's runs as ranked lists of document codes (trec_eval's order)
and an oracle telling whether a judged document is relevant. It returns the documents in
the order they would be judged, up to a budget. A document is judged once, whichever run
brings it; the choice depends only on the lists, the grades seen so far and the seed, so a
judging session can be replayed exactly.

- depth: every run's rank 1, then every run's rank 2, ... (runs in their given order):
  the classic depth-k pool, cut at the budget.
- mtf: move-to-front pooling (Cormack, Palmer & Clarke, "Efficient construction of large
  test collections", SIGIR 1998). Every run starts with priority 0. The run of highest
  priority (the first such run on a tie) gives its next unjudged document; while its
  documents are relevant it keeps the turn, and on a non-relevant one its priority drops
  by one and the turn passes.
- bandit: Thompson sampling over runs as arms (the Bayesian bandit of Losada, Parapar &
  Barreiro, "Feeling lucky? Multi-armed bandits for ordering judgements in pooling-based
  evaluation", ACM SAC 2016, §3). Each run's chance of giving a relevant document is
  Beta(1 + relevant, 1 + non-relevant) over the documents of its list judged so far; each
  turn draws one value per run (a seeded generator) and the highest draw gives its next
  unjudged document. Documents of a run's list already judged through other runs count as
  the run's evidence as it passes them.

`next_choice` serves a live judging queue one document at a time with the same code: it
replays the method with the grades given so far as the oracle and returns the first
document the replay reaches that has no grade yet.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

METHODS = ("depth", "mtf", "bandit")

Lists = list[np.ndarray]  # one query: each run's document codes in rank order
Oracle = Callable[[int], bool]  # document code -> relevant?


def judging_order(method: str, lists: Lists, relevant: Oracle, budget: int, *,
                  seed: int = 0, known: dict[int, bool] | None = None) -> list[int]:
    """The documents to judge next, in order, up to `budget` (fewer when the lists run
    out). `known`: documents judged already (code -> relevant), which are never chosen
    again and count as evidence for mtf and bandit."""
    if method == "depth":
        return depth_order(lists, budget, known)
    if method == "mtf":
        return mtf_order(lists, relevant, budget, known)
    if method == "bandit":
        return bandit_order(lists, relevant, budget, seed=seed, known=known)
    raise ValueError(f"unknown pooling method {method!r}; choose from {', '.join(METHODS)}")


def next_choice(method: str, lists: Lists, grades: dict[int, bool], *, seed: int = 0,
                pending: frozenset[int] | set[int] = frozenset()) -> int | None:
    """The document to judge next on one query, given the grades so far (code -> relevant):
    the method is replayed from the start with `grades` as the oracle, and the first
    document it reaches that is neither graded nor `pending` is the answer (None when the
    lists are exhausted). Deterministic in (method, lists, grades, pending, seed).

    `pending`: documents already chosen but not graded yet (another assessor's queue); the
    replay passes them as not relevant, so they are never served twice. Replaying, rather
    than continuing a saved state, makes the choice follow the grades as they are now,
    changed grades and several assessors' grades included."""
    if method == "depth":
        taken = {**grades, **{d: False for d in pending}}
        order = depth_order(lists, 1, taken)
        return order[0] if order else None
    oracle = lambda d: bool(grades.get(d, False))  # noqa: E731 (unknown: never asked twice)
    seen = len(grades) + len(pending) + 1
    for doc in judging_order(method, lists, oracle, seen, seed=seed):
        if doc not in grades and doc not in pending:
            return doc
    return None


def depth_order(lists: Lists, budget: int, known: dict[int, bool] | None = None) -> list[int]:
    """Rank by rank across runs: all rank-1 documents (in run order), then rank 2, ..."""
    if not lists or budget <= 0:
        return []
    # the lists as the rows of a matrix, read column by column: by rank, then run
    sizes = np.array([len(x) for x in lists])
    filled = np.arange(int(sizes.max(initial=0))) < sizes[:, None]
    mat = np.zeros(filled.shape, dtype=np.int64)
    mat[filled] = np.concatenate(lists)
    docs = mat.T[filled.T]
    chosen = docs[_first_occurrences(docs)]
    if known:
        chosen = chosen[~np.isin(chosen, np.fromiter(known, dtype=np.int64, count=len(known)))]
    return chosen[:budget].tolist()


def _first_occurrences(codes: np.ndarray) -> np.ndarray:
    """Positions of the first occurrence of each distinct code, in order."""
    n = codes.size
    if n and int(codes.min()) >= 0 and int(codes.max()) < 8 * n + 65536:
        # small codes (a collection's dense ones): a table of first positions, no sort
        first = np.full(int(codes.max()) + 1, n, dtype=np.int64)
        at = np.arange(n)
        np.minimum.at(first, codes, at)
        return np.flatnonzero(first[codes] == at)
    _, first = np.unique(codes, return_index=True)
    return np.sort(first)


class _Lists:
    """Each run's pointer past the documents already judged, and what it has seen."""

    def __init__(self, lists: Lists, judged: dict[int, bool]) -> None:
        self.lists = [np.asarray(x).tolist() for x in lists]
        self.at = [0] * len(lists)
        self.judged = judged
        self.rel = np.zeros(len(lists))
        self.nonrel = np.zeros(len(lists))
        self.done = np.zeros(len(lists), dtype=bool)

    def next_unjudged(self, r: int) -> int | None:
        """Advance run r past judged documents (counting them as its evidence); its next
        unjudged document, or None when the list is exhausted."""
        docs, i = self.lists[r], self.at[r]
        while i < len(docs) and docs[i] in self.judged:
            if self.judged[docs[i]]:
                self.rel[r] += 1
            else:
                self.nonrel[r] += 1
            i += 1
        self.at[r] = i
        if i == len(docs):
            self.done[r] = True
            return None
        return docs[i]

    def judge(self, r: int, doc: int, is_rel: bool) -> None:
        self.judged[doc] = is_rel
        self.at[r] += 1
        if is_rel:
            self.rel[r] += 1
        else:
            self.nonrel[r] += 1


def mtf_order(lists: Lists, relevant: Oracle, budget: int,
              known: dict[int, bool] | None = None) -> list[int]:
    """Move-to-front pooling (Cormack et al. 1998), see the module docstring."""
    state = _Lists(lists, dict(known or {}))
    priority = np.zeros(len(lists))
    out: list[int] = []
    turn: int | None = None
    while len(out) < budget:
        if turn is None:
            open_runs = np.flatnonzero(~state.done)
            if open_runs.size == 0:
                break
            turn = int(open_runs[np.argmax(priority[open_runs])])
        doc = state.next_unjudged(turn)
        if doc is None:
            turn = None
            continue
        is_rel = bool(relevant(doc))
        state.judge(turn, doc, is_rel)
        out.append(doc)
        if not is_rel:
            priority[turn] -= 1
            turn = None
    return out


def bandit_order(lists: Lists, relevant: Oracle, budget: int, *, seed: int = 0,
                 known: dict[int, bool] | None = None) -> list[int]:
    """Thompson-sampling bandit pooling (Losada et al. 2016), see the module docstring."""
    state = _Lists(lists, dict(known or {}))
    rng = np.random.default_rng(seed)
    out: list[int] = []
    open_runs = np.flatnonzero(~state.done)  # changes only when a list runs out
    every = open_runs.size == len(lists)  # then no indexing: the same draws, faster
    while len(out) < budget:
        if open_runs.size == 0:
            break
        if every:
            draws = rng.beta(1.0 + state.rel, 1.0 + state.nonrel)
        else:
            draws = rng.beta(1.0 + state.rel[open_runs], 1.0 + state.nonrel[open_runs])
        r = int(open_runs[np.argmax(draws)])
        doc = state.next_unjudged(r)
        if doc is None:
            open_runs = np.flatnonzero(~state.done)
            every = False
            continue
        is_rel = bool(relevant(doc))
        state.judge(r, doc, is_rel)
        out.append(doc)
    return out
