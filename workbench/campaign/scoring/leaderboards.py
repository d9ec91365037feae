"""Leaderboards: imported from AutoJudge's files (`workbench import leaderboard`) and read
back as the source `leaderboard:NAME` (system x topic values of one measure), beside the
sources scored from the campaign's judgments."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Callable

import numpy as np

from workbench.campaign.database import Database
from workbench.errors import NotFoundError, UsageError
from workbench.formats.leaderboards import SUMMARY_TOPIC, read_leaderboard

PREFIX = "leaderboard:"


@dataclass(frozen=True)
class LeaderboardSummary:
    name: str
    path: str
    values: int
    runs: int
    measures: tuple[str, ...]
    replaced: bool

    def message(self) -> str:
        verb = "replaced" if self.replaced else "imported"
        return (f"{verb} leaderboard {self.name} from {os.path.basename(self.path)}: {self.values} values, "
                f"{self.runs} runs, measures {', '.join(self.measures)}")


def import_leaderboard(db: Database, path: str, *, progress: Callable | None = None, name: str,
                       format: str | None = None, measure: str | None = None) -> LeaderboardSummary:
    """Read the whole file (a bad line: InputError naming file and line, nothing written),
    then store it under `name` in one transaction, replacing a leaderboard of that name."""
    from workbench.campaign.writing import write_transaction
    from workbench.store.leaderboards import write_leaderboard

    rows = read_leaderboard(path, format, measure=measure)
    fmt = format or "detected"
    with write_transaction(db) as s:
        replaced = write_leaderboard(s, name, fmt, os.path.basename(path), rows.runs, rows.topics,
                                     rows.measures, rows.values)
        if progress is not None:
            progress("committing", len(rows), len(rows))
    return LeaderboardSummary(name, path, len(rows), len(set(rows.runs)),
                              tuple(dict.fromkeys(rows.measures)), replaced)


def leaderboard_names(db: Database) -> list[str]:
    from workbench.store.leaderboards import leaderboard_names as names

    with db.read() as s:
        return names(s)


@dataclass(frozen=True)
class BoardScores:
    """One measure of a leaderboard: values[i, j] for system i on topic j where present;
    `means` the file's `all` value, else the mean over the topics present."""

    source: str
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    values: np.ndarray
    present: np.ndarray
    means: np.ndarray


def leaderboard_scores(db: Database, name: str, measure: str) -> BoardScores:
    """The leaderboard `name`'s values of `measure` (its name as the file spells it)."""
    from workbench.store.leaderboards import load_leaderboard

    with db.read() as s:
        board = load_leaderboard(s, name)
    if board is None:
        raise NotFoundError(f"no leaderboard named {name!r} (workbench import leaderboard FILE --name {name})")
    keep = board.measures == measure
    if not keep.any():
        have = ", ".join(dict.fromkeys(board.measures.tolist()))
        raise UsageError(f"leaderboard {name} has no measure {measure!r}; it has {have}")
    runs, topics, values = board.runs[keep], board.topics[keep], board.values[keep]
    systems = tuple(sorted(set(runs.tolist())))
    per_topic = topics != SUMMARY_TOPIC
    topic_names = tuple(sorted(set(topics[per_topic].tolist())))
    row = {s: i for i, s in enumerate(systems)}
    col = {t: j for j, t in enumerate(topic_names)}
    grid = np.zeros((len(systems), len(topic_names)))
    present = np.zeros(grid.shape, dtype=bool)
    summary = np.full(len(systems), math.nan)
    for r, t, v in zip(runs.tolist(), topics.tolist(), values.tolist()):
        if t == SUMMARY_TOPIC:
            summary[row[r]] = v
        else:
            grid[row[r], col[t]] = v
            present[row[r], col[t]] = True
    counts = present.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        topic_mean = np.where(counts > 0, (grid * present).sum(axis=1) / np.maximum(counts, 1), math.nan)
    means = np.where(np.isnan(summary), topic_mean, summary)
    return BoardScores(PREFIX + name, systems, topic_names, grid, present, means)


def leaderboard_rows(db: Database, name: str, measures: list[str] | None = None):
    """(run, topic, measure, value) of a stored leaderboard, for `export scores -q`."""
    from workbench.store.leaderboards import load_leaderboard

    with db.read() as s:
        board = load_leaderboard(s, name)
    if board is None:
        raise NotFoundError(f"no leaderboard named {name!r}")
    for r, t, m, v in zip(board.runs.tolist(), board.topics.tolist(), board.measures.tolist(),
                          board.values.tolist()):
        if not measures or m in measures:
            yield r, t, m, v
