"""Imported leaderboards: write one (replacing a leaderboard of that name), list them, and
hand one out as arrays."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


@dataclass(frozen=True)
class StoredLeaderboard:
    name: str
    format: str
    runs: np.ndarray  # str, one per value
    topics: np.ndarray
    measures: np.ndarray
    values: np.ndarray  # float64


def write_leaderboard(s: Session, name: str, fmt: str, source_file: str, runs: Sequence[str],
                      topics: Sequence[str], measures: Sequence[str], values: Sequence[float]) -> bool:
    """Store the leaderboard `name` in the caller's transaction, replacing one of that name;
    True when one was replaced."""
    from sqlalchemy import delete, insert, select

    from workbench.store.models import Leaderboard, LeaderboardValue

    old = s.execute(select(Leaderboard.id).where(Leaderboard.name == name)).scalar_one_or_none()
    if old is not None:
        s.execute(delete(LeaderboardValue).where(LeaderboardValue.leaderboard_id == old))
        s.execute(delete(Leaderboard).where(Leaderboard.id == old))
    board = Leaderboard(name=name, format=fmt, source_file=source_file)
    s.add(board)
    s.flush()
    rows = [{"leaderboard_id": board.id, "run": r, "topic": t, "measure": m, "value": float(v)}
            for r, t, m, v in zip(runs, topics, measures, values)]
    for start in range(0, len(rows), 5000):
        s.execute(insert(LeaderboardValue), rows[start:start + 5000])
    return old is not None


def leaderboard_names(s: Session) -> list[str]:
    from sqlalchemy import select

    from workbench.store.models import Leaderboard

    return list(s.execute(select(Leaderboard.name).order_by(Leaderboard.name)).scalars())


def load_leaderboard(s: Session, name: str) -> StoredLeaderboard | None:
    """The values of leaderboard `name` as arrays, None when there is none of that name."""
    from sqlalchemy import select

    from workbench.store.models import Leaderboard, LeaderboardValue

    board = s.execute(select(Leaderboard.id, Leaderboard.format).where(Leaderboard.name == name)).first()
    if board is None:
        return None
    rows = s.execute(select(LeaderboardValue.run, LeaderboardValue.topic, LeaderboardValue.measure,
                            LeaderboardValue.value)
                     .where(LeaderboardValue.leaderboard_id == board.id)
                     .order_by(LeaderboardValue.id)).all()
    cols = list(zip(*rows)) if rows else [(), (), (), ()]
    return StoredLeaderboard(name, board.format, np.array(cols[0], dtype=object), np.array(cols[1], dtype=object),
                             np.array(cols[2], dtype=object), np.asarray(cols[3], dtype=np.float64))
