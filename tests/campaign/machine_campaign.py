"""A generated campaign with people and a machine assessor, built through the imports (runs
and qrels files), for the calibration, hybrid-qrels and validation tests and
bench/calibrate_bench.py. Everything the tests compare against is returned as plain dicts,
so the expected values are computed without the workbench."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from workbench.campaign.catalog.importing import import_qrels, import_runs
from workbench.campaign.machine.provenance import make_provenance


@dataclass
class MachineCampaign:
    runs: dict[str, dict[str, dict[str, float]]]  # tag -> query -> doc -> score
    people: dict[str, dict[tuple[str, str], int]]  # assessor -> (query, doc) -> grade
    machine: dict[tuple[str, str], int]  # the machine's labels
    queries: list[str]
    pool: list[tuple[str, str]]


def write_qrels(path: Path, grades: dict[tuple[str, str], int]) -> Path:
    path.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in sorted(grades.items())))
    return path


def build_machine_campaign(db, tmp: Path, *, n_queries: int = 8, n_systems: int = 6,
                           depth: int = 12, n_docs: int = 40, judged_share: float = 0.5,
                           human_queries: int | None = None, machine: str = "llm",
                           people: tuple[str, ...] = ("alice", "bob"), seed: int = 3,
                           lenient: float = 0.3, noise: float = 0.25) -> MachineCampaign:
    """Systems of graded quality retrieve `depth` of `n_docs` documents per query; a hidden
    truth grades every pooled item 0..3; the machine labels every pooled item (the truth,
    one grade higher with chance `lenient`, random with chance `noise`); each person judges
    a share of the items of the first `human_queries` queries (the truth, one grade off
    with chance 0.2)."""
    rng = np.random.default_rng(seed)
    queries = [f"q{i:02d}" for i in range(1, n_queries + 1)]
    docs = [f"d{j:03d}" for j in range(n_docs)]
    truth = {(q, d): int(rng.choice(4, p=[0.5, 0.25, 0.15, 0.1])) for q in queries for d in docs}
    runs: dict[str, dict[str, dict[str, float]]] = {}
    tmp.mkdir(parents=True, exist_ok=True)
    paths = []
    for s in range(n_systems):
        tag = f"sys{s}"
        skill = s / max(n_systems - 1, 1)
        lines, runs[tag] = [], {}
        for q in queries:
            score = {d: skill * truth[(q, d)] + rng.normal(0, 1.0) for d in docs}
            top = sorted(docs, key=lambda d: (-score[d], d))[:depth]
            runs[tag][q] = {d: round(float(score[d]), 6) for d in top}
            lines += [f"{q} Q0 {d} {r} {runs[tag][q][d]} {tag}\n" for r, d in enumerate(top, 1)]
        path = tmp / f"{tag}.run"
        path.write_text("".join(lines))
        paths.append(path)
    import_runs(db, paths)
    pool = sorted({(q, d) for tag in runs for q in queries for d in runs[tag][q]})
    labels = {}
    for item in pool:
        g = truth[item]
        if rng.random() < noise:
            g = int(rng.integers(0, 4))
        elif rng.random() < lenient:
            g = min(3, g + 1)
        labels[item] = g
    judged_queries = set(queries[: human_queries or n_queries])
    grades: dict[str, dict[tuple[str, str], int]] = {}
    for name in people:
        mine = {}
        for item in pool:
            if item[0] in judged_queries and rng.random() < judged_share:
                g = truth[item]
                if rng.random() < 0.2:
                    g = int(np.clip(g + rng.choice([-1, 1]), 0, 3))
                mine[item] = g
        grades[name] = mine
        import_qrels(db, write_qrels(tmp / f"{name}.qrels", mine), assessor=name)
    import_qrels(db, write_qrels(tmp / f"{machine}.qrels", labels), assessor=machine,
                 machine=make_provenance("test-model", prompt="grade {query} {passage}"))
    return MachineCampaign(runs, grades, labels, queries, pool)


def majority(grades: list[int]) -> int:
    """The most frequent grade, ties to the lower (the workbench's rule, restated)."""
    counts = {g: grades.count(g) for g in set(grades)}
    best = max(counts.values())
    return min(g for g, c in counts.items() if c == best)


def people_majority(c: MachineCampaign) -> dict[tuple[str, str], int]:
    items: dict[tuple[str, str], list[int]] = {}
    for grades in c.people.values():
        for item, g in grades.items():
            items.setdefault(item, []).append(g)
    return {item: majority(gs) for item, gs in items.items()}
